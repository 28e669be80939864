// rayjob-guard review: one AdmissionReview request (JSON) in, exactly the body `serve` would answer
// on stdout. For debugging a denial offline and for golden tests.
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "admission/policy_file.hpp"
#include "admission/review.hpp"
#include "cli/commands.hpp"
#include "cli/input.hpp"
#include "common/flags.hpp"
#include "common/visible_text.hpp"

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
  std::string policy_path;
  Result<flags::Parsed> parsed = flags::parse(args, {{"--policy", "", true, flags::text(policy_path)}});
  if (!parsed.ok()) {
    return usage_error("review", parsed.error().message);
  }
  if (parsed.value().help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  const std::vector<std::string>& inputs = parsed.value().positional;
  if (inputs.size() > 1) {
    return usage_error("review", "only one input FILE is accepted");
  }
  Result<admission::LoadedPolicy> policy = admission::load_policy_or_default(policy_path);
  if (!policy.ok()) {
    std::fprintf(stderr, "rayjob-guard review: %s\n", visible(policy.error().message).c_str());
    return 2;
  }
  const std::string path = inputs.empty() ? "-" : inputs.front();
  Result<std::string> body = read_input(path);
  if (!body.ok()) {
    std::fprintf(stderr, "rayjob-guard review: %s\n", visible(body.error().message).c_str());
    return 2;
  }
  Result<admission::ReviewResult> result = admission::review(body.value(), policy.value());
  if (!result.ok()) {
    std::fprintf(stderr, "rayjob-guard review: %s: %s\n", error_code_name(result.error().code),
                 visible(result.error().message).c_str());
    return 2;
  }
  std::fwrite(result.value().body.data(), 1, result.value().body.size(), stdout);
  std::fputc('\n', stdout);
  return 0;
}

}  // namespace rjg::cli
