// Credentials: what each request to the API carries to say who is asking, kept fresh the way
// kubectl keeps it fresh. A bearer token (written in the kubeconfig, or in a file that is read
// again whenever it changes: bound service-account tokens rotate), a client certificate and key
// (data, or files read again when they change), or an exec plugin's credential (run when first
// needed, kept until its expirationTimestamp, run again after that or after a 401).
#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "admission/exec_credential.hpp"
#include "admission/kubeconfig.hpp"
#include "common/result.hpp"

namespace rjg::kube {

// A client certificate, its chain and key, parsed and checked to belong together. Owns them.
class ClientCert {
 public:
  // Returns kInvalidArgument when `cert_pem` holds no certificate, `key_pem` no private key, or
  // the key is not the certificate's; `what` names the source in messages.
  static Result<std::shared_ptr<const ClientCert>> parse(const std::string& cert_pem,
                                                         const std::string& key_pem,
                                                         const std::string& what);
  ~ClientCert();
  ClientCert(const ClientCert&) = delete;
  ClientCert& operator=(const ClientCert&) = delete;

  // Makes `ssl` present this certificate. Returns false when OpenSSL refuses.
  bool use_in(SSL* ssl) const;

 private:
  ClientCert() = default;
  X509* cert_ = nullptr;
  STACK_OF(X509)* chain_ = nullptr;
  EVP_PKEY* key_ = nullptr;
};

// One request's credentials.
struct Auth {
  std::string bearer_token;                // empty: no Authorization header
  std::shared_ptr<const ClientCert> cert;  // null: no client certificate
};

// Seconds since the epoch, for the exec credential's expiry; tests pass their own.
using WallClock = std::function<std::int64_t()>;
// Runs an exec plugin and returns its stdout; kube/exec_plugin.hpp in production.
using PluginRunner = std::function<Result<std::string>(const admission::ExecConfig&,
                                                       const std::string& exec_info)>;

class Credentials {
 public:
  // `user` says how to log in (checked by admission::select_context); `exec_info` is the
  // KUBERNETES_EXEC_INFO for its plugin (admission::exec_info_json), unused without one.
  Credentials(admission::KubeUser user, std::string exec_info, PluginRunner run_plugin,
              WallClock now);

  // The credentials for the next request, read or run again where they may have changed.
  // Returns kUnavailable when a file cannot be read or the plugin fails, kInvalidArgument when
  // a file or the plugin's output is malformed.
  Result<Auth> current();

  // Called after the API answered 401 Unauthorized: forgets every cached credential, so that
  // current() reads files and runs the plugin again. Returns true when that may give other
  // credentials (a file, a plugin), false when they are fixed (a token in the kubeconfig).
  bool refresh_after_unauthorized();

  // "token", "tokenFile PATH", "client certificate", "exec plugin COMMAND" (joined by " + "),
  // or "anonymous", for logs and messages.
  std::string describe() const;

 private:
  // A file's content, read again when its size, mtime or inode changed.
  struct WatchedFile {
    std::string path;
    std::string text;
    std::string stamp;  // size/mtime/inode of the last read; empty: read next time
  };
  Result<const std::string*> read(WatchedFile& f);
  Result<std::shared_ptr<const ClientCert>> file_cert();

  admission::KubeUser user_;
  std::string exec_info_;
  PluginRunner run_plugin_;
  WallClock now_;
  std::optional<WatchedFile> token_file_;
  std::optional<WatchedFile> cert_file_;
  std::optional<WatchedFile> key_file_;
  std::shared_ptr<const ClientCert> cert_;  // from data, or from the files as last read
  std::string cert_stamp_;                  // the files' stamps cert_ was built from
  std::optional<admission::ExecCredential> exec_credential_;
  std::shared_ptr<const ClientCert> exec_cert_;
};

}  // namespace rjg::kube
