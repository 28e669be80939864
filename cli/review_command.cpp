// rayjob-guard review: one AdmissionReview request (JSON) in, exactly the body `serve` would answer
// on stdout. For debugging a denial offline and for golden tests.
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>

#include "admission/policy_file.hpp"
#include "admission/review.hpp"
#include "cli/commands.hpp"
#include "cli/input.hpp"

namespace rjg::cli {
namespace {

constexpr const char* kHelp =
    "usage: rayjob-guard review [--policy FILE] [FILE|-]\n"
    "Reads one AdmissionReview (admission.k8s.io/v1) request from FILE or stdin and prints the\n"
    "response body exactly as `rayjob-guard serve` would answer it.\n"
    "  --policy FILE  policy YAML (default: the built-in policy, see `rayjob-guard policy "
    "default`)\n"
    "Exit status: 0 a response was produced (allowed or denied), 2 undecodable input or bad "
    "policy.\n";

}  // namespace

int run_review(const Args& args) {
  std::optional<std::string> policy_path;
  std::optional<std::string> input;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (a == "--policy" || a.rfind("--policy=", 0) == 0) {
      if (a == "--policy") {
        if (i + 1 >= args.size()) {
          std::fputs("rayjob-guard review: --policy needs a FILE\n", stderr);
          return 2;
        }
        policy_path = args[++i];
      } else {
        policy_path = a.substr(9);
      }
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "rayjob-guard review: unknown option '%s' (see --help)\n", a.c_str());
      return 2;
    }
    if (input) {
      std::fputs("rayjob-guard review: only one input FILE is accepted\n", stderr);
      return 2;
    }
    input = a;
  }
  Result<admission::LoadedPolicy> policy =
      policy_path ? admission::load_policy_file(*policy_path)
                  : admission::decode_policy(admission::default_policy_yaml());
  if (!policy.ok()) {
    std::fprintf(stderr, "rayjob-guard review: %s\n", policy.error().message.c_str());
    return 2;
  }
  const std::string path = input.value_or("-");
  Result<std::string> body = read_input(path);
  if (!body.ok()) {
    std::fprintf(stderr, "rayjob-guard review: %s\n", body.error().message.c_str());
    return 2;
  }
  Result<admission::ReviewResult> result = admission::review(body.value(), policy.value());
  if (!result.ok()) {
    std::fprintf(stderr, "rayjob-guard review: %s: %s\n", error_code_name(result.error().code),
                 result.error().message.c_str());
    return 2;
  }
  std::fwrite(result.value().body.data(), 1, result.value().body.size(), stdout);
  std::fputc('\n', stdout);
  return 0;
}

}  // namespace rjg::cli
