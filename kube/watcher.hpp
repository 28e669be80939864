// Watcher: one collection of the Kubernetes API mirrored in memory, as client-go's reflector does
// it: list (page by page), then watch from the list's resourceVersion with bookmarks, resuming
// from the last resourceVersion seen when a watch ends; a `410 Gone` (that version is compacted
// away) lists again; failures are retried with capped exponential backoff and jitter. Every change
// goes to a WatchSink. Its state (synced, how current) is readable from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "admission/watch_event.hpp"
#include "kube/https_client.hpp"
#include "kube/kube_api.hpp"

namespace rjg::kube {

// Where a Watcher's changes go; called from the watcher's thread only.
class WatchSink {
 public:
  virtual ~WatchSink() = default;
  // The whole collection, from a complete list: replaces everything known.
  virtual void replace(std::vector<admission::WatchedObject> objects) = 0;
  // One object added or changed.
  virtual void upsert(admission::WatchedObject object) = 0;
  // One object deleted.
  virtual void erase(const std::string& namespace_, const std::string& name) = 0;
};

struct WatchOptions {
  std::string prefix = "/api/v1";  // or "/apis/GROUP/VERSION"
  std::string resource;            // e.g. "resourcequotas", across all namespaces
  int page_size = 500;
  // The server ends each watch after this many seconds (the watcher resumes at once), so a
  // connection never outlives a changed login or a moved apiserver by much.
  int watch_timeout_seconds = 300;
  // No byte for this long (bookmarks come about every minute) means a dead connection.
  std::chrono::seconds idle{90};
  // Between failed attempts; max_attempts is not used (the watcher never gives up).
  Backoff backoff{0, std::chrono::milliseconds(200), std::chrono::milliseconds(5000)};
  // A collection that may not be served (a CRD not installed, such as Kueue's): a list answered
  // 404 is an empty collection, synced and current, and the list is tried again after
  // `absent_recheck`, so that the resource is mirrored soon after it is installed. Otherwise a 404
  // is a failure like any other.
  bool optional = false;
  std::chrono::milliseconds absent_recheck{std::chrono::seconds(10)};
};

// A copy of the watcher's state.
struct WatchState {
  bool synced = false;     // a complete list has reached the sink
  bool watching = false;   // a watch is open: the sink is current
  bool absent = false;     // an optional collection the API does not serve: the sink is empty
                           // and current
  std::int64_t lists = 0;  // complete lists (the first included)
  std::int64_t events = 0; // ADDED, MODIFIED and DELETED events applied
  std::int64_t failures = 0;  // failed lists and watches
  std::chrono::steady_clock::time_point current_at{};  // when the sink was last known current
  std::string last_error;  // the last failure, "" when none
};

class Watcher {
 public:
  // `transport` and `sink` must outlive the watcher. `seed` fixes the backoff jitter (tests).
  Watcher(Transport& transport, WatchOptions options, WatchSink& sink, std::uint64_t seed);

  // Lists and watches until stop(); returns soon after it. Call on one thread.
  void run();
  // Ends run(): an open watch is closed within 200 ms, a backoff wait at once. Thread-safe.
  void stop();

  // Thread-safe.
  WatchState state() const;
  // How far behind the cluster the sink may be: zero while a watch is open (or an optional
  // collection is absent), else the time since it was last known current; never synced: since
  // construction. Thread-safe.
  std::chrono::duration<double> staleness(std::chrono::steady_clock::time_point now) const;

 private:
  // One list into the sink; returns the resourceVersion to watch from, or "" after a failure
  // (or after waiting absent_recheck for an optional collection the API does not serve).
  std::string list();
  // An optional collection answered 404: an empty sink, synced, then the wait before the next
  // list.
  void absent();
  // One watch from `resource_version`; returns where to resume, or "" to list again.
  std::string watch(std::string resource_version);
  // Waits the next backoff step (or until stop()).
  void back_off();
  void failed(const std::string& error);

  Transport& transport_;
  WatchOptions options_;
  WatchSink& sink_;
  std::mt19937_64 rng_;
  int consecutive_failures_ = 0;

  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::condition_variable woken_;
  WatchState state_;
};

}  // namespace rjg::kube
