// ApiEndpoint: where the Kubernetes API is and how to authenticate to it, from one of three
// sources: the in-cluster service account, a kubeconfig file, or explicit flags (for tests).
#pragma once

#include <string>

#include "common/result.hpp"

namespace rjg::reaper {

struct ApiEndpoint {
  std::string host;  // DNS name or IP literal (IPv6 without brackets)
  std::string port = "443";
  std::string token;   // bearer token; may be empty (then no Authorization header)
  std::string ca_pem;  // PEM of the CA(s) that sign the apiserver certificate
  bool insecure_skip_tls_verify = false;  // only from a kubeconfig that says so
  std::string describe() const { return "https://" + host + ":" + port; }
};

// Splits "https://host[:port][/]" into host and port. Returns kInvalidArgument for another
// scheme, an empty host, a path, or a bad port.
Status parse_server_url(const std::string& url, ApiEndpoint& out);

// The in-cluster configuration: KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT, the token and
// CA at /var/run/secrets/kubernetes.io/serviceaccount/ (`sa_dir` overrides that directory for
// tests). Returns kUnavailable when the variables are unset or a file cannot be read.
Result<ApiEndpoint> in_cluster_endpoint(const std::string& sa_dir);

// Reads the current context of the kubeconfig at `path`: cluster server, certificate-authority
// or certificate-authority-data or insecure-skip-tls-verify, user token or tokenFile. Returns
// kUnavailable when a file cannot be read, kInvalidArgument for a malformed kubeconfig (the
// message names the key), kUnsupported for client-certificate or exec/auth-provider users.
Result<ApiEndpoint> kubeconfig_endpoint(const std::string& path);

// --server URL --token-file F --ca F. Returns kInvalidArgument for a bad URL, kUnavailable when
// a file cannot be read.
Result<ApiEndpoint> flags_endpoint(const std::string& server, const std::string& token_file,
                                   const std::string& ca_file);

// The endpoint the command-line flags choose: `kubeconfig` when not empty, else `server` with
// `token_file` and `ca_file` when `server` is not empty, else the in-cluster service account
// under `sa_dir`. Errors as the three functions above.
Result<ApiEndpoint> chosen_endpoint(const std::string& kubeconfig, const std::string& server,
                                    const std::string& token_file, const std::string& ca_file,
                                    const std::string& sa_dir);

}  // namespace rjg::reaper
