// JSON/text rendering of structured events on top of spdlog's stderr logger (see log.hpp).
#include "logging/log.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <memory>

#include "logging/log_sink.hpp"

namespace rjg::logging {
namespace {

std::atomic<bool> g_json{true};

// Decision lines reach stderr at most this long after they were logged (see BufferedSink).
constexpr std::chrono::milliseconds kLogFlushInterval{100};

// Appends `s` as a JSON string. Runs of characters that need no escape (all but '"', '\\' and
// control bytes) are appended whole: this runs for every field of every decision line.
void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  std::size_t run = 0;  // start of the pending run of plain characters
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u != '"' && u != '\\') {
      continue;
    }
    out.append(s, run, i - run);
    run = i + 1;
    switch (u) {
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
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", u);
        out += buf;
      }
    }
  }
  out.append(s, run, s.size() - run);
  out += '"';
}

// True when a text value can be written bare: not empty, and no space, quote, '=', backslash or
// control byte that could end the value or forge another field.
bool is_bare(std::string_view s) {
  if (s.empty()) {
    return false;
  }
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f || c == '"' || c == '=' || c == '\\') {
      return false;
    }
  }
  return true;
}

// Text values are quoted (as JSON strings) unless they can be written bare (logfmt style).
void append_text_value(std::string& out, std::string_view s) {
  if (is_bare(s)) {
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
    // What printf's "%.6g" writes, without printf (to_chars formats as if by it).
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, *d, std::chars_format::general, 6);
    out.append(buf, r.ptr);
  } else {
    out += std::get<bool>(v) ? "true" : "false";
  }
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
  auto sink = std::make_shared<BufferedSink>(STDERR_FILENO, kLogFlushInterval);
  auto logger = std::make_shared<spdlog::logger>("rayjob-guard", std::move(sink));
  // The fields are rendered by log_event; the pattern only adds time and level.
  logger->set_pattern(
      json ? R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l",%v})" : "%Y-%m-%dT%H:%M:%S.%fZ %l %v",
      spdlog::pattern_time_type::utc);
  logger->set_level(spdlog::level::from_str(level == "warn" ? "warning" : level));
  // Warnings and errors are written at once; log_event flushes every event line it writes, so
  // only decision lines wait for the sink's batch.
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

void flush_logs() { spdlog::default_logger_raw()->flush(); }

namespace {

template <typename Fields>
void write_event(Level level, std::string_view msg, const Fields& fields) {
  const auto lvl = to_spdlog(level);
  if (!spdlog::default_logger_raw()->should_log(lvl)) {
    return;
  }
  std::string& line = line_buffer();
  LineWriter writer(line, msg);
  for (const auto& f : fields) {
    writer.add(f.key, f.value);
  }
  // The string_view overload writes the line as is (no format string to interpret).
  spdlog::default_logger_raw()->log(lvl, spdlog::string_view_t(line.data(), line.size()));
  // Lifecycle events are rare and someone may be waiting for them (an operator, a probe script):
  // they, and every line batched before them, are written now.
  spdlog::default_logger_raw()->flush();
}

}  // namespace

void log_event(Level level, std::string_view msg, std::initializer_list<Field> fields) {
  write_event(level, msg, fields);
}

void log_event(Level level, std::string_view msg, const std::vector<Field>& fields) {
  write_event(level, msg, fields);
}

LineWriter::LineWriter(std::string& line, std::string_view msg) : line_(line), json_(g_json) {
  line_.clear();
  if (json_) {
    line_ += "\"msg\":";
    append_json_string(line_, msg);
  } else {
    line_ += msg;
  }
}

void LineWriter::add(std::string_view key, const FieldValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    add_text(key, *s);
  } else {
    open(key);
    append_value(line_, value, json_);
  }
}

void LineWriter::add_text(std::string_view key, std::string_view value) {
  open(key);
  json_ ? append_json_string(line_, value) : append_text_value(line_, value);
}

void LineWriter::add_list(std::string_view key, const std::vector<std::string>& items) {
  thread_local std::string joined;
  joined.clear();
  for (const auto& item : items) {
    if (!joined.empty()) {
      joined += ',';
    }
    joined += item;
  }
  add_text(key, joined);
}

void LineWriter::open(std::string_view key) {
  if (json_) {
    line_ += ',';
    append_json_string(line_, key);
    line_ += ':';
  } else {
    line_ += ' ';
    line_ += key;
    line_ += '=';
  }
}

bool enabled(Level level) { return spdlog::default_logger_raw()->should_log(to_spdlog(level)); }

std::string& line_buffer() {
  thread_local std::string line;
  return line;
}

void write_batched(Level level, std::string_view line) {
  spdlog::default_logger_raw()->log(to_spdlog(level), spdlog::string_view_t(line.data(), line.size()));
}

}  // namespace rjg::logging
