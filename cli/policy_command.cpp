// rayjob-guard policy: print the built-in default policy, or validate a policy file.
#include <cstdio>
#include <string>

#include "admission/policy_file.hpp"
#include "cli/commands.hpp"
#include "cli/input.hpp"
#include "common/visible_text.hpp"

namespace rjg::cli {
namespace {

constexpr const char* kHelp =
    "usage: rayjob-guard policy default\n"
    "       rayjob-guard policy validate FILE|-\n"
    "  default   print the built-in policy (commented YAML), a starting point for your own\n"
    "  validate  check a policy file; prints `policy FILE is valid (hash H)` or the error\n"
    "Exit status: 0 ok, 2 invalid policy or bad arguments.\n";

}  // namespace

int run_policy(const Args& args) {
  if (args.size() < 2) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  const std::string& sub = args[1];
  if (sub == "--help" || sub == "-h" || sub == "help") {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (sub == "default") {
    if (args.size() > 2 && (args[2] == "--help" || args[2] == "-h")) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (args.size() > 2) {
      std::fputs("rayjob-guard policy default: takes no arguments\n", stderr);
      return 2;
    }
    const std::string_view text = admission::default_policy_yaml();
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (!text.empty() && text.back() != '\n') {
      std::fputc('\n', stdout);
    }
    return 0;
  }
  if (sub == "validate") {
    if (args.size() > 2 && (args[2] == "--help" || args[2] == "-h")) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (args.size() != 3) {
      std::fputs("rayjob-guard policy validate: needs exactly one FILE (or - for stdin)\n", stderr);
      return 2;
    }
    const std::string& path = args[2];
    Result<admission::LoadedPolicy> policy = [&]() -> Result<admission::LoadedPolicy> {
      if (path != "-") {
        return admission::load_policy_file(path);
      }
      RJG_ASSIGN_OR_RETURN(const std::string text, read_input("-"));
      return admission::decode_policy(text);
    }();
    if (!policy.ok()) {
      std::fprintf(stderr, "rayjob-guard policy validate: %s\n",
                   visible(policy.error().message).c_str());
      return 2;
    }
    std::printf("policy %s is valid (hash %s)\n", visible(path).c_str(),
                policy.value().hash.c_str());
    return 0;
  }
  std::fprintf(stderr, "rayjob-guard policy: unknown subcommand '%s'\n%s", visible(sub).c_str(),
               kHelp);
  return 2;
}

}  // namespace rjg::cli
