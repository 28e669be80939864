// SharedState: what every listener and session of one server shares: the immutable config, the
// metrics, the current policy and TLS context snapshots, the lifecycle flags, the registry of
// open HTTPS connections and the large-review lane. Owned by Server, which outlives every session.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "admission/policy_file.hpp"
#include "server/cluster_view.hpp"
#include "server/metrics.hpp"
#include "server/review_pool.hpp"
#include "server/router.hpp"
#include "server/server_config.hpp"
#include "server/tls_context.hpp"

namespace rjg::server {

// A value replaced as a whole and read as a snapshot: load() returns the current shared_ptr, which
// stays valid for the holder even after a store(). Thread-safe.
template <typename T>
class Snapshot {
 public:
  std::shared_ptr<const T> load() const {
    std::lock_guard lock(mu_);
    return value_;
  }
  void store(std::shared_ptr<const T> value) {
    std::lock_guard lock(mu_);
    value_ = std::move(value);
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const T> value_;
};

// A connection the server can ask to finish: respond with Connection: close from now on, and close
// at once (after a short grace) when idle. Called on any thread; implementations post to their
// own context.
class Drainable {
 public:
  virtual ~Drainable() = default;
  virtual void drain() = 0;
};

// The open HTTPS connections. Thread-safe.
class ConnectionRegistry {
 public:
  // Registers a connection; returns its id for remove().
  std::uint64_t add(std::weak_ptr<Drainable> connection) {
    std::lock_guard lock(mu_);
    const std::uint64_t id = next_id_++;
    open_.emplace(id, std::move(connection));
    return id;
  }
  void remove(std::uint64_t id) {
    std::lock_guard lock(mu_);
    open_.erase(id);
  }
  std::size_t size() const {
    std::lock_guard lock(mu_);
    return open_.size();
  }
  // Calls drain() on every open connection.
  void drain_all() {
    std::vector<std::shared_ptr<Drainable>> live;
    {
      std::lock_guard lock(mu_);
      for (auto& [id, weak] : open_) {
        if (auto c = weak.lock()) {
          live.push_back(std::move(c));
        }
      }
    }
    for (auto& c : live) {
      c->drain();
    }
  }

 private:
  mutable std::mutex mu_;
  std::uint64_t next_id_ = 1;
  std::unordered_map<std::uint64_t, std::weak_ptr<Drainable>> open_;
};

struct SharedState {
  SharedState(ServerConfig cfg, const std::string& version, ReviewFn review_fn = {},
              const ClusterView* cluster_view = nullptr)
      : config(std::move(cfg)),
        review(std::move(review_fn)),
        cluster(cluster_view),
        metrics(version),
        large_reviews(config.review_threads, config.review_queue) {}

  const ServerConfig config;
  const ReviewFn review;  // empty = rjg::admission::review (see serve())
  // The cluster's quotas for a policy with quota.source: cluster; null otherwise. Outlives serve().
  const ClusterView* const cluster;
  Metrics metrics;
  Snapshot<admission::LoadedPolicy> policy;
  Snapshot<TlsContext> tls;
  ConnectionRegistry connections;
  std::atomic<bool> ready{false};     // cert + policy loaded and the HTTPS listener accepting
  std::atomic<bool> draining{false};  // signal received: /readyz 503
  std::atomic<bool> closing{false};   // delay over: no new connections, Connection: close
  // The lane of reviews with bodies of config.large_review_bytes or more. Its queued jobs own
  // connections, whose sockets belong to the IoPool: the owner stops it (stop()) while the IoPool
  // still exists.
  ReviewPool large_reviews;
};

}  // namespace rjg::server
