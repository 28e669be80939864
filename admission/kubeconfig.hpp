// A kubeconfig file's current context, decoded: where the API is and which credentials to use.
// Translation only: no file is read here (the caller reads the kubeconfig and the files it
// names), so the `reap` command's transport stays free of YAML.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace rjg::admission {

struct Kubeconfig {
  std::string server;                     // clusters[].cluster.server, as written
  bool insecure_skip_tls_verify = false;  // cluster.insecure-skip-tls-verify
  std::optional<std::string> ca_pem;      // cluster.certificate-authority-data, base64-decoded
  std::optional<std::string> ca_file;     // cluster.certificate-authority, resolved
  std::optional<std::string> token;       // users[].user.token
  std::optional<std::string> token_file;  // users[].user.tokenFile, resolved
};

// Decodes the current context of the kubeconfig `yaml_text`, read from `path` (relative file
// names in it are resolved against the directory of `path`, and messages name it). Returns
// kInvalidArgument for malformed YAML or a missing/mistyped key (the message names the key), a
// cluster without certificate-authority(-data) that does not set insecure-skip-tls-verify, or
// base64 that does not decode; kUnsupported for client-certificate, exec or auth-provider users.
Result<Kubeconfig> decode_kubeconfig(std::string_view yaml_text, const std::string& path);

}  // namespace rjg::admission
