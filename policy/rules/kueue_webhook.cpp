// kueue-webhook: a Kueue-managed RayJob (policy/kueue.hpp) passes what Kueue's own validating
// webhook checks (pkg/controller/jobs/rayjob in kubernetes-sigs/kueue v0.19), so that `check` in
// CI and this webhook give one answer before Kueue does. What another rule already asks for is
// not repeated: shutdownAfterJobFinishes: true is reap-self's (every lifecycle mode a Kueue
// RayJob can have needs it), and a RayJob with neither rayClusterSpec nor clusterSelector is
// kuberay-schema's.
#include <string>
#include <string_view>

#include "policy/kueue.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

// A Workload holds at most this many PodSets: the head, one per worker group, and in K8sJobMode
// the submitter Job's pod.
constexpr std::size_t kMaxPodSets = 18;

void add(Findings& out, std::string field, std::string message, std::vector<Edit> fix = {}) {
  out.push_back(Finding{RuleId::kKueueWebhook, Finding::Kind::kViolation, std::move(field),
                        std::move(message), std::move(fix)});
}

std::string queue_name(const RayJob& job) {
  const auto it = job.metadata.kueue_labels.find(kQueueNameLabel);
  return it == job.metadata.kueue_labels.end() ? std::string() : it->second;
}

void check_shutdown(const RuleContext& ctx, Findings& out) {
  if (ctx.policy.action(RuleId::kReapSelf) != RuleAction::kOff ||
      ctx.job.spec.shutdown_after_job_finishes.value_or(false)) {
    return;
  }
  add(out, "spec.shutdownAfterJobFinishes",
      "Kueue refuses a RayJob it manages that keeps its cluster after the job (\"a kueue managed "
      "job should delete the cluster after finishing\"); set shutdownAfterJobFinishes: true",
      {Edit::set("spec.shutdownAfterJobFinishes", true)});
}

void check_cluster(const RuleContext& ctx, Findings& out) {
  const RayJobSpec& spec = ctx.job.spec;
  const bool selector = spec.cluster_selector && !spec.cluster_selector->empty();
  // Where cluster-selector refuses clusterSelector itself, its finding (the same fix) is the one.
  if (selector && spec.ray_cluster_spec && !cluster_selector_refuses(ctx.policy)) {
    add(out, "spec.clusterSelector",
        "Kueue refuses a RayJob with both clusterSelector and rayClusterSpec; remove "
        "clusterSelector (Kueue queues the cluster that rayClusterSpec describes)",
        {Edit::remove("spec.clusterSelector")});
  }
}

void check_groups(const RuleContext& ctx, Findings& out) {
  const RayJobSpec& spec = ctx.job.spec;
  if (!spec.ray_cluster_spec) {
    return;
  }
  const RayClusterSpec& rc = *spec.ray_cluster_spec;
  if (rc.enable_in_tree_autoscaling.value_or(false)) {
    const auto it = ctx.job.metadata.kueue_annotations.find(kElasticJobAnnotation);
    if (it == ctx.job.metadata.kueue_annotations.end() || it->second != "true") {
      const std::string field =
          "metadata.annotations[" + std::string(kElasticJobAnnotation) + "]";
      add(out, field,
          "Kueue refuses in-tree autoscaling on a RayJob it manages unless the workload may be "
          "resized; add the annotation " +
              std::string(kElasticJobAnnotation) +
              ": \"true\" (Kueue's ElasticJobsViaWorkloadSlices gate, on by default since "
              "v0.18), or set enableInTreeAutoscaling: false",
          {Edit::set(field, std::string("true"))});
    }
  }
  for (std::size_t i = 0; i < rc.worker_groups.size(); ++i) {
    if (rc.worker_groups[i].group_name == "head") {
      add(out, "spec.rayClusterSpec.workerGroupSpecs[" + std::to_string(i) + "].groupName",
          "\"head\" is the name of Kueue's PodSet for the head, so Kueue refuses a worker group "
          "of that name; rename the worker group");
    }
  }
  const std::string_view mode =
      spec.submission_mode ? std::string_view(*spec.submission_mode) : "K8sJobMode";
  const bool submitter = mode == "K8sJobMode";
  const std::size_t pod_sets = 1 + rc.worker_groups.size() + (submitter ? 1 : 0);
  if (pod_sets > kMaxPodSets) {
    add(out, "spec.rayClusterSpec.workerGroupSpecs",
        std::to_string(rc.worker_groups.size()) + " worker groups make " +
            std::to_string(pod_sets) + " Kueue PodSets (the head, one per worker group" +
            (submitter ? ", the K8sJobMode submitter" : "") + "), more than a Workload holds (" +
            std::to_string(kMaxPodSets) + "); use at most " +
            std::to_string(kMaxPodSets - 1 - (submitter ? 1 : 0)) + " worker groups");
  }
}

// Kueue refuses moving a RayJob that is running (not suspended) to another queue.
void check_queue_change(const RuleContext& ctx, Findings& out) {
  if (ctx.previous == nullptr || ctx.job.spec.suspend.value_or(false)) {
    return;
  }
  const std::string before = queue_name(*ctx.previous);
  const std::string now = queue_name(ctx.job);
  if (before == now) {
    return;
  }
  const std::string field = "metadata.labels[" + std::string(kQueueNameLabel) + "]";
  const std::string what = before.empty() ? "added"
                           : now.empty()  ? "removed"
                                          : "changed from \"" + before + "\" to \"" + now + "\"";
  const std::string keep = before.empty() ? "leave the RayJob without it"
                                          : "keep " + std::string(kQueueNameLabel) + ": \"" +
                                                before + "\"";
  add(out, field,
      what + " while the RayJob is not suspended, which Kueue refuses; " + keep +
          " (a suspended RayJob may change queues)",
      before.empty() ? std::vector<Edit>{Edit::remove(field)}
                     : std::vector<Edit>{Edit::set(field, before)});
}

}  // namespace

void check_kueue_webhook(const RuleContext& ctx, Findings& out) {
  // On UPDATE the old object decides whether Kueue already manages the RayJob: removing the label
  // is refused even though the new object would no longer be Kueue's.
  const bool managed = kueue_managed(ctx.job, ctx.policy);
  if (managed || (ctx.previous != nullptr && kueue_managed(*ctx.previous, ctx.policy))) {
    check_queue_change(ctx, out);
  }
  if (!managed) {
    return;
  }
  check_shutdown(ctx, out);
  check_cluster(ctx, out);
  check_groups(ctx, out);
}

}  // namespace rjg::policy
