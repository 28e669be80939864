// Command-line parsing and validation for `rayjob-guard serve`.
#include "server/server_config.hpp"

#include <charconv>
#include <cmath>
#include <string_view>
#include <thread>

namespace rjg::server {
namespace {

Result<unsigned long long> parse_count(const std::string& flag, const std::string& text,
                                       unsigned long long min, unsigned long long max) {
  unsigned long long v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < min || v > max) {
    return invalid_argument(flag + ": expected a whole number in [" + std::to_string(min) + ", " +
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
  auto port = parse_count("port", text.substr(colon + 1), 0, 65535);
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

Result<ServerConfig> parse_server_config(const std::vector<std::string>& args) {
  ServerConfig c;
  c.threads = std::max(1U, std::thread::hardware_concurrency());
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool has_value = false;
    if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    auto take = [&]() -> Result<std::string> {
      if (has_value) {
        return value;
      }
      if (i + 1 >= args.size()) {
        return invalid_argument(flag + ": missing value");
      }
      return args[++i];
    };
    auto duration = [&](std::chrono::milliseconds& out) -> Status {
      auto v = take();
      if (!v.ok()) {
        return v.error();
      }
      auto d = parse_duration(v.value());
      if (!d.ok()) {
        return invalid_argument(flag + ": " + d.error().message);
      }
      out = d.value();
      return {};
    };
    auto text = [&](std::string& out) -> Status {
      auto v = take();
      if (!v.ok()) {
        return v.error();
      }
      if (v.value().empty()) {
        return invalid_argument(flag + ": empty value");
      }
      out = std::move(v).value();
      return {};
    };
    auto count = [&](unsigned long long min, unsigned long long max,
                     unsigned long long& out) -> Status {
      auto v = take();
      if (!v.ok()) {
        return v.error();
      }
      auto n = parse_count(flag, v.value(), min, max);
      if (!n.ok()) {
        return n.error();
      }
      out = n.value();
      return {};
    };
    auto address = [&](ListenAddress& out) -> Status {
      auto v = take();
      if (!v.ok()) {
        return v.error();
      }
      auto a = parse_listen_address(v.value());
      if (!a.ok()) {
        return invalid_argument(flag + ": " + a.error().message);
      }
      out = a.value();
      return {};
    };

    Status s;
    unsigned long long n = 0;
    if (flag == "--tls-cert") {
      s = text(c.tls_cert_file);
    } else if (flag == "--tls-key") {
      s = text(c.tls_key_file);
    } else if (flag == "--client-ca") {
      s = text(c.client_ca_file);
    } else if (flag == "--policy") {
      s = text(c.policy_file);
    } else if (flag == "--port-file") {
      s = text(c.port_file);
    } else if (flag == "--listen") {
      s = address(c.listen);
    } else if (flag == "--probe-listen") {
      s = address(c.probe_listen);
    } else if (flag == "--threads") {
      if (s = count(1, 256, n); s.ok()) {
        c.threads = static_cast<unsigned>(n);
      }
    } else if (flag == "--max-body-bytes") {
      if (s = count(1, 1ULL << 30, n); s.ok()) {
        c.max_body_bytes = static_cast<std::size_t>(n);
      }
    } else if (flag == "--max-header-bytes") {
      if (s = count(1024, 1ULL << 20, n); s.ok()) {
        c.max_header_bytes = static_cast<std::size_t>(n);
      }
    } else if (flag == "--max-connections") {
      if (s = count(1, 1'000'000, n); s.ok()) {
        c.max_connections = static_cast<std::size_t>(n);
      }
    } else if (flag == "--header-timeout") {
      s = duration(c.header_timeout);
    } else if (flag == "--body-timeout") {
      s = duration(c.body_timeout);
    } else if (flag == "--idle-timeout") {
      s = duration(c.idle_timeout);
    } else if (flag == "--shutdown-delay") {
      s = duration(c.shutdown_delay);
    } else if (flag == "--shutdown-timeout") {
      s = duration(c.shutdown_timeout);
    } else if (flag == "--reload-interval") {
      s = duration(c.reload_interval);
    } else if (flag == "--log-format") {
      std::string f;
      if (s = text(f); s.ok()) {
        if (f == "json") {
          c.log_format = LogFormat::kJson;
        } else if (f == "text") {
          c.log_format = LogFormat::kText;
        } else {
          s = invalid_argument("--log-format: expected json or text, got '" + f + "'");
        }
      }
    } else if (flag == "--log-level") {
      if (s = text(c.log_level); s.ok()) {
        static constexpr const char* kLevels[] = {"trace", "debug",    "info", "warn",
                                                  "error", "critical", "off"};
        bool known = false;
        for (const char* l : kLevels) {
          known = known || c.log_level == l;
        }
        if (!known) {
          s = invalid_argument(
              "--log-level: expected trace, debug, info, warn, error, critical "
              "or off, got '" +
              c.log_level + "'");
        }
      }
    } else {
      s = invalid_argument("unknown flag '" + args[i] + "'");
    }
    if (!s.ok()) {
      return s.error();
    }
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
