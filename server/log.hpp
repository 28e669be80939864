// Structured log lines on stderr through spdlog, as JSON objects or as `key=value` text.
// Each event is one line: time, level, msg, then the fields in the order given.
// The request body is never logged.
// Lines are batched (BufferedSink): log_event lines are written at once together with anything
// batched before them; decision lines reach stderr within 100 ms, or at flush_logs().
#pragma once

#include <chrono>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "admission/review.hpp"
#include "server/server_config.hpp"

namespace rjg::server {

// One field value: text, integer, real or boolean.
using FieldValue = std::variant<std::string, long long, double, bool>;
struct Field {
  std::string_view key;
  FieldValue value;
};

enum class Level { kDebug, kInfo, kWarn, kError };

// Configures the default spdlog logger to write to stderr in `format` at `level` (a valid
// --log-level name). Call once before the first log_event.
void init_logging(LogFormat format, const std::string& level);

// Writes every batched line to stderr now. Thread-safe. Call before the process exits.
void flush_logs();

// Writes one event line, and every decision line batched before it. Thread-safe.
void log_event(Level level, std::string_view msg, std::initializer_list<Field> fields);

// Writes the one audit line of an answered review: uid, namespace, name, operation, allowed,
// denied and warned rule ids, latency, HTTP status, dry_run and the username (audit only).
// The line is batched: it reaches stderr within 100 ms (the crash window), or at the next
// log_event or flush_logs(). Thread-safe.
void log_decision(const admission::ReviewSummary& summary, std::chrono::nanoseconds latency,
                  unsigned status);

}  // namespace rjg::server
