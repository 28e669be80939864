// OpenSSL server context construction and the ALPN selection callback.
#include "server/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>

namespace rjg::server {
namespace {

namespace ssl = boost::asio::ssl;

// ECDHE key exchange with AEAD ciphers only, ECDSA certificates first (the minted leaf is P-256).
// TLS 1.3 suites are all AEAD; OpenSSL's default TLS 1.3 list is kept.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:"
    "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305";

std::string openssl_reason() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) {
      out += "; ";
    }
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

bool readable(const std::string& path) { return std::ifstream(path).good(); }

// Walks the client's ALPN list (length-prefixed strings).
int select_alpn(SSL* /*ssl*/, const unsigned char** out, unsigned char* outlen,
                const unsigned char* in, unsigned int inlen, void* /*arg*/) {
  bool offered_h2 = false;
  for (unsigned int i = 0; i < inlen;) {
    const unsigned int len = in[i];
    if (i + 1 + len > inlen) {
      break;
    }
    const unsigned char* proto = in + i + 1;
    if (len == 8 && std::equal(proto, proto + 8, "http/1.1")) {
      *out = proto;
      *outlen = static_cast<unsigned char>(len);
      return SSL_TLSEXT_ERR_OK;
    }
    if (len == 2 && proto[0] == 'h' && proto[1] == '2') {
      offered_h2 = true;
    }
    i += 1 + len;
  }
  return offered_h2 ? SSL_TLSEXT_ERR_ALERT_FATAL : SSL_TLSEXT_ERR_NOACK;
}

}  // namespace

Result<TlsContext> make_tls_context(const std::string& cert_file, const std::string& key_file,
                                    const std::string& client_ca_file) {
  ERR_clear_error();
  for (const std::string* f : {&cert_file, &key_file, &client_ca_file}) {
    if (!f->empty() && !readable(*f)) {
      return unavailable("cannot read '" + *f + "'");
    }
  }
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(native, TLS1_3_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                  SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_SINGLE_ECDH_USE |
                                  SSL_OP_NO_TICKET);
  if (SSL_CTX_set_cipher_list(native, kTls12Ciphers) != 1) {
    return internal_error("cannot set the TLS 1.2 cipher list: " + openssl_reason());
  }
  SSL_CTX_set_alpn_select_cb(native, select_alpn, nullptr);
  // No session resumption: the apiserver's webhook client (Go crypto/tls with no
  // ClientSessionCache) never resumes, so every ticket OpenSSL issues (two per TLS 1.3 handshake
  // by default: a session encrypted and MACed, and one more record sent) and every server-side
  // cache entry (insert and expiry under a lock) would be pure cost on each new connection.
  SSL_CTX_set_num_tickets(native, 0);
  SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);

  if (SSL_CTX_use_certificate_chain_file(native, cert_file.c_str()) != 1) {
    return invalid_argument("--tls-cert '" + cert_file +
                            "' is not a PEM certificate: " + openssl_reason());
  }
  if (SSL_CTX_use_PrivateKey_file(native, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return invalid_argument("--tls-key '" + key_file + "' is not a PEM private key" +
                            (ERR_peek_error() != 0 ? ": " + openssl_reason() : std::string()));
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    return invalid_argument("--tls-key '" + key_file + "' does not match the certificate in '" +
                            cert_file + "'");
  }
  if (!client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(native, client_ca_file.c_str(), nullptr) != 1) {
      return invalid_argument("--client-ca '" + client_ca_file +
                              "' is not a PEM CA bundle: " + openssl_reason());
    }
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(client_ca_file.c_str());
    if (names == nullptr) {
      return invalid_argument("--client-ca '" + client_ca_file + "' holds no CA certificate");
    }
    SSL_CTX_set_client_CA_list(native, names);
    SSL_CTX_set_verify(native, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }

  TlsContext out;
  X509* leaf = SSL_CTX_get0_certificate(native);
  if (leaf == nullptr) {
    return invalid_argument("--tls-cert '" + cert_file + "' holds no certificate");
  }
  std::tm tm{};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(leaf), &tm) == 1) {
    out.not_after_unix = static_cast<double>(timegm(&tm));
  }
  if (const ASN1_INTEGER* serial = X509_get0_serialNumber(leaf)) {
    if (BIGNUM* bn = ASN1_INTEGER_to_BN(serial, nullptr)) {
      if (char* hex = BN_bn2hex(bn)) {
        out.serial_hex = hex;
        OPENSSL_free(hex);
      }
      BN_free(bn);
    }
  }
  out.context = std::move(ctx);
  return out;
}

}  // namespace rjg::server
