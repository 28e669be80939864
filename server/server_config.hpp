// ServerConfig: every setting of `rayjob-guard serve`, parsed from the command line and validated
// once at startup. After parse_server_config() returns it is never modified (Envoy style: config
// once, then immutable); reloadable state (certificate, policy) lives in Server, not here.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/file.hpp"
#include "common/flags.hpp"
#include "common/result.hpp"
#include "logging/log.hpp"

namespace rjg::server {

using logging::LogFormat;

// A listening address: an IPv4/IPv6 literal and a port (0 = let the kernel pick one).
struct ListenAddress {
  std::string host;  // "0.0.0.0", "127.0.0.1", "::" ...
  std::uint16_t port = 0;
};

struct ServerConfig {
  // --tls-cert FILE: PEM certificate chain served on the HTTPS port (leaf first). Required.
  // Reloaded when the file (or what its symlinks resolve to) changes.
  std::string tls_cert_file;
  // --tls-key FILE: PEM private key matching tls_cert_file. Required. Reloaded with the cert.
  std::string tls_key_file;
  // --client-ca FILE: when set, clients must present a certificate signed by a CA in this PEM
  // bundle (mTLS). Empty (default): no client certificate is requested.
  std::string client_ca_file;
  // --policy FILE: the policy YAML. Empty (default): the embedded default policy. Reloaded on
  // change.
  std::string policy_file;
  // --listen ADDR:PORT: the HTTPS admission listener. Default 0.0.0.0:8443. Port 0 picks a free
  // port.
  ListenAddress listen{"0.0.0.0", 8443};
  // --probe-listen ADDR:PORT: plain-HTTP /healthz, /readyz, /metrics. Default 0.0.0.0:8080.
  ListenAddress probe_listen{"0.0.0.0", 8080};
  // --port-file FILE: when set, {"https":P,"probe":Q} is written there (atomically, via rename)
  // once both listeners are bound, so callers that asked for port 0 learn the ports.
  std::string port_file;
  // --threads N: I/O threads running the event loop (each also runs the reviews smaller than
  // large_review_bytes). Default: the number of CPUs (at least 1). 1..256.
  unsigned threads = 1;
  // --large-review-bytes N: a request body of at least this size is a large review: it is
  // reviewed in its own lane (review_pool.hpp) on review_threads low-priority workers, not on the
  // I/O thread that read it, so it never delays the ordinary reviews. Default 128 KiB (a typical
  // RayJob review is 5-10 KiB, a 12-group one 55 KiB).
  std::size_t large_review_bytes = 128 * 1024;
  // --review-threads N: workers of the large-review lane. Default: half the CPUs (at least 1).
  // 1..256.
  unsigned review_threads = 1;
  // --review-queue N: large reviews that may wait for a worker; one more is answered 503 at once
  // (counted in rayjob_guard_review_overload_total), so the apiserver applies failurePolicy
  // instead of waiting past its timeout. Default 8. 0..4096.
  std::size_t review_queue = 8;
  // --max-body-bytes N: largest accepted request body. Default and maximum: rjg::kMaxInputBytes
  // (7 MiB, common/file.hpp: the one input limit, shared with every file the commands read; an
  // UPDATE review carries two objects of up to 3 MiB). Larger bodies get 413 without being read.
  std::size_t max_body_bytes = kMaxInputBytes;
  // --max-header-bytes N: largest request header block. Default 64 KiB. Larger headers get 431.
  std::size_t max_header_bytes = 64 * 1024;
  // --max-connections N: open HTTPS connections at most. Beyond it a new connection is closed at
  // once and counted in rayjob_guard_connections_rejected_total. Default 4096.
  std::size_t max_connections = 4096;
  // --header-timeout S: time allowed to receive a request's header once its first byte arrived,
  // and for the TLS handshake. Default 10 s.
  std::chrono::milliseconds header_timeout{10'000};
  // --body-timeout S: time allowed to receive the body after the header. Default 30 s.
  std::chrono::milliseconds body_timeout{30'000};
  // --idle-timeout S: how long a keep-alive connection may wait for its next request. Default 120
  // s: longer than the apiserver's 90 s idle close, so the client, not us, closes idle connections.
  std::chrono::milliseconds idle_timeout{120'000};
  // --shutdown-delay S: after SIGTERM/SIGINT, /readyz answers 503 while both listeners keep serving
  // for this long (so endpoints drop the pod before it stops accepting). Default 5 s.
  std::chrono::milliseconds shutdown_delay{5'000};
  // --shutdown-timeout S: after the signal, the process exits (0) at the latest this long later,
  // closing connections still open. Default 25 s.
  std::chrono::milliseconds shutdown_timeout{25'000};
  // --reload-interval S: how often certificate, key, client CA and policy files are checked for
  // changes (mtime, inode, size, resolved path). Default 1 s.
  std::chrono::milliseconds reload_interval{1'000};
  // --log-format json|text. Default json.
  LogFormat log_format = LogFormat::kJson;
  // --log-level trace|debug|info|warn|error|critical|off. Default info.
  std::string log_level = "info";
};

// Parses `args` (args[0] is "serve") into a validated ServerConfig. Durations accept seconds as a
// decimal number ("5", "0.2") or Go-style text ("500ms", "2s", "1m"). Returns kInvalidArgument
// naming the flag for an unknown flag, a missing value, a missing --tls-cert/--tls-key, or a value
// out of range. Does not touch the file system: files are read by the server at startup.
// `extra` are flags the caller parses itself (serve's cluster flags), accepted alongside.
Result<ServerConfig> parse_server_config(const std::vector<std::string>& args,
                                         std::vector<flags::Flag> extra = {});

// The `serve --help` text.
const char* serve_usage();

// Parses "HOST:PORT" or "[V6]:PORT". Returns kInvalidArgument for anything else.
Result<ListenAddress> parse_listen_address(const std::string& text);

// Parses a duration: decimal seconds ("5", "0.25") or Go duration text ("300ms", "1.5s", "2m",
// "1m30s"). Returns kInvalidArgument on anything else or a negative value.
Result<std::chrono::milliseconds> parse_duration(const std::string& text);

}  // namespace rjg::server
