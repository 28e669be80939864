// Kueue-managed RayJobs. Kueue (kubernetes-sigs/kueue, integration ray.io/rayjob) suspends a
// RayJob it manages, admits it when its ClusterQueue has room, and refuses in its own webhook a
// managed RayJob without shutdownAfterJobFinishes: true. KubeRay refuses deletion rules next to
// shutdownAfterJobFinishes: true (kueue#3994), so a Kueue RayJob cannot use lifecycle mode
// deletionRules: it is judged by kueue.lifecycleMode instead (docs/lifecycle.md, Kueue).
#pragma once

#include <string_view>

#include "policy/policy_config.hpp"
#include "policy/rayjob.hpp"

namespace rjg::policy {

// Every label and annotation of Kueue's that the model keeps starts with this.
inline constexpr std::string_view kKueuePrefix = "kueue.x-k8s.io/";
// The LocalQueue a RayJob is submitted to; a non-empty value makes the RayJob Kueue's.
inline constexpr std::string_view kQueueNameLabel = "kueue.x-k8s.io/queue-name";
// "true" lets Kueue resize the RayJob's workload; Kueue refuses in-tree autoscaling without it.
inline constexpr std::string_view kElasticJobAnnotation = "kueue.x-k8s.io/elastic-job";
// The WorkloadPriorityClass of the RayJob's Workload.
inline constexpr std::string_view kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
// How long, in seconds, the Workload may stay admitted before Kueue deactivates it.
inline constexpr std::string_view kMaxExecTimeLabel = "kueue.x-k8s.io/max-exec-time-seconds";

// The sentence a remedy adds where suspend stands in the way of lifecycle mode deletionRules: a
// RayJob Kueue queues is judged by another mode, and no fix removes suspend.
inline constexpr std::string_view kKueueQueuedHint =
    "a RayJob Kueue queues carries the label kueue.x-k8s.io/queue-name and is judged by "
    "kueue.lifecycleMode";

// The value of Kueue's label `key` on `job`, "" when the label is absent (Kueue reads both
// alike). Points into `job`.
std::string_view kueue_label(const RayJob& job, std::string_view key);

// The LocalQueue `job` is submitted to: its queue-name label, "" when it names none.
inline std::string_view queue_name(const RayJob& job) { return kueue_label(job, kQueueNameLabel); }

// Whether Kueue manages `job`: it carries the queue-name label with a value (Kueue reads an
// empty one as none), or the policy says Kueue runs with manageJobsWithoutQueueName; and it is
// not a clusterSelector-only RayJob, which Kueue leaves alone (it creates no pods to queue).
bool kueue_managed(const RayJob& job, const PolicyConfig& policy);

// The lifecycle mode `job` is judged by: kueue.lifecycleMode when Kueue manages it,
// lifecycle.mode otherwise.
LifecycleMode lifecycle_mode_of(const RayJob& job, const PolicyConfig& policy);

}  // namespace rjg::policy
