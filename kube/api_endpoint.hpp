// ApiEndpoint: where the Kubernetes API is and how to log in to it, found the way kubectl finds
// it: --kubeconfig, else $KUBECONFIG (a list of files, merged), else ~/.kube/config, with
// --context choosing among their contexts; the in-cluster service account when none of those
// holds a config; or explicit flags (--server, --token-file, --ca).
#pragma once

#include <string>

#include "admission/kubeconfig.hpp"
#include "common/result.hpp"

namespace rjg::kube {

struct ApiEndpoint {
  std::string host;  // DNS name or IP literal (IPv6 without brackets)
  std::string port = "443";
  std::string ca_pem;  // PEM of the CA(s) that sign the apiserver certificate
  bool insecure_skip_tls_verify = false;  // only from a kubeconfig that says so
  std::string tls_server_name;  // the name verified and sent as SNI when not `host`
  admission::KubeUser login;    // how to log in (kube/credentials.hpp keeps it fresh)
  std::string exec_info;        // KUBERNETES_EXEC_INFO for login.exec
  std::string source;           // where it came from, for logs: "kubeconfig F, context C", ...
  std::string describe() const { return "https://" + host + ":" + port; }
};

// Splits "https://host[:port][/]" into host and port. Returns kInvalidArgument for another
// scheme, an empty host, a path, or a bad port.
Status parse_server_url(const std::string& url, ApiEndpoint& out);

// The connection flags `reap` and `audit` share, and what the environment adds to them.
struct ClusterFlags {
  std::string kubeconfig;  // --kubeconfig
  std::string context;     // --context
  std::string server;      // --server, with token_file and ca_file
  std::string token_file;
  std::string ca_file;
};
struct Environment {
  std::string kubeconfig_env;  // $KUBECONFIG
  std::string home;            // $HOME
  std::string sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  // KUBERNETES_SERVICE_HOST/PORT: set inside a pod.
  std::string service_host;
  std::string service_port;
  // The process's own environment.
  static Environment of_process();
};

// The endpoint `flags` and `env` choose. Returns kInvalidArgument for flags that do not go
// together or a kubeconfig that does not decode or whose context does not check
// (admission::select_context), kUnsupported for logins it names, kUnavailable when a file
// cannot be read or nothing names a cluster (no kubeconfig, not in a pod).
Result<ApiEndpoint> chosen_endpoint(const ClusterFlags& flags, const Environment& env);

// The files a kubeconfig is read from, in merge order: --kubeconfig alone; else the existing
// files of $KUBECONFIG (':'-separated, empty entries and repeats skipped); else ~/.kube/config
// when it exists; else none.
std::vector<std::string> kubeconfig_files(const ClusterFlags& flags, const Environment& env);

}  // namespace rjg::kube
