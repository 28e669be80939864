// run_reap_pass: one sweep of the reaper. Lists every RayJob in scope page by page, asks
// policy::decide_reap about each, deletes the due ones (unless dry-run) and logs one structured
// line per deletion and per skip, so that what was removed and why can be read later.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "policy/policy_config.hpp"
#include "kube/kube_api.hpp"

namespace rjg::reaper {

struct ReapOptions {
  std::string namespace_;  // empty: all namespaces
  bool dry_run = false;    // decide and log, never DELETE
  int page_size = 100;     // `limit` of each list request
  policy::LifecycleConfig lifecycle;
};

struct ReapStats {
  int listed = 0;
  int deleted = 0;           // DELETE answered 2xx (or would have been, in dry-run)
  int kept = 0;              // running, or not yet due
  int skipped = 0;           // terminating already, or terminal without endTime
  int already_gone = 0;      // DELETE answered 404 or 409: gone or replaced meanwhile
  int failed = 0;            // DELETE finally failed
  bool list_failed = false;  // a list page finally failed; the pass stopped there
  std::string list_error;

  // True when nothing failed: the exit status of `reap --once`.
  bool ok() const { return failed == 0 && !list_failed; }
};

// Clock in seconds since the epoch; the CLI passes the system clock, tests a fixed one.
using Clock = std::function<std::int64_t()>;

// Runs one pass. `api` must outlive the call. `now` is read once per page, so a long listing
// still measures each RayJob's age against a fresh time. Never throws.
ReapStats run_reap_pass(kube::KubeApi& api, const ReapOptions& options, const Clock& now);

}  // namespace rjg::reaper
