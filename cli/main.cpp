// rayjob-guard: the executable. Dispatches to one subcommand; everything else lives in the layers.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/commands.hpp"
#include "common/visible_text.hpp"

namespace {

constexpr const char* kUsage =
    "usage: rayjob-guard <command> [options]\n"
    "commands:\n"
    "  serve    run the HTTPS validating admission webhook\n"
    "  review   answer one AdmissionReview (JSON) on stdout, exactly as serve would\n"
    "  check    check RayJob manifests (YAML/JSON) before submitting them\n"
    "  policy   print the default policy (policy default) or validate a file (policy validate FILE)\n"
    "  reap     delete finished RayJobs whose TTL passed (clusters without a deletion policy)\n"
    "  audit    report the RayJobs in a cluster the policy would refuse or that hold quota for nothing\n"
    "  version  print the version (-o json: with the KubeRay versions and the default policy)\n"
    "  completion  print a bash or zsh completion script\n"
    "Run 'rayjob-guard <command> --help' for the options of a command.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string command = argv[1];
  const rjg::cli::Args args(argv + 1, argv + argc);
  if (command == "serve") return rjg::cli::run_serve(args);
  if (command == "review") return rjg::cli::run_review(args);
  if (command == "check") return rjg::cli::run_check(args);
  if (command == "policy") return rjg::cli::run_policy(args);
  if (command == "reap") return rjg::cli::run_reap(args);
  if (command == "audit") return rjg::cli::run_audit(args);
  if (command == "version" || command == "--version") return rjg::cli::run_version(args);
  if (command == "completion") return rjg::cli::run_completion(args);
  if (command == "help" || command == "--help" || command == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::fprintf(stderr, "rayjob-guard: unknown command '%s'\n%s", rjg::visible(command).c_str(),
               kUsage);
  return 2;
}
