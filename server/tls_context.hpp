// The TLS server context: built from the certificate, key and optional client-CA files, with the
// protocol and cipher policy of the webhook fixed here and nowhere else:
//   - TLS 1.2 and 1.3 only; TLS 1.2 suites are ECDHE with AES-GCM or ChaCha20-Poly1305 only
//     (no CBC, no RSA key exchange); no compression, no renegotiation.
//   - ALPN: "http/1.1" is selected when offered. A client offering "h2" but not "http/1.1" is
//     refused with a fatal no_application_protocol alert (we only speak HTTP/1.1, and failing the
//     handshake is clearer than a later protocol error). Any other list gets no ALPN answer ("no
//     ack"), which HTTP/1.1 clients accept.
//   - With a client CA: a client certificate signed by it is required (mTLS).
//   - No session resumption (no tickets, no session cache): the apiserver does not resume
//     sessions to webhooks, so every connection is a full handshake anyway.
// A context is immutable once built; a reload builds a new one and swaps the shared_ptr.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

#include "common/result.hpp"

namespace rjg::server {

struct TlsContext {
  std::shared_ptr<boost::asio::ssl::context> context;
  double not_after_unix = 0;  // the leaf certificate's notAfter, seconds since the epoch
  std::string serial_hex;     // the leaf certificate's serial number, for the reload log line
};

// Builds a server context from PEM files. Returns kUnavailable when a file cannot be read, and
// kInvalidArgument when a file is not valid PEM of the expected kind or the key does not match
// the certificate; the message names the file and OpenSSL's reason. `client_ca_file` may be empty.
Result<TlsContext> make_tls_context(const std::string& cert_file, const std::string& key_file,
                                    const std::string& client_ca_file);

}  // namespace rjg::server
