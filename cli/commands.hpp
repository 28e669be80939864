// The subcommands of the rayjob-guard executable. Each takes the arguments after its own name
// (argv[0] is the subcommand) and returns the process exit code; main() only dispatches.
// Output goes to stdout, diagnostics to stderr; each prints one clear line on a bad argument.
#pragma once

#include <string>
#include <vector>

namespace rjg::cli {

using Args = std::vector<std::string>;

// Prints "rayjob-guard COMMAND: MESSAGE (see --help)" on stderr and returns 2, the exit status of
// every usage error (input.cpp).
int usage_error(const char* command, const std::string& message);

// rayjob-guard review [--policy FILE] [FILE|-]   (review_command.cpp)
// Exit 0 when a response was produced, 2 on undecodable input or a bad policy.
int run_review(const Args& args);

// rayjob-guard check [--policy FILE] [--namespace NS] [--output text|json] FILE...
// Exit 0 all allowed, 1 any denied, 2 bad input.   (check_command.cpp)
int run_check(const Args& args);

// rayjob-guard policy default | policy validate FILE   (policy_command.cpp)
int run_policy(const Args& args);

// rayjob-guard serve --tls-cert FILE --tls-key FILE [...]   (serve_command.cpp)
int run_serve(const Args& args);

// rayjob-guard reap [--policy FILE] [--namespace NS | --all-namespaces] [...] (reap_command.cpp)
int run_reap(const Args& args);

// rayjob-guard audit [--policy FILE] [--namespace NS | --all-namespaces] [-o ...] [...]
// Exit 0 nothing found, 1 found, 2 bad usage or the API unreadable.   (audit_command.cpp)
int run_audit(const Args& args);

// rayjob-guard version [--output text|json]   (version_command.cpp)
int run_version(const Args& args);

// rayjob-guard completion bash|zsh   (completion_command.cpp)
int run_completion(const Args& args);

}  // namespace rjg::cli
