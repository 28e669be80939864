// The worst-case ResourceQuota footprint of a RayJob: every pod KubeRay may create for it at the
// same time, with the requests and limits Kubernetes' quota evaluator charges for each pod.
// Pure: reads the typed RayJob only. quota-fit compares it with the namespace's quota;
// resources-declared reports the quantities that do not parse or are negative (they are skipped
// here, so that a negative amount never offsets another).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/flat_map.hpp"
#include "policy/quantity.hpp"
#include "policy/rayjob.hpp"

namespace rjg::policy {

// Returns true for the ResourceQuota keys the footprint can compute: `pods`, `count/pods`, `cpu`,
// `memory`, `ephemeral-storage` (the last three mean requests.*), `requests.cpu`,
// `requests.memory`, `requests.ephemeral-storage`, `limits.cpu`, `limits.memory`,
// `limits.ephemeral-storage`, and `requests.<name>` / `limits.<name>` where <name> is an extended
// resource (contains a `/` and is not in the kubernetes.io namespace, e.g. `nvidia.com/gpu`) or a
// huge page size (`hugepages-2Mi`). Everything else (object counts such as count/jobs.batch,
// storage quotas) is false. The policy decoder uses it to refuse quota keys it cannot check.
bool is_supported_quota_key(std::string_view key);

// Returns the footprint key that `key` is charged against: "cpu" -> "requests.cpu",
// "memory" -> "requests.memory", "ephemeral-storage" -> "requests.ephemeral-storage",
// "count/pods" -> "count/pods", anything else unchanged. REQUIRES: is_supported_quota_key(key).
std::string canonical_quota_key(std::string_view key);

// One pod's effective resources as the quota evaluator computes them: per resource,
// max(largest init container, sum of app containers). Keys are resource names ("cpu", "memory",
// "nvidia.com/gpu").
struct PodResources {
  FlatMap<Quantity> requests;
  FlatMap<Quantity> limits;
};

// One group of identical pods: the head pod, one worker group, or the submitter pod.
struct FootprintPart {
  enum class Kind { kHead, kWorkerGroup, kSubmitter };
  Kind kind = Kind::kHead;
  // Index into spec.rayClusterSpec.workerGroupSpecs for kWorkerGroup, else -1.
  int worker_index = -1;
  // kWorkerGroup: the group's name, pointing into the RayJob (which must outlive the part).
  std::string_view group_name;
  // kSubmitter: the pod comes from spec.submitterPodTemplate (else KubeRay's default submitter).
  bool submitter_template = false;
  // The template the pods are made from, pointing into the RayJob; null for KubeRay's default
  // submitter, which has no template in the RayJob.
  const PodTemplate* pod_template = nullptr;
  // Pods that may run at the same time (saturating).
  std::int64_t pods = 0;
  // Pods the part may leave in `count/pods` (terminal ones included): for the K8sJobMode
  // submitter, one per Job attempt; otherwise equal to `pods`.
  std::int64_t counted_pods = 0;
  // Worker groups only: the count comes from an autoscaling group's maxReplicas that is absent or
  // the CRD default 2147483647, i.e. no real bound.
  bool unbounded_max_replicas = false;
  // Worker groups only: the group scales with the in-tree autoscaler (worst case maxReplicas).
  bool autoscaling = false;
  PodResources per_pod;

  // For messages: `head pod`, `worker group "small-group"`, `submitter pod`, `submitter pod
  // (KubeRay's default ray-job-submitter)`.
  std::string label() const;
  // Where the part is declared: "spec.rayClusterSpec.headGroupSpec",
  // "spec.rayClusterSpec.workerGroupSpecs[1]", "spec.submitterPodTemplate", or "spec" for the
  // default submitter KubeRay adds.
  std::string field() const;
};

// A quantity Kubernetes would not accept for a pod (unparseable, or negative), found while
// computing the footprint. It contributes nothing to the totals.
struct QuantityError {
  std::string
      field;  // e.g.
              // "spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[1].resources.limits.memory"
  std::string text;  // the quantity as written
};

struct PodFootprint {
  std::vector<FootprintPart> parts;  // head, worker groups in order, then the submitter
  std::vector<QuantityError> errors;

  // Returns the worst-case amount charged against quota key `key` (any spelling accepted by
  // is_supported_quota_key): the sum of part_amount over the parts; zero when nothing requests
  // it.
  Quantity amount(std::string_view key) const;
  // Returns part `p`'s contribution to quota key `key` (any accepted spelling): `pods` or
  // `counted_pods` for the pod counts, else per_pod_amount times `pods`.
  static Quantity part_amount(const FootprintPart& p, std::string_view key);
  // Returns one pod of part `p`'s request or limit for resource key `key` ("requests.cpu",
  // "limits.nvidia.com/gpu", or a bare "cpu" meaning requests.cpu); zero when it sets none.
  // REQUIRES: `key` is not a pod-count key.
  static Quantity per_pod_amount(const FootprintPart& p, std::string_view key);
};

// Computes the worst-case footprint of `job` (docs/rules.md, quota-fit). The parts point into
// `job`, which must outlive the result:
// - head pod (when rayClusterSpec is set): its containers, plus the autoscaler sidecar when
//   enableInTreeAutoscaling is true (500m/512Mi requests = limits unless
//   autoscalerOptions.resources is given, which then replaces them), plus in SidecarMode the
//   submitter container (500m/200Mi requests, 1 CPU/1Gi limits);
// - each worker group: (autoscaling ? maxReplicas : clamp(replicas, minReplicas, maxReplicas)) x
//   numOfHosts pods, CRD defaults when absent (0, 0, 2147483647, 1), minReplicas > maxReplicas
//   gives maxReplicas as the operator does, suspend: true gives 0;
// - in K8sJobMode (submissionMode absent or K8sJobMode) one submitter pod: the default container
//   (500m/200Mi requests, 1 CPU/1Gi limits) unless submitterPodTemplate is given, which is then
//   used exactly as written (no defaults). HTTPMode, InteractiveMode and unknown modes create no
//   submitter pod. With clusterSelector (no rayClusterSpec) only the submitter pod counts.
// Multiplications saturate. Never fails: unparseable and negative quantities are listed in
// `errors` and count as absent.
PodFootprint compute_pod_footprint(const RayJob& job);

}  // namespace rjg::policy
