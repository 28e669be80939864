// RuleContext: what every rule's check reads, one request at a time. `namespace_` is the request
// namespace (quota-fit looks up the quota by it).
#pragma once

#include <string>

#include "policy/cluster_quota.hpp"
#include "policy/kueue.hpp"
#include "policy/policy_config.hpp"
#include "policy/rayjob.hpp"

namespace rjg::policy {

struct RuleContext {
  const RayJob& job;
  const std::string& namespace_;
  const PolicyConfig& policy;
  const RayJob* previous = nullptr;  // the stored object on UPDATE, else null
  // The cluster's ResourceQuotas (quota-fit with quota.source cluster); null when no cluster is
  // read, e.g. `check` offline.
  const ClusterQuotas* cluster_quotas = nullptr;

  // The lifecycle mode `job` is judged by (kueue.lifecycleMode for a Kueue RayJob).
  LifecycleMode mode() const { return lifecycle_mode_of(job, policy); }
};

}  // namespace rjg::policy
