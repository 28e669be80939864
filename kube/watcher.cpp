// Watcher: list, watch, resume, relist on 410, back off on failure.
#include "kube/watcher.hpp"

#include <utility>

#include "logging/log.hpp"

namespace rjg::kube {
namespace {

constexpr int kGone = 410;

}  // namespace

Watcher::Watcher(Transport& transport, WatchOptions options, WatchSink& sink, std::uint64_t seed)
    : transport_(transport), options_(std::move(options)), sink_(sink), rng_(seed) {
  state_.current_at = std::chrono::steady_clock::now();
}

void Watcher::run() {
  std::string resource_version;
  while (!stop_.load()) {
    if (resource_version.empty()) {
      resource_version = list();
    } else {
      resource_version = watch(std::move(resource_version));
    }
    if (consecutive_failures_ > 0 && !stop_.load()) {
      back_off();
    }
  }
}

void Watcher::stop() {
  {
    std::lock_guard lock(mu_);
    stop_.store(true);
  }
  woken_.notify_all();
}

WatchState Watcher::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

std::chrono::duration<double> Watcher::staleness(std::chrono::steady_clock::time_point now) const {
  std::lock_guard lock(mu_);
  if (state_.watching || state_.absent) {
    return std::chrono::duration<double>(0);
  }
  return now - state_.current_at;
}

void Watcher::failed(const std::string& error) {
  ++consecutive_failures_;
  {
    std::lock_guard lock(mu_);
    state_.watching = false;
    state_.absent = false;  // not known to be absent any more: staleness runs from current_at
    ++state_.failures;
    state_.last_error = error;
  }
  logging::log_event(logging::Level::kWarn, "watch failed",
                     {{"resource", options_.resource},
                      {"attempt", static_cast<long long>(consecutive_failures_)},
                      {"error", error}});
}

void Watcher::back_off() {
  const int step = std::min(consecutive_failures_ - 1, 30);
  std::uniform_int_distribution<std::int64_t> jitter(
      options_.backoff.ceiling(step).count() / 2, options_.backoff.ceiling(step).count());
  const std::chrono::milliseconds wait(jitter(rng_));
  std::unique_lock lock(mu_);
  woken_.wait_for(lock, wait, [this] { return stop_.load(); });
}

void Watcher::absent() {
  bool was_absent = false;  // only this thread writes state_.absent
  {
    std::lock_guard lock(mu_);
    was_absent = state_.absent;
  }
  if (!was_absent) {
    sink_.replace({});
    logging::log_event(logging::Level::kInfo, "watch: resource not served, taken as empty",
                       {{"resource", options_.resource},
                        {"recheck_ms", static_cast<long long>(options_.absent_recheck.count())}});
  }
  consecutive_failures_ = 0;
  std::unique_lock lock(mu_);
  state_.synced = true;
  state_.absent = true;
  state_.watching = false;
  state_.current_at = std::chrono::steady_clock::now();
  state_.last_error.clear();
  woken_.wait_for(lock, options_.absent_recheck, [this] { return stop_.load(); });
}

std::string Watcher::list() {
  std::vector<admission::WatchedObject> objects;
  std::string token;
  std::string resource_version;
  do {
    HttpRequest req;
    req.method = "GET";
    req.target = collection_target(options_.prefix, options_.resource, "", options_.page_size,
                                   token);
    Result<HttpResponse> r = transport_.send(req);
    if (!r) {
      failed("list: " + r.error().message);
      return "";
    }
    if (r.value().status == 404 && options_.optional) {
      absent();
      return "";
    }
    if (r.value().status != 200) {
      failed("list: GET " + req.target + ": HTTP " + std::to_string(r.value().status) + " " +
             r.value().body.substr(0, 300));
      return "";
    }
    Result<admission::ObjectListPage> page = admission::decode_object_list(r.value().body);
    if (!page) {
      failed("list: GET " + req.target + ": " + page.error().message);
      return "";
    }
    if (resource_version.empty()) {
      resource_version = page.value().resource_version;  // every page is of the first's version
    }
    for (admission::WatchedObject& o : page.value().items) {
      objects.push_back(std::move(o));
    }
    token = std::move(page.value().continue_token);
  } while (!token.empty() && !stop_.load());
  if (stop_.load()) {
    return "";
  }
  if (resource_version.empty()) {
    failed("list: the list has no metadata.resourceVersion to watch from");
    return "";
  }
  const std::size_t count = objects.size();
  sink_.replace(std::move(objects));
  consecutive_failures_ = 0;
  {
    std::lock_guard lock(mu_);
    state_.synced = true;
    state_.absent = false;
    ++state_.lists;
    state_.current_at = std::chrono::steady_clock::now();
    state_.last_error.clear();
  }
  logging::log_event(logging::Level::kInfo, "watch listed",
                     {{"resource", options_.resource},
                      {"objects", static_cast<long long>(count)},
                      {"resource_version", resource_version}});
  return resource_version;
}

std::string Watcher::watch(std::string resource_version) {
  HttpRequest req;
  req.method = "GET";
  // A little jitter on the server's timeout spreads the reconnects of many replicas.
  std::uniform_int_distribution<int> spread(0, options_.watch_timeout_seconds / 10);
  req.target = options_.prefix + "/" + options_.resource +
               "?watch=1&allowWatchBookmarks=true&resourceVersion=" +
               url_escape(resource_version) +
               "&timeoutSeconds=" + std::to_string(options_.watch_timeout_seconds + spread(rng_));
  std::string pending;  // the part of a line not ended yet
  bool relist = false;
  std::string broken;   // why the stream was abandoned, "" when it was not
  const BodySink sink = [&](std::string_view bytes) {
    {
      std::lock_guard lock(mu_);
      if (!state_.watching) {
        state_.watching = true;  // the server answered 200: the stream is live
        consecutive_failures_ = 0;
      }
      state_.current_at = std::chrono::steady_clock::now();
    }
    pending.append(bytes);
    std::size_t start = 0;
    for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1) {
      const std::string_view line(pending.data() + start, end - start);
      if (line.empty()) {
        continue;
      }
      Result<admission::WatchEvent> e = admission::decode_watch_event(line);
      if (!e) {
        broken = "watch: " + e.error().message;
        return false;
      }
      admission::WatchEvent& event = e.value();
      switch (event.type) {
        case admission::WatchEvent::Type::kError:
          if (event.error_code == kGone) {
            relist = true;
          } else {
            broken = "watch: the server sent an error (" + std::to_string(event.error_code) +
                     "): " + event.error_message;
          }
          return false;
        case admission::WatchEvent::Type::kBookmark:
          break;
        case admission::WatchEvent::Type::kDeleted:
          sink_.erase(event.object.namespace_, event.object.name);
          break;
        case admission::WatchEvent::Type::kAdded:
        case admission::WatchEvent::Type::kModified:
          sink_.upsert(std::move(event.object));
          break;
      }
      if (event.type != admission::WatchEvent::Type::kBookmark) {
        std::lock_guard lock(mu_);
        ++state_.events;
      }
      if (!event.resource_version.empty()) {
        resource_version = std::move(event.resource_version);
      }
    }
    pending.erase(0, start);
    return true;
  };
  StreamLimits limits;
  limits.idle = options_.idle;
  limits.stop = &stop_;
  Result<HttpResponse> r = transport_.stream(req, sink, limits);
  {
    std::lock_guard lock(mu_);
    if (state_.watching) {
      state_.current_at = std::chrono::steady_clock::now();
    }
    state_.watching = false;
  }
  if (relist || (r && r.value().status == kGone)) {
    logging::log_event(logging::Level::kInfo, "watch expired",
                       {{"resource", options_.resource}, {"resource_version", resource_version}});
    return "";  // 410 Gone: list again
  }
  if (!broken.empty()) {
    failed(broken);
    return "";  // what the stream said cannot be trusted past this point: list again
  }
  if (!r) {
    failed(r.error().message);
    return resource_version;
  }
  if (r.value().status != 200) {
    failed("watch: GET " + req.target + ": HTTP " + std::to_string(r.value().status) + " " +
           r.value().body.substr(0, 300));
    // An optional collection no longer served (its CRD deleted): the list says so.
    return r.value().status == 404 && options_.optional ? "" : resource_version;
  }
  return resource_version;  // the server ended the watch: resume from where it was
}

}  // namespace rjg::kube
