// The RayJob's own checks: ValidateRayJobMetadata, the fields of ValidateRayJobSpec outside
// deletion and cluster selection, the fields a version does not know, the CRD's schema rules,
// and the submitter the operator builds after validation.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/field_paths.hpp"
#include "policy/k8s_names.hpp"
#include "policy/kuberay/checker.hpp"
#include "policy/kuberay/go_text.hpp"

namespace rjg::policy::kuberay {
namespace {

constexpr std::size_t kMaxRayJobNameLength = 47;  // 53 - 6: the RayCluster name adds a suffix

}  // namespace

void Checker::metadata() {
  const std::string& name = job_.metadata.name;
  // An empty name is a generateName manifest in `check`: the apiserver picks it later, as the
  // prefix cut to 58 characters and 5 random lowercase letters and digits.
  if (!runs(Op::kMetadataName)) {
    return;
  }
  std::string judged = name;
  std::string shown = quoted(name);
  std::string field = "metadata.name";
  if (name.empty()) {
    if (job_.metadata.generate_name.empty()) {
      return;
    }
    judged = job_.metadata.generate_name.substr(0, 58) + "xxxxx";
    shown = "generateName " + quoted(job_.metadata.generate_name) + " (plus 5 random characters)";
    field = "metadata.generateName";
  }
  const std::string consequence =
      parks() ? "the KubeRay " + ver_ +
                    " operator rejects this RayJob after admission and it stays in "
                    "ValidationFailed, holding quota"
              : "the KubeRay " + ver_ +
                    " operator rejects this RayJob after admission and requeues it forever "
                    "(Warning event InvalidRayJobMetadata), holding quota";
  if (judged.size() > kMaxRayJobNameLength) {
    add(field, shown + " is " + std::to_string(judged.size()) +
                   " characters, more than the 47 KubeRay allows (the RayCluster name "
                   "adds a 6-character suffix); " +
                   consequence + "; use a name of at most 47 characters" +
                   (name.empty() ? " (a generateName of at most 42)" : ""));
  }
  if (!is_dns1035_label(judged)) {
    add(field, shown + " is not a DNS-1035 label; " + consequence +
                   "; use lowercase letters, digits and '-', starting with a letter and ending "
                   "with a letter or digit");
  }
}

void Checker::unknown_fields() {
  if (spec_.active_deadline_seconds && !knows(Field::kActiveDeadlineSeconds)) {
    unknown("spec.activeDeadlineSeconds", Field::kActiveDeadlineSeconds, {});
  }
  if (rc_ != nullptr) {
    for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
      const WorkerGroup& g = rc_->worker_groups[i];
      // 1 is what the operator does without the field, and a newer CRD writes it as a default.
      if (g.num_of_hosts && *g.num_of_hosts != 1 && !knows(Field::kNumOfHosts)) {
        unknown(worker_group_field(i) + ".numOfHosts", Field::kNumOfHosts, {});
      }
      if (g.suspend.value_or(false) && !knows(Field::kWorkerSuspend)) {
        unknown(worker_group_field(i) + ".suspend", Field::kWorkerSuspend, {});
      }
      // 0 is what the operator does without it.
      if (g.priority.value_or(0) != 0 && !knows(Field::kWorkerPriority)) {
        unknown(worker_group_field(i) + ".priority", Field::kWorkerPriority, {});
      }
    }
  }
  // 0 is both "no retry" and a newer CRD's default, so only a real retry count is reported.
  if (spec_.backoff_limit && *spec_.backoff_limit != 0 && !knows(Field::kBackoffLimit)) {
    unknown("spec.backoffLimit", Field::kBackoffLimit, {});
  }
  if (spec_.has_submitter_config && !knows(Field::kSubmitterConfig)) {
    unknown("spec.submitterConfig", Field::kSubmitterConfig, {});
  }
  if (spec_.managed_by && !knows(Field::kManagedBy)) {
    unknown("spec.managedBy", Field::kManagedBy, {});
  }
  if (rc_ != nullptr && rc_->managed_by && !knows(Field::kClusterManagedBy)) {
    unknown("spec.rayClusterSpec.managedBy", Field::kClusterManagedBy, {});
  }
  if (spec_.pre_running_deadline_seconds && !knows(Field::kPreRunningDeadlineSeconds)) {
    unknown("spec.preRunningDeadlineSeconds", Field::kPreRunningDeadlineSeconds,
            knows(Field::kActiveDeadlineSeconds)
                ? "use activeDeadlineSeconds, which also ends a run that never starts"
                : "remove preRunningDeadlineSeconds");
  }
  if (spec_.deletion_policy && !knows(Field::kDeletionPolicy)) {
    if (knows(Field::kDeletionStrategy)) {
      // Deletion rules close every outcome only once they can match jobDeploymentStatus (1.6);
      // before that the policy's lifecycle mode is reaper or operatorDeletesRayJob.
      add("spec.deletionPolicy",
          "the KubeRay " + ver_ +
              " API does not know this field (it existed only in 1.3 and 1.4): the apiserver "
              "prunes it, so it has no effect; " +
              (runs(Op::kDeploymentCondition)
                   ? std::string("use deletionStrategy.deletionRules, e.g. "
                                 "{policy: DeleteSelf, condition: {jobStatus: SUCCEEDED, "
                                 "ttlSeconds: 60}}")
                   : std::string("remove deletionPolicy: on KubeRay " + ver_ +
                                 " the reaper or the operator deletes finished RayJobs "
                                 "(lifecycle mode reaper or operatorDeletesRayJob)")),
          {Edit::remove("spec.deletionPolicy")});
    } else {
      unknown("spec.deletionPolicy", Field::kDeletionPolicy,
              "set shutdownAfterJobFinishes: true and remove deletionPolicy");
    }
  }
  if (rc_ != nullptr) {
    const std::string rc = "spec.rayClusterSpec";
    if (rc_->has_network_policy && !knows(Field::kNetworkPolicy)) {
      unknown(rc + ".networkPolicy", Field::kNetworkPolicy, {});
    }
    if (rc_->has_tls_options && !knows(Field::kTlsOptions)) {
      unknown(rc + ".tlsOptions", Field::kTlsOptions, {});
    }
    if (rc_->has_history_server_options && !knows(Field::kHistoryServerOptions)) {
      unknown(rc + ".historyServerOptions", Field::kHistoryServerOptions, {});
    }
    if (rc_->gcs_ft_backend && !knows(Field::kGcsFtBackend)) {
      unknown(rc + ".gcsFaultToleranceOptions.backend", Field::kGcsFtBackend, {});
    }
    if (rc_->gcs_ft_has_storage && !knows(Field::kGcsFtStorage)) {
      unknown(rc + ".gcsFaultToleranceOptions.storage", Field::kGcsFtStorage, {});
    }
  }
  if (spec_.deletion_strategy && !knows(Field::kDeletionStrategy)) {
    unknown("spec.deletionStrategy", Field::kDeletionStrategy,
            knows(Field::kDeletionPolicy)
                ? "use deletionPolicy: DeleteSelf with shutdownAfterJobFinishes: true"
                : "set shutdownAfterJobFinishes: true and remove deletionStrategy");
  }
}

void Checker::suspend_and_ttl() {
  if (runs(Op::kSuspendNeedsShutdown) && spec_.suspend.value_or(false) && !shutdown()) {
    // suspend is never removed by a fix: Kueue (or whoever queues the RayJob) sets it, and sets
    // it again. Where shutdownAfterJobFinishes cannot be set either, the choice is the tenant's.
    rejects("spec.suspend", "suspend is true but shutdownAfterJobFinishes is not",
            shutdown_fits() ? "set shutdownAfterJobFinishes: true"
                            : "set shutdownAfterJobFinishes: true (not with deletion rules) or "
                              "remove suspend; " +
                                  std::string(kKueueQueuedHint),
            shutdown_fits() ? shutdown_edits() : std::vector<Edit>{});
  }
  if (!runs(Op::kTtl) || !spec_.ttl_seconds_after_finished) {
    return;
  }
  const std::int64_t ttl = *spec_.ttl_seconds_after_finished;
  if (ttl < 0) {
    rejects("spec.ttlSecondsAfterFinished", std::to_string(ttl) + " is negative",
            "set ttlSecondsAfterFinished to 0 or more",
            {Edit::set("spec.ttlSecondsAfterFinished", 0LL)});
  } else if (ttl > 0 && !shutdown()) {
    // With deletion rules (which forbid shutdown) the only fix is to drop the TTL.
    const bool rules = spec_.deletion_strategy && spec_.deletion_strategy->deletion_rules &&
                       !spec_.deletion_strategy->deletion_rules->empty();
    rejects("spec.ttlSecondsAfterFinished",
            std::to_string(ttl) + " is set but shutdownAfterJobFinishes is not true",
            rules ? "remove ttlSecondsAfterFinished; each deletion rule carries its own ttlSeconds"
                  : "set shutdownAfterJobFinishes: true, or remove ttlSecondsAfterFinished",
            shutdown_fits() ? shutdown_edits()
                            : std::vector<Edit>{Edit::remove("spec.ttlSecondsAfterFinished")});
  }
}

void Checker::scalars() {
  const RuntimeEnv& env = spec_.runtime_env;
  if (runs(Op::kRuntimeEnvMapping) &&
      (env.parse == RuntimeEnv::Parse::kNotMapping || env.parse == RuntimeEnv::Parse::kInvalid)) {
    // The decoder words what the operator's YAML-to-JSON conversion refuses as "cannot be
    // converted to JSON: <where and why>".
    const bool unconvertible = env.parse_error.rfind("cannot be converted to JSON", 0) == 0;
    const std::string why = unconvertible ? "is YAML that " + env.parse_error
                            : env.parse == RuntimeEnv::Parse::kInvalid
                                ? "is not valid YAML"
                                : "is valid YAML but not a mapping";
    rejects("spec.runtimeEnvYAML",
            why + (env.parse_error.empty() || unconvertible ? "" : " (" + env.parse_error + ")"),
            "write runtimeEnvYAML as a YAML mapping, e.g. \"pip: [boto3>=1.34.41]\"");
  }
  if (runs(Op::kActiveDeadlinePositive) && spec_.active_deadline_seconds &&
      *spec_.active_deadline_seconds <= 0) {
    rejects("spec.activeDeadlineSeconds",
            std::to_string(*spec_.active_deadline_seconds) + " is not positive",
            "set activeDeadlineSeconds to a positive number of seconds",
            {Edit::set("spec.activeDeadlineSeconds",
                       policy_.lifecycle.max_active_deadline_seconds)});
  }
  if (runs(Op::kPreRunningPositive) && spec_.pre_running_deadline_seconds &&
      *spec_.pre_running_deadline_seconds <= 0) {
    rejects("spec.preRunningDeadlineSeconds",
            std::to_string(*spec_.pre_running_deadline_seconds) + " is not positive",
            "set preRunningDeadlineSeconds to a positive number of seconds or remove it",
            {Edit::remove("spec.preRunningDeadlineSeconds")});
  }
  if (runs(Op::kBackoffLimitNonNegative) && spec_.backoff_limit && *spec_.backoff_limit < 0) {
    rejects("spec.backoffLimit", std::to_string(*spec_.backoff_limit) + " is negative",
            "set backoffLimit to 0 or more", {Edit::set("spec.backoffLimit", 0LL)});
  }
}

// What the operator's submitter needs (rayjob_controller.go getSubmitterTemplate and
// constructRayClusterForRayJob, common.BuildJobSubmitCommand): in K8sJobMode a
// submitterPodTemplate with a container (it configures containers[0]); in K8sJobMode and
// SidecarMode, spec.metadata only with a rayClusterSpec whose rayVersion is 2.6.0 or later.
// HTTPMode and InteractiveMode build no submitter.
void Checker::submitter() {
  if (!runs(Op::kSubmitterBuild)) {
    return;
  }
  const std::string mode = spec_.submission_mode.value_or("K8sJobMode");
  if (mode != "K8sJobMode" && mode != "SidecarMode") {
    return;
  }
  if (mode == "K8sJobMode" && spec_.submitter_pod_template &&
      spec_.submitter_pod_template->containers.empty()) {
    fails_building_submitter(
        "spec.submitterPodTemplate.spec.containers",
        "is empty, and the operator builds the submitter Job from its first container",
        "add the submitter container, or remove submitterPodTemplate for the default one");
  }
  if (!spec_.has_metadata || rc_ == nullptr) {
    return;
  }
  const std::string field = "spec.rayClusterSpec.rayVersion";
  const std::string fix =
      "set rayVersion to the cluster's Ray version (2.6.0 or later), or remove spec.metadata";
  if (!rc_->ray_version || rc_->ray_version->empty()) {
    fails_building_submitter(field, "spec.metadata needs rayVersion 2.6.0 or later, which is not set",
                             fix);
  } else if (const std::string why = metadata_version_problem(*rc_->ray_version); !why.empty()) {
    fails_building_submitter(field,
                             quoted(*rc_->ray_version) + " " + why +
                                 " (spec.metadata needs rayVersion 2.6.0 or later)",
                             fix);
  }
}

// Required fields and CEL enums of the CRD that the model can see.
void Checker::crd_fields() {
  if (crd_has(Crd::kClusterOptionEnums, v_) && rc_ != nullptr) {
    const std::string rc = "spec.rayClusterSpec";
    if (rc_->gcs_ft_backend && *rc_->gcs_ft_backend != "redis" &&
        *rc_->gcs_ft_backend != "rocksdb") {
      crd_rejects(rc + ".gcsFaultToleranceOptions.backend",
                  quoted(*rc_->gcs_ft_backend) + " is not redis or rocksdb",
                  "use redis (the default) or rocksdb");
    }
    const std::optional<std::string>& deletion = rc_->gcs_ft_storage_deletion_policy;
    if (deletion && *deletion != "DeleteWithCluster" && *deletion != "Retain") {
      crd_rejects(rc + ".gcsFaultToleranceOptions.storage.deletionPolicy",
                  quoted(*deletion) + " is not DeleteWithCluster or Retain",
                  "use DeleteWithCluster or Retain");
    }
    const std::optional<std::string>& mode = rc_->network_policy.mode;
    if (rc_->has_network_policy && mode && *mode != "DenyAll" && *mode != "DenyAllIngress" &&
        *mode != "DenyAllEgress") {
      crd_rejects(rc + ".networkPolicy.mode", quoted(*mode) + " is not a network policy mode",
                  "use DenyAll (the default), DenyAllIngress or DenyAllEgress");
    }
  }
  if (crd_has(Crd::kEntrypointRequired, v_) && !spec_.entrypoint) {
    crd_rejects("spec.entrypoint", "missing (required before KubeRay 1.3)",
                "set entrypoint to the command that runs the job");
  }
  if (crd_has(Crd::kManagedByValues, v_)) {
    const std::array<std::pair<const std::optional<std::string>*, std::string>, 2> managed = {
        {{&spec_.managed_by, "spec.managedBy"},
         {rc_ != nullptr ? &rc_->managed_by : nullptr, "spec.rayClusterSpec.managedBy"}}};
    for (const auto& [value, field] : managed) {
      if (value != nullptr && *value && **value != "ray.io/kuberay-operator" &&
          **value != "kueue.x-k8s.io/multikueue") {
        crd_rejects(field, quoted(**value) + " is not a known manager",
                    "use ray.io/kuberay-operator or kueue.x-k8s.io/multikueue, or remove it");
      }
    }
  }
}

}  // namespace rjg::policy::kuberay
