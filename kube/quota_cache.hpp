// QuotaCache: the cluster's quota objects as Watchers keep them (one watcher per collection of
// kQuotaCollections, each with this cache's sink for it), published after every change as one
// immutable policy::ClusterQuotas that reviews read without locking beyond a pointer copy.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kube/kube_api.hpp"
#include "kube/watcher.hpp"
#include "policy/cluster_quota.hpp"

namespace rjg::kube {

// The collections quota-fit reads from the cluster, in the order of QuotaCache::sink().
enum class QuotaCollection { kResourceQuotas, kLocalQueues, kClusterQueues };
struct QuotaCollectionInfo {
  QuotaCollection collection;
  const char* prefix;    // WatchOptions::prefix
  const char* resource;  // WatchOptions::resource
  // Served only where Kueue is installed: a 404 is an empty collection (WatchOptions::optional).
  bool optional;
};
inline constexpr std::array<QuotaCollectionInfo, 3> kQuotaCollections = {{
    {QuotaCollection::kResourceQuotas, "/api/v1", "resourcequotas", false},
    {QuotaCollection::kLocalQueues, "/apis/kueue.x-k8s.io/v1beta2", "localqueues", true},
    {QuotaCollection::kClusterQueues, "/apis/kueue.x-k8s.io/v1beta2", "clusterqueues", true},
}};

struct QuotaObjects;  // the decoded objects of every collection (quota_cache.cpp)

class QuotaCache {
 public:
  QuotaCache();
  ~QuotaCache();
  QuotaCache(const QuotaCache&) = delete;
  QuotaCache& operator=(const QuotaCache&) = delete;

  // The sink a Watcher of `collection` writes to; lives as long as the cache. Each sink is called
  // from its own watcher's thread. An object that cannot be read is left out (logged, and counted
  // in unreadable()); the apiserver validated it, so this means a field this decoder does not
  // know.
  WatchSink& sink(QuotaCollection collection);

  // The quotas as of the last change; null before the first replace() of any sink. Thread-safe.
  std::shared_ptr<const policy::ClusterQuotas> snapshot() const;
  // Objects left out because they could not be read. Thread-safe.
  std::int64_t unreadable() const;

 private:
  class Sink;

  std::vector<std::unique_ptr<Sink>> sinks_;  // one per QuotaCollection
  mutable std::mutex mu_;
  std::unique_ptr<QuotaObjects> objects_;  // under mu_
  std::shared_ptr<const policy::ClusterQuotas> current_;
  std::int64_t unreadable_ = 0;
};

// What `check` judges by when it is given a cluster, listed once, page by page: the
// ResourceQuotas and Kueue LocalQueues of `namespace_` (of every namespace when empty), and every
// ClusterQueue (none where Kueue is not installed: the API answers 404). Returns kUnavailable
// when an API call failed, kInvalidArgument when an answer or an object cannot be read.
Result<std::shared_ptr<const policy::ClusterQuotas>> list_quotas(KubeApi& api,
                                                                 const std::string& namespace_);

}  // namespace rjg::kube
