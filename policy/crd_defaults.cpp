// The CRD structural defaults of ray.io/v1 RayJob by KubeRay version (the `default:` markers of
// the RayJob CRD, config/crd/bases/ray.io_rayjobs.yaml at each KubeRay tag).
#include "policy/crd_defaults.hpp"

#include <cstdint>

#include "policy/kuberay/catalogue.hpp"

namespace rjg::policy {

namespace {

// The CRD's maxReplicas default is the int32 maximum.
constexpr std::int64_t kMaxReplicasDefault = 2147483647;

template <typename T, typename U>
void set_if_absent(std::optional<T>& field, U value) {
  if (!field) {
    field = T(value);
  }
}

}  // namespace

void apply_crd_defaults(RayJob& job, KubeRayVersion version) {
  using kuberay::CrdDefault;
  const auto writes = [&](CrdDefault d) { return kuberay::writes_default(d, version); };
  RayJobSpec& spec = job.spec;
  if (writes(CrdDefault::kSubmissionMode)) {
    set_if_absent(spec.submission_mode, "K8sJobMode");
  }
  if (writes(CrdDefault::kTtlSecondsAfterFinished)) {
    set_if_absent(spec.ttl_seconds_after_finished, 0);
  }
  if (writes(CrdDefault::kBackoffLimit)) {
    set_if_absent(spec.backoff_limit, 0);
  }
  if (spec.ray_cluster_spec) {
    for (WorkerGroup& group : spec.ray_cluster_spec->worker_groups) {
      if (writes(CrdDefault::kWorkerReplicas)) {
        set_if_absent(group.replicas, 0);
        set_if_absent(group.min_replicas, 0);
        set_if_absent(group.max_replicas, kMaxReplicasDefault);
      }
      if (writes(CrdDefault::kNumOfHosts)) {
        set_if_absent(group.num_of_hosts, 1);
      }
    }
  }
  // deletionStrategy does not exist before 1.5: an older CRD has no default to write there.
  if (writes(CrdDefault::kDeletionRuleTtlSeconds) && spec.deletion_strategy &&
      spec.deletion_strategy->deletion_rules) {
    for (DeletionRule& rule : *spec.deletion_strategy->deletion_rules) {
      if (rule.has_condition) {
        set_if_absent(rule.ttl_seconds, 0);
      }
    }
  }
}

}  // namespace rjg::policy
