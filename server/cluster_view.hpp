// ClusterView: what `serve` reads of the cluster when the policy takes quota from it
// (quota.source: cluster). The server asks it for the quotas of each review, for readiness and
// for the staleness metric; who keeps it current (kube/watcher.hpp) is the caller's business.
#pragma once

#include <memory>

#include "policy/cluster_quota.hpp"

namespace rjg::server {

class ClusterView {
 public:
  virtual ~ClusterView() = default;
  // The ResourceQuotas and Kueue queues as last synced; null before the first sync.
  // Thread-safe.
  virtual std::shared_ptr<const policy::ClusterQuotas> quotas() const = 0;
  // True once every collection has been listed completely: /readyz waits for it. Thread-safe.
  virtual bool synced() const = 0;
  // How far behind the cluster the quotas may be, in seconds: 0 while every watch is open, else
  // the time since the stalest collection was last known current. Thread-safe.
  virtual double staleness_seconds() const = 0;
};

}  // namespace rjg::server
