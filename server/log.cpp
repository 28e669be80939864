// The decision line (see log.hpp).
#include "server/log.hpp"

namespace rjg::server {

void log_decision(const admission::ReviewSummary& s, std::chrono::nanoseconds latency,
                  unsigned status) {
  // The same line log_event would write for these fields, without copying each value into a
  // FieldValue first: this runs once per answered review.
  if (!logging::enabled(Level::kInfo)) {
    return;
  }
  std::string& line = logging::line_buffer();
  logging::LineWriter w(line, "admission decision");
  w.add_text("uid", s.uid);
  w.add_text("namespace", s.namespace_);
  w.add_text("name", s.name);
  w.add_text("kind", s.kind);
  w.add_text("operation", s.operation);
  w.add("allowed", s.allowed);
  w.add_list("denied", s.denied_rules);
  w.add_list("warned", s.warned_rules);
  w.add("latency_ms", std::chrono::duration<double, std::milli>(latency).count());
  w.add("http_status", static_cast<long long>(status));
  w.add("dry_run", s.dry_run);
  w.add_text("username", s.username);
  logging::write_batched(Level::kInfo, line);
}

}  // namespace rjg::server
