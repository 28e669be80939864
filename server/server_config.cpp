// Command-line parsing and validation for `rayjob-guard serve`.
#include "server/server_config.hpp"

#include <charconv>
#include <cmath>
#include <string_view>
#include <functional>
#include <thread>
#include <type_traits>

#include "common/flags.hpp"

namespace rjg::server {
namespace {

Result<unsigned long long> parse_count(const std::string& text, unsigned long long min,
                                       unsigned long long max) {
  unsigned long long v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < min || v > max) {
    return invalid_argument("expected a whole number in [" + std::to_string(min) + ", " +
                            std::to_string(max) + "], got '" + text + "'");
  }
  return v;
}

// One number with an optional unit, as in Go's time.ParseDuration. Returns milliseconds.
bool parse_duration_part(std::string_view& s, double& ms) {
  std::size_t i = 0;
  while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) {
    ++i;
  }
  if (i == 0) {
    return false;
  }
  const std::string number(s.substr(0, i));
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size()) {
    return false;
  }
  s.remove_prefix(i);
  std::size_t u = 0;
  while (u < s.size() && !((s[u] >= '0' && s[u] <= '9') || s[u] == '.')) {
    ++u;
  }
  const std::string_view unit = s.substr(0, u);
  s.remove_prefix(u);
  double scale = 0;
  if (unit == "ms") {
    scale = 1;
  } else if (unit == "s") {
    scale = 1000;
  } else if (unit == "m") {
    scale = 60'000;
  } else if (unit == "h") {
    scale = 3'600'000;
  } else if (unit == "us" || unit == "µs") {
    scale = 0.001;
  } else {
    return false;
  }
  ms += v * scale;
  return true;
}

}  // namespace

Result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  if (text.empty()) {
    return invalid_argument("empty duration");
  }
  // A bare number is seconds.
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() + text.size() && text[0] != '-' && std::isfinite(seconds)) {
    return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000)));
  }
  std::string_view rest = text;
  double ms = 0;
  while (!rest.empty()) {
    if (!parse_duration_part(rest, ms)) {
      return invalid_argument("'" + text + "' is not a duration (use e.g. 5, 0.5, 500ms, 2s, 1m)");
    }
  }
  if (!std::isfinite(ms) || ms > 1e12) {
    return invalid_argument("'" + text + "' is out of range");
  }
  return std::chrono::milliseconds(static_cast<long long>(std::llround(ms)));
}

Result<ListenAddress> parse_listen_address(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return invalid_argument("'" + text + "' is not ADDR:PORT");
  }
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return invalid_argument("'" + text + "': write IPv6 addresses as [ADDR]:PORT");
  }
  auto port = parse_count(text.substr(colon + 1), 0, 65535);
  if (!port.ok()) {
    return invalid_argument("'" + text + "': the port must be a number in [0, 65535]");
  }
  return ListenAddress{host, static_cast<std::uint16_t>(port.value())};
}

const char* serve_usage() {
  return "usage: rayjob-guard serve --tls-cert FILE --tls-key FILE [options]\n"
         "  --policy FILE            policy YAML (default: the embedded default policy)\n"
         "  --listen ADDR:PORT       HTTPS admission listener (default 0.0.0.0:8443; port 0 = "
         "any)\n"
         "  --probe-listen ADDR:PORT /healthz /readyz /metrics over HTTP (default 0.0.0.0:8080)\n"
         "  --port-file FILE         write {\"https\":P,\"probe\":Q} there once listening\n"
         "  --client-ca FILE         require client certificates signed by this CA (mTLS)\n"
         "  --threads N              I/O threads (default: number of CPUs)\n"
         "  --large-review-bytes N   bodies from this size are reviewed in the large lane "
         "(default 131072)\n"
         "  --review-threads N       large-lane review threads (default: half the CPUs, at least "
         "1)\n"
         "  --review-queue N         large reviews waiting at most, 503 beyond (default 8)\n"
         "  --max-body-bytes N       request body cap, 413 beyond (default 7340032)\n"
         "  --max-header-bytes N     request header cap, 431 beyond (default 65536)\n"
         "  --max-connections N      open connection cap (default 4096)\n"
         "  --header-timeout S       handshake and header read timeout (default 10s)\n"
         "  --body-timeout S         body read timeout (default 30s)\n"
         "  --idle-timeout S         keep-alive idle timeout (default 120s)\n"
         "  --shutdown-delay S       keep serving with /readyz 503 after SIGTERM (default 5s)\n"
         "  --shutdown-timeout S     exit at the latest this long after SIGTERM (default 25s)\n"
         "  --reload-interval S      how often cert/key/CA/policy files are checked (default 1s)\n"
         "  --log-format json|text   (default json)\n"
         "  --log-level LEVEL        trace|debug|info|warn|error|critical|off (default info)\n";
}

Result<ServerConfig> parse_server_config(const std::vector<std::string>& args,
                                         std::vector<flags::Flag> extra) {
  ServerConfig c;
  c.threads = std::max(1U, std::thread::hardware_concurrency());
  c.review_threads = std::max(1U, std::thread::hardware_concurrency() / 2);
  using Setter = std::function<Status(const std::string&)>;
  const auto duration = [](std::chrono::milliseconds& out) -> Setter {
    return [&out](const std::string& v) -> Status {
      RJG_ASSIGN_OR_RETURN(out, parse_duration(v));
      return {};
    };
  };
  const auto count = [](auto& out, unsigned long long min, unsigned long long max) -> Setter {
    return [&out, min, max](const std::string& v) -> Status {
      RJG_ASSIGN_OR_RETURN(const unsigned long long n, parse_count(v, min, max));
      out = static_cast<std::remove_reference_t<decltype(out)>>(n);
      return {};
    };
  };
  const auto address = [](ListenAddress& out) -> Setter {
    return [&out](const std::string& v) -> Status {
      RJG_ASSIGN_OR_RETURN(out, parse_listen_address(v));
      return {};
    };
  };
  const Setter log_format = [&c](const std::string& f) -> Status {
    if (f != "json" && f != "text") {
      return invalid_argument("expected json or text, got '" + f + "'");
    }
    c.log_format = f == "json" ? LogFormat::kJson : LogFormat::kText;
    return {};
  };
  const Setter log_level = [&c](const std::string& l) -> Status {
    static constexpr const char* kLevels[] = {"trace", "debug", "info", "warn",
                                              "error", "critical", "off"};
    for (const char* known : kLevels) {
      if (l == known) {
        c.log_level = l;
        return {};
      }
    }
    return invalid_argument("expected trace, debug, info, warn, error, critical or off, got '" +
                            l + "'");
  };
  std::vector<flags::Flag> table = {{"--tls-cert", "", true, flags::text(c.tls_cert_file)},
             {"--tls-key", "", true, flags::text(c.tls_key_file)},
             {"--client-ca", "", true, flags::text(c.client_ca_file)},
             {"--policy", "", true, flags::text(c.policy_file)},
             {"--port-file", "", true, flags::text(c.port_file)},
             {"--listen", "", true, address(c.listen)},
             {"--probe-listen", "", true, address(c.probe_listen)},
             {"--threads", "", true, count(c.threads, 1, 256)},
             {"--large-review-bytes", "", true, count(c.large_review_bytes, 1, 1ULL << 30)},
             {"--review-threads", "", true, count(c.review_threads, 1, 256)},
             {"--review-queue", "", true, count(c.review_queue, 0, 4096)},
             {"--max-body-bytes", "", true, count(c.max_body_bytes, 1, kMaxInputBytes)},
             {"--max-header-bytes", "", true, count(c.max_header_bytes, 1024, 1ULL << 20)},
             {"--max-connections", "", true, count(c.max_connections, 1, 1'000'000)},
             {"--header-timeout", "", true, duration(c.header_timeout)},
             {"--body-timeout", "", true, duration(c.body_timeout)},
             {"--idle-timeout", "", true, duration(c.idle_timeout)},
             {"--shutdown-delay", "", true, duration(c.shutdown_delay)},
             {"--shutdown-timeout", "", true, duration(c.shutdown_timeout)},
             {"--reload-interval", "", true, duration(c.reload_interval)},
             {"--log-format", "", true, log_format},
             {"--log-level", "", true, log_level}};
  for (flags::Flag& f : extra) {
    table.push_back(std::move(f));
  }
  Result<flags::Parsed> parsed = flags::parse(args, table);
  if (!parsed.ok()) {
    return parsed.error();
  }
  if (!parsed.value().positional.empty()) {
    return invalid_argument("unexpected argument '" + parsed.value().positional.front() + "'");
  }
  if (c.tls_cert_file.empty() || c.tls_key_file.empty()) {
    return invalid_argument("--tls-cert FILE and --tls-key FILE are required");
  }
  if (c.shutdown_timeout < c.shutdown_delay) {
    return invalid_argument("--shutdown-timeout must be at least --shutdown-delay");
  }
  if (c.header_timeout.count() <= 0 || c.body_timeout.count() <= 0 || c.idle_timeout.count() <= 0 ||
      c.reload_interval.count() < 10) {
    return invalid_argument(
        "--header-timeout, --body-timeout and --idle-timeout must be > 0, --reload-interval >= "
        "10ms");
  }
  return c;
}

}  // namespace rjg::server
