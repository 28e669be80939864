// Credentials (see credentials.hpp).
#include "kube/credentials.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "common/file.hpp"

namespace rjg::kube {
namespace {

std::string trim_trailing_space(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

Bio memory_bio(const std::string& text) {
  return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

}  // namespace

ClientCert::~ClientCert() {
  X509_free(cert_);
  sk_X509_pop_free(chain_, X509_free);
  EVP_PKEY_free(key_);
}

Result<std::shared_ptr<const ClientCert>> ClientCert::parse(const std::string& cert_pem,
                                                            const std::string& key_pem,
                                                            const std::string& what) {
  std::shared_ptr<ClientCert> out(new ClientCert());
  Bio certs = memory_bio(cert_pem);
  out->cert_ = PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr);
  if (out->cert_ == nullptr) {
    ERR_clear_error();
    return invalid_argument(what + ": the client certificate is not a PEM certificate");
  }
  out->chain_ = sk_X509_new_null();
  while (X509* next = PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr)) {
    sk_X509_push(out->chain_, next);
  }
  ERR_clear_error();  // the end of the PEM stream
  Bio key = memory_bio(key_pem);
  out->key_ = PEM_read_bio_PrivateKey(key.get(), nullptr, nullptr, nullptr);
  if (out->key_ == nullptr) {
    ERR_clear_error();
    return invalid_argument(what + ": the client key is not a PEM private key");
  }
  if (X509_check_private_key(out->cert_, out->key_) != 1) {
    ERR_clear_error();
    return invalid_argument(what + ": the client key does not belong to the client certificate");
  }
  return std::shared_ptr<const ClientCert>(std::move(out));
}

bool ClientCert::use_in(SSL* ssl) const {
  return SSL_use_cert_and_key(ssl, cert_, key_, chain_, 1) == 1;
}

Credentials::Credentials(admission::KubeUser user, std::string exec_info, PluginRunner run_plugin,
                         WallClock now)
    : user_(std::move(user)),
      exec_info_(std::move(exec_info)),
      run_plugin_(std::move(run_plugin)),
      now_(std::move(now)) {
  // A token written in the kubeconfig wins over tokenFile, as in kubectl.
  if (!user_.token && user_.token_file) {
    token_file_ = WatchedFile{*user_.token_file, {}, {}};
  }
  if (user_.client_certificate_file) {
    cert_file_ = WatchedFile{*user_.client_certificate_file, {}, {}};
  }
  if (user_.client_key_file) {
    key_file_ = WatchedFile{*user_.client_key_file, {}, {}};
  }
}

Result<const std::string*> Credentials::read(WatchedFile& f) {
  struct stat st {};
  if (::stat(f.path.c_str(), &st) != 0) {
    return unavailable("cannot read " + f.path + ": " + std::strerror(errno));
  }
  const std::string stamp = std::to_string(st.st_size) + "/" + std::to_string(st.st_mtim.tv_sec) +
                            "." + std::to_string(st.st_mtim.tv_nsec) + "/" +
                            std::to_string(st.st_ino);
  if (stamp != f.stamp) {
    RJG_ASSIGN_OR_RETURN(f.text, read_file(f.path));
    f.stamp = stamp;
  }
  return &f.text;
}

Result<std::shared_ptr<const ClientCert>> Credentials::file_cert() {
  const std::string* cert_pem = nullptr;
  const std::string* key_pem = nullptr;
  if (cert_file_) {
    RJG_ASSIGN_OR_RETURN(cert_pem, read(*cert_file_));
  } else {
    cert_pem = &*user_.client_certificate_pem;
  }
  if (key_file_) {
    RJG_ASSIGN_OR_RETURN(key_pem, read(*key_file_));
  } else {
    key_pem = &*user_.client_key_pem;
  }
  const std::string stamp =
      (cert_file_ ? cert_file_->stamp : "") + "|" + (key_file_ ? key_file_->stamp : "");
  if (cert_ == nullptr || stamp != cert_stamp_) {
    RJG_ASSIGN_OR_RETURN(cert_, ClientCert::parse(*cert_pem, *key_pem, describe()));
    cert_stamp_ = stamp;
  }
  return cert_;
}

Result<Auth> Credentials::current() {
  Auth auth;
  if (user_.token) {
    auth.bearer_token = *user_.token;
  } else if (token_file_) {
    RJG_ASSIGN_OR_RETURN(const std::string* text, read(*token_file_));
    auth.bearer_token = trim_trailing_space(*text);
    if (auth.bearer_token.empty()) {
      return invalid_argument("the token file " + token_file_->path + " is empty");
    }
  }
  if (user_.client_certificate_pem || user_.client_certificate_file) {
    RJG_ASSIGN_OR_RETURN(auth.cert, file_cert());
  }
  if (user_.exec) {
    const bool expired = exec_credential_ && exec_credential_->expires_unix &&
                         now_() >= *exec_credential_->expires_unix;
    if (!exec_credential_ || expired) {
      exec_credential_.reset();
      exec_cert_.reset();
      RJG_ASSIGN_OR_RETURN(const std::string printed, run_plugin_(*user_.exec, exec_info_));
      Result<admission::ExecCredential> cred =
          admission::decode_exec_credential(printed, user_.exec->api_version);
      if (!cred) {
        return invalid_argument("exec plugin \"" + user_.exec->command +
                                "\": " + cred.error().message);
      }
      if (!cred.value().client_certificate_pem.empty()) {
        RJG_ASSIGN_OR_RETURN(exec_cert_, ClientCert::parse(cred.value().client_certificate_pem,
                                                           cred.value().client_key_pem,
                                                           describe()));
      }
      exec_credential_ = std::move(cred).value();
    }
    auth.bearer_token = exec_credential_->token;
    auth.cert = exec_cert_;
  }
  return auth;
}

bool Credentials::refresh_after_unauthorized() {
  bool may_change = false;
  for (std::optional<WatchedFile>* f : {&token_file_, &cert_file_, &key_file_}) {
    if (*f) {
      (*f)->stamp.clear();
      may_change = true;
    }
  }
  if (user_.exec) {
    exec_credential_.reset();
    exec_cert_.reset();
    may_change = true;
  }
  return may_change;
}

std::string Credentials::describe() const {
  std::string out;
  const auto add = [&out](const std::string& part) { out += (out.empty() ? "" : " + ") + part; };
  if (user_.token) {
    add("token");
  } else if (user_.token_file) {
    add("tokenFile " + *user_.token_file);
  }
  if (user_.client_certificate_pem || user_.client_certificate_file) {
    add("client certificate");
  }
  if (user_.exec) {
    add("exec plugin " + user_.exec->command);
  }
  return out.empty() ? "anonymous" : out;
}

}  // namespace rjg::kube
