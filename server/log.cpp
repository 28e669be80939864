// JSON/text rendering of structured events on top of spdlog's stderr logger.
#include "server/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdio>
#include <memory>

namespace rjg::server {
namespace {

std::atomic<bool> g_json{true};

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", u);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// Text values are quoted only when they contain spaces, quotes or '=' (logfmt style).
void append_text_value(std::string& out, std::string_view s) {
  if (!s.empty() && s.find_first_of(" \"=\t\n") == std::string_view::npos) {
    out += s;
  } else {
    append_json_string(out, s);
  }
}

void append_value(std::string& out, const FieldValue& v, bool json) {
  if (const auto* s = std::get_if<std::string>(&v)) {
    json ? append_json_string(out, *s) : append_text_value(out, *s);
  } else if (const auto* i = std::get_if<long long>(&v)) {
    out += std::to_string(*i);
  } else if (const auto* d = std::get_if<double>(&v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", *d);
    out += buf;
  } else {
    out += std::get<bool>(v) ? "true" : "false";
  }
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) {
      out += ',';
    }
    out += item;
  }
  return out;
}

spdlog::level::level_enum to_spdlog(Level level) {
  switch (level) {
    case Level::kDebug:
      return spdlog::level::debug;
    case Level::kInfo:
      return spdlog::level::info;
    case Level::kWarn:
      return spdlog::level::warn;
    case Level::kError:
      return spdlog::level::err;
  }
  return spdlog::level::info;
}

}  // namespace

void init_logging(LogFormat format, const std::string& level) {
  const bool json = format == LogFormat::kJson;
  g_json = json;
  auto logger = spdlog::stderr_logger_mt("rayjob-guard");
  // The fields are rendered by log_event; the pattern only adds time and level.
  logger->set_pattern(
      json ? R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l",%v})" : "%Y-%m-%dT%H:%M:%S.%fZ %l %v",
      spdlog::pattern_time_type::utc);
  logger->set_level(spdlog::level::from_str(level == "warn" ? "warning" : level));
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(std::move(logger));
}

void log_event(Level level, std::string_view msg, std::initializer_list<Field> fields) {
  const auto lvl = to_spdlog(level);
  if (!spdlog::default_logger_raw()->should_log(lvl)) {
    return;
  }
  const bool json = g_json;
  std::string line;
  line.reserve(256);
  if (json) {
    line += "\"msg\":";
    append_json_string(line, msg);
    for (const auto& f : fields) {
      line += ',';
      append_json_string(line, f.key);
      line += ':';
      append_value(line, f.value, true);
    }
  } else {
    line += msg;
    for (const auto& f : fields) {
      line += ' ';
      line += f.key;
      line += '=';
      append_value(line, f.value, false);
    }
  }
  spdlog::default_logger_raw()->log(lvl, "{}", line);
}

void log_decision(const admission::ReviewSummary& s, std::chrono::nanoseconds latency,
                  unsigned status) {
  log_event(Level::kInfo, "admission decision",
            {{"uid", s.uid},
             {"namespace", s.namespace_},
             {"name", s.name},
             {"kind", s.kind},
             {"operation", s.operation},
             {"allowed", s.allowed},
             {"denied", join(s.denied_rules)},
             {"warned", join(s.warned_rules)},
             {"latency_ms", std::chrono::duration<double, std::milli>(latency).count()},
             {"http_status", static_cast<long long>(status)},
             {"dry_run", s.dry_run},
             {"username", s.username}});
}

}  // namespace rjg::server
