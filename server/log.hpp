// The server's log lines: the shared structured logger (logging/log.hpp, also the reaper's) and
// the one audit line per answered review. The request body is never logged.
#pragma once

#include <chrono>

#include "admission/review.hpp"
#include "logging/log.hpp"

namespace rjg::server {

using logging::Field;
using logging::FieldValue;
using logging::flush_logs;
using logging::init_logging;
using logging::Level;
using logging::log_event;
using logging::LogFormat;

// Writes the one audit line of an answered review: uid, namespace, name, operation, allowed,
// denied and warned rule ids, latency, HTTP status, dry_run and the username (audit only).
// The line is batched: it reaches stderr within 100 ms (the crash window), or at the next
// log_event or flush_logs(). Thread-safe.
void log_decision(const admission::ReviewSummary& summary, std::chrono::nanoseconds latency,
                  unsigned status);

}  // namespace rjg::server
