// The client.authentication.k8s.io exchange with a kubeconfig's exec plugin: the
// KUBERNETES_EXEC_INFO value handed to it, and the ExecCredential it prints. Translation only:
// kube/credentials.hpp runs the plugin.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "admission/kubeconfig.hpp"
#include "common/result.hpp"

namespace rjg::admission {

struct ExecCredential {
  std::string token;                   // empty when the plugin gave a client certificate only
  std::string client_certificate_pem;  // with client_key_pem, or both empty
  std::string client_key_pem;
  std::optional<std::int64_t> expires_unix;  // status.expirationTimestamp; none: never expires
};

// The KUBERNETES_EXEC_INFO JSON for a plugin of `exec`: kind ExecCredential, its apiVersion,
// spec.interactive false, and, when exec.provideClusterInfo, spec.cluster with the server,
// tls-server-name, insecure-skip-tls-verify and `ca_pem` as certificate-authority-data.
std::string exec_info_json(const ExecConfig& exec, const KubeCluster& cluster,
                           const std::string& ca_pem);

// Decodes what the plugin printed. Returns kInvalidArgument when it is not an ExecCredential of
// `api_version`, has no status, gives neither a token nor a certificate and key (or one of the
// pair only), or an expirationTimestamp that is not RFC 3339.
Result<ExecCredential> decode_exec_credential(std::string_view json, std::string_view api_version);

}  // namespace rjg::admission
