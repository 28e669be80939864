#include "policy/kueue.hpp"

namespace rjg::policy {

std::string_view kueue_label(const RayJob& job, std::string_view key) {
  const auto it = job.metadata.kueue_labels.find(key);
  return it == job.metadata.kueue_labels.end() ? std::string_view() : std::string_view(it->second);
}

bool kueue_managed(const RayJob& job, const PolicyConfig& policy) {
  const bool selector_only = job.spec.cluster_selector && !job.spec.cluster_selector->empty() &&
                             !job.spec.ray_cluster_spec;
  if (selector_only) {
    return false;
  }
  if (policy.kueue.manage_jobs_without_queue_name) {
    return true;
  }
  return !queue_name(job).empty();
}

LifecycleMode lifecycle_mode_of(const RayJob& job, const PolicyConfig& policy) {
  return kueue_managed(job, policy) ? policy.kueue.lifecycle_mode : policy.lifecycle.mode;
}

}  // namespace rjg::policy
