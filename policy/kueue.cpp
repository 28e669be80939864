#include "policy/kueue.hpp"

namespace rjg::policy {

bool kueue_managed(const RayJob& job, const PolicyConfig& policy) {
  const bool selector_only = job.spec.cluster_selector && !job.spec.cluster_selector->empty() &&
                             !job.spec.ray_cluster_spec;
  if (selector_only) {
    return false;
  }
  if (policy.kueue.manage_jobs_without_queue_name) {
    return true;
  }
  const auto it = job.metadata.kueue_labels.find(kQueueNameLabel);
  return it != job.metadata.kueue_labels.end() && !it->second.empty();
}

LifecycleMode lifecycle_mode_of(const RayJob& job, const PolicyConfig& policy) {
  return kueue_managed(job, policy) ? policy.kueue.lifecycle_mode : policy.lifecycle.mode;
}

}  // namespace rjg::policy
