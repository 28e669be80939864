// The flags `reap` and `audit` share to say which cluster to talk to and how to log in, and the
// one way both connect with them.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/flags.hpp"
#include "common/result.hpp"
#include "kube/api_endpoint.hpp"
#include "kube/https_client.hpp"

namespace rjg::cli {

// For the usage text of a command that takes them.
constexpr const char* kClusterFlagsUsage =
    "[--kubeconfig FILE] [--context NAME] | --server URL --token-file FILE --ca FILE";

// What the usage says about them, after the command's own text.
constexpr const char* kClusterFlagsHelp =
    "The cluster is found as kubectl finds it: --kubeconfig, else $KUBECONFIG (files merged),\n"
    "else ~/.kube/config, with --context choosing a context; the in-cluster service account when\n"
    "none of them holds a config. Logins: token, tokenFile (read again when it rotates), client\n"
    "certificate, exec plugin (client.authentication.k8s.io/v1 or v1beta1, run again when its\n"
    "credential expires or after a 401).\n";

// The end of the flag parsing of a command that takes them (`reap`, `audit`). With `err` set:
// prints "rayjob-guard <command>: <err>" and `usage` on stderr, returns 2. With `help`: prints
// `usage` and kClusterFlagsHelp on stdout, returns 0. Otherwise returns nullopt: go on.
std::optional<int> usage_or_help(const char* command, const std::string& err, bool help,
                                 const char* usage);

// Parses `args` by `table` with the cluster flags appended (stored into `cluster`), as flags::parse.
// Returns an error message ("" when none): the parser's, or "unexpected argument 'X'" for a
// positional argument, which neither command takes. Sets `help` when --help or -h was given.
std::string parse_with_cluster_flags(const std::vector<std::string>& args,
                                     std::vector<flags::Flag> table, kube::ClusterFlags& cluster,
                                     bool& help);

// Appends --kubeconfig, --context, --server, --token-file and --ca, stored into `out`.
void add_cluster_flags(std::vector<flags::Flag>& table, kube::ClusterFlags& out);

// True when any of them was given.
bool any_cluster_flag(const kube::ClusterFlags& f);

struct Connection {
  kube::ApiEndpoint endpoint;
  std::unique_ptr<kube::HttpsClient> client;
};

// The endpoint `f` chooses in this process's environment, and a client for it whose requests
// time out after `timeout`. Errors as kube::chosen_endpoint and kube::HttpsClient::create.
Result<Connection> connect(const kube::ClusterFlags& f, std::chrono::seconds timeout);

}  // namespace rjg::cli
