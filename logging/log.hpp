// Structured log lines on stderr through spdlog, as JSON objects or as logfmt `key=value` text:
// the one logger of `serve` and `reap`. Each event is one line: time, level, msg, then the fields
// in the order given. Every value is escaped (JSON strings; in text, a value with a space, quote,
// '=' or control character is written as a JSON string), so a value can never forge a field.
// Lines are batched (BufferedSink, log_sink.hpp): log_event lines are written at once together
// with anything batched before them; batched lines reach stderr within 100 ms, or at flush_logs().
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace rjg::logging {

enum class LogFormat { kJson, kText };

// One field value: text, integer, real or boolean.
using FieldValue = std::variant<std::string, long long, double, bool>;
struct Field {
  std::string_view key;
  FieldValue value;
};

enum class Level { kDebug, kInfo, kWarn, kError };

// Configures the default spdlog logger to write to stderr in `format` at `level` (trace, debug,
// info, warn, error, critical or off; callers validate it). Call once before the first log_event.
void init_logging(LogFormat format, const std::string& level);

// Writes every batched line to stderr now. Thread-safe. Call before the process exits.
void flush_logs();

// Writes one event line, and every line batched before it. Thread-safe.
void log_event(Level level, std::string_view msg, std::initializer_list<Field> fields);
// The same, for a caller whose fields depend on the event (some present only sometimes).
void log_event(Level level, std::string_view msg, const std::vector<Field>& fields);

// Renders one line in the configured format into `line` (cleared first), for a caller that
// writes a hot line without building Field values (the server's decision line).
class LineWriter {
 public:
  LineWriter(std::string& line, std::string_view msg);
  void add(std::string_view key, const FieldValue& value);
  void add_text(std::string_view key, std::string_view value);
  // The items joined with ',' as one text value.
  void add_list(std::string_view key, const std::vector<std::string>& items);

 private:
  void open(std::string_view key);
  std::string& line_;
  bool json_;
};

// True when a line at `level` would be written.
bool enabled(Level level);

// A line buffer reused by the calling thread (a line per request would otherwise allocate).
std::string& line_buffer();

// Writes `line` (rendered by a LineWriter) batched: it reaches stderr within 100 ms, or at the
// next log_event or flush_logs(). Thread-safe.
void write_batched(Level level, std::string_view line);

}  // namespace rjg::logging
