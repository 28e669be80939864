// Cluster selection, submission modes and ValidateRayClusterSpec as it applies to a RayJob's
// rayClusterSpec: groups, fault tolerance, the autoscaler and worker scaling.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/field_paths.hpp"
#include "policy/k8s_names.hpp"
#include "policy/kuberay/checker.hpp"
#include "policy/kuberay/go_text.hpp"

namespace rjg::policy::kuberay {
namespace {

constexpr std::string_view kClusterNameKey = "ray.io/cluster";

}  // namespace

void Checker::cluster_selection() {
  const bool selector = selector_mode();
  if (runs(Op::kSuspendWithSelector) && selector && spec_.suspend.value_or(false)) {
    // The fix leaves clusterSelector mode when rayClusterSpec describes the cluster; suspend is
    // never removed by a fix.
    rejects("spec.suspend", "suspend is not supported with clusterSelector",
            "remove clusterSelector and describe the cluster in rayClusterSpec, or remove suspend",
            cluster_selector_fix(spec_));
  }
  if (runs(Op::kClusterSpecOrSelector) && rc_ == nullptr && !selector) {
    rejects("spec.rayClusterSpec", "neither rayClusterSpec nor a non-empty clusterSelector is set",
            "describe the cluster in rayClusterSpec");
  }
  // Both set: every operator version accepts it, uses the existing cluster and still validates
  // rayClusterSpec. cluster-selector reports the mode; nothing here.
  if (!selector) {
    return;
  }
  if (runs(Op::kSelectorClusterKey)) {
    const std::string* name = find_value(*spec_.cluster_selector, kClusterNameKey);
    if (name == nullptr || name->empty()) {
      rejects("spec.clusterSelector[ray.io/cluster]", "the cluster name is missing or empty",
              "set clusterSelector: {ray.io/cluster: <name of the RayCluster>}");
    }
  }
  if (runs(Op::kSelectorNoSidecar) && spec_.submission_mode == "SidecarMode") {
    rejects("spec.submissionMode", "SidecarMode cannot be used with clusterSelector",
            "use K8sJobMode or HTTPMode");
  }
  if (runs(Op::kSelectorNoBackoff) && spec_.backoff_limit.value_or(0) > 0) {
    rejects("spec.backoffLimit", "retries are not supported with clusterSelector",
            "set backoffLimit: 0 or remove it", {Edit::set("spec.backoffLimit", 0LL)});
  }
}

void Checker::submission_modes() {
  const std::string mode = spec_.submission_mode.value_or("K8sJobMode");
  if (runs(Op::kInteractiveNoBackoff) && mode == "InteractiveMode" &&
      spec_.backoff_limit.value_or(0) > 0) {
    rejects("spec.backoffLimit", "retries are not supported in InteractiveMode",
            "set backoffLimit: 0 or remove it", {Edit::set("spec.backoffLimit", 0LL)});
  }
  if (!runs(Op::kSidecarRules) || mode != "SidecarMode") {
    return;
  }
  if (spec_.submitter_pod_template) {
    rejects("spec.submitterPodTemplate", "not supported in SidecarMode",
            "remove submitterPodTemplate (the submitter runs in the head Pod)",
            {Edit::remove("spec.submitterPodTemplate")});
  }
  if (spec_.has_submitter_config) {
    rejects("spec.submitterConfig", "not supported in SidecarMode", "remove submitterConfig",
            {Edit::remove("spec.submitterConfig")});
  }
  if (rc_ != nullptr && !restart_policy_ok(rc_->head.pod_template)) {
    rejects("spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy",
            quoted(*rc_->head.pod_template.restart_policy) + " is not allowed in SidecarMode",
            "set restartPolicy: Never or remove it",
            {Edit::set("spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy",
                       std::string("Never"))});
  }
}

void Checker::group_checks(const std::string& path, std::string_view group, const PodTemplate& t,
                           const FlatMap<std::string>& params, bool params_set_resources,
                           bool has_resources,
                           const std::optional<FlatMap<std::string>>& labels) {
  if (t.containers.empty()) {
    rejects(path + ".template.spec.containers", "the " + std::string(group) + " Pod has no container",
            "add the Ray " + std::string(group) + " container");
  }
  if (runs(Op::kGroupResources) && params_set_resources && has_resources) {
    rejects(path + ".resources", "resources are set both here and in rayStartParams",
            "use only one of them");
  }
  if (!runs(Op::kGroupLabels)) {
    return;
  }
  if (params.contains("labels")) {
    rejects(path + ".rayStartParams.labels", "rayStartParams labels are not supported",
            "move them to the group's top-level labels field");
  }
  if (labels) {
    for (const auto& [key, value] : *labels) {
      if (!is_qualified_name(key)) {
        rejects(path + ".labels[" + key + "]", quoted(key) + " is not a valid label key",
                "use [prefix/]name with a DNS subdomain prefix and a name of at most 63 "
                "letters, digits, '-', '_' or '.', starting and ending with a letter or digit");
      }
      if (!is_label_value(value)) {
        rejects(path + ".labels[" + key + "]", quoted(value) + " is not a valid label value",
                "use at most 63 letters, digits, '-', '_' or '.', starting and ending with a "
                "letter or digit");
      }
    }
  }
}

void Checker::fault_tolerance(const std::string& base) {
  const PodTemplate& head = rc_->head.pod_template;
  const FlatMap<std::string>& ann = job_.metadata.ray_annotations;
  const bool options = rc_->has_gcs_fault_tolerance_options;
  const std::string gcs = base + ".gcsFaultToleranceOptions";
  if (options && non_empty(ann, "ray.io/ft-enabled")) {
    rejects("metadata.annotations[ray.io/ft-enabled]",
            "set together with gcsFaultToleranceOptions",
            "remove the annotation; gcsFaultToleranceOptions alone enables GCS fault tolerance",
            {Edit::remove("metadata.annotations[ray.io/ft-enabled]")});
  }
  const std::string* ft = find_value(ann, "ray.io/ft-enabled");
  const bool ft_enabled = options || (ft != nullptr && ascii_lower(*ft) == "true");
  const std::string env = base + ".headGroupSpec.template.spec.containers[0].env";
  if (head.containers.empty()) {
    return;  // reported as a missing container; the operator stops there
  }
  if (!ft_enabled && env_var(head, "RAY_REDIS_ADDRESS") != nullptr) {
    rejects(env, "RAY_REDIS_ADDRESS implicitly enables GCS fault tolerance, but "
                 "gcsFaultToleranceOptions is not set",
            "set gcsFaultToleranceOptions.redisAddress instead of the env var");
  }
  if (options) {
    if (non_empty(rc_->head.ray_start_params, "redis-password")) {
      rejects(base + ".headGroupSpec.rayStartParams.redis-password",
              "not allowed with gcsFaultToleranceOptions",
              "use gcsFaultToleranceOptions.redisPassword");
    }
    if (env_var(head, "REDIS_PASSWORD") != nullptr) {
      rejects(env, "REDIS_PASSWORD is not allowed with gcsFaultToleranceOptions",
              "use gcsFaultToleranceOptions.redisPassword");
    }
    if (env_var(head, "RAY_REDIS_ADDRESS") != nullptr) {
      rejects(env, "RAY_REDIS_ADDRESS is not allowed with gcsFaultToleranceOptions",
              "use gcsFaultToleranceOptions.redisAddress");
    }
    if (non_empty(ann, "ray.io/external-storage-namespace")) {
      rejects("metadata.annotations[ray.io/external-storage-namespace]",
              "not allowed with gcsFaultToleranceOptions",
              "use gcsFaultToleranceOptions.externalStorageNamespace",
              {Edit::remove("metadata.annotations[ray.io/external-storage-namespace]"),
               Edit::set(base + ".gcsFaultToleranceOptions.externalStorageNamespace",
                         *find_value(ann, "ray.io/external-storage-namespace"))});
    }
  }
  if (non_empty(rc_->head.ray_start_params, "redis-username")) {
    rejects(base + ".headGroupSpec.rayStartParams.redis-username", "a Redis username is not "
            "allowed here", "use gcsFaultToleranceOptions.redisUsername");
  }
  if (env_var(head, "REDIS_USERNAME") != nullptr) {
    rejects(env, "REDIS_USERNAME is not allowed", "use gcsFaultToleranceOptions.redisUsername");
  }
}

void Checker::autoscaler(const std::string& base) {
  const PodTemplate& head = rc_->head.pod_template;
  const bool autoscaling = is_autoscaling(rc_);
  const std::string env = base + ".headGroupSpec.template.spec.containers[0].env";
  const EnvVar* v2_env = env_var(head, "RAY_enable_autoscaler_v2");
  if (runs(Op::kAutoscalerV2EnvAlone) && !autoscaling && v2_env != nullptr &&
      is_true_text(v2_env->value)) {
    rejects(env, "RAY_enable_autoscaler_v2=" + *v2_env->value + " without enableInTreeAutoscaling",
            "set enableInTreeAutoscaling: true with autoscalerOptions.version: v2, or remove the "
            "env var");
  }
  if (autoscaling && rc_->autoscaler_options && rc_->autoscaler_options->version &&
      v2_env != nullptr) {
    rejects(env, "RAY_enable_autoscaler_v2 is set together with autoscalerOptions.version",
            "remove the env var; autoscalerOptions.version chooses the autoscaler");
  }
  if (is_autoscaler_v2(rc_)) {
    if (!restart_policy_ok(head)) {
      rejects(base + ".headGroupSpec.template.spec.restartPolicy",
              quoted(*head.restart_policy) + " is not allowed with the v2 autoscaler",
              "set restartPolicy: Never or remove it",
              {Edit::set(base + ".headGroupSpec.template.spec.restartPolicy", std::string("Never"))});
    }
    for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
      const PodTemplate& t = rc_->worker_groups[i].pod_template;
      if (!restart_policy_ok(t)) {
        const std::string field =
            base + ".workerGroupSpecs[" + std::to_string(i) + "].template.spec.restartPolicy";
        rejects(field, quoted(*t.restart_policy) + " is not allowed with the v2 autoscaler",
                "set restartPolicy: Never or remove it", {Edit::set(field, std::string("Never"))});
      }
    }
  }
}

// IsAutoscalingV2Enabled (autoscalerOptions.version v2, whether or not autoscaling is on), or
// the head's RAY_enable_autoscaler_v2 env var set to 1 or true.
bool Checker::autoscaler_v2_chosen() const {
  if (rc_->autoscaler_options && rc_->autoscaler_options->version == "v2") {
    return true;
  }
  const EnvVar* e = env_var(rc_->head.pod_template, "RAY_enable_autoscaler_v2");
  return e != nullptr && is_true_text(e->value);
}

void Checker::worker_autoscaling(const std::string& wg, const WorkerGroup& g) {
  if (rc_->head.pod_template.containers.empty()) {
    return;  // the operator stops at the missing head container
  }
  if (runs(Op::kIdleTimeouts) && g.idle_timeout_seconds) {
    if (*g.idle_timeout_seconds < 0) {
      rejects(wg + ".idleTimeoutSeconds", std::to_string(*g.idle_timeout_seconds) + " is negative",
              "set idleTimeoutSeconds to 0 or more", {Edit::set(wg + ".idleTimeoutSeconds", 0LL)});
    } else if (!autoscaler_v2_chosen()) {
      rejects(wg + ".idleTimeoutSeconds", "a worker group idle timeout needs the v2 autoscaler",
              "set autoscalerOptions.version: v2, or remove idleTimeoutSeconds");
    }
  }
  if (runs(Op::kWorkerPriority) && g.priority && *g.priority != 0) {
    const std::string fix = "set rayVersion to 2.56.0 or later (and use a matching image)";
    if (!rc_->ray_version || rc_->ray_version->empty()) {
      rejects(wg + ".priority", "priority needs rayVersion 2.56.0 or later, which is not set", fix);
    } else if (const auto parsed = parse_generic_version(*rc_->ray_version); !parsed) {
      rejects("spec.rayClusterSpec.rayVersion", quoted(*rc_->ray_version) + " is not a version",
              fix);
    } else if (version_less(*parsed, {2, 56, 0})) {
      rejects(wg + ".priority",
              "priority needs Ray 2.56.0 or later, rayVersion is " + quoted(*rc_->ray_version), fix);
    } else if (!autoscaler_v2_chosen()) {
      rejects(wg + ".priority", "priority works only with the v2 autoscaler",
              "set autoscalerOptions.version: v2, or remove priority");
    }
  }
}

void Checker::cluster_spec() {
  if (rc_ == nullptr) {
    return;
  }
  const std::string base = "spec.rayClusterSpec";
  if (runs(Op::kNoK8sTokenAuth) && rc_->enable_k8s_token_auth.value_or(false)) {
    rejects(base + ".authOptions.enableK8sTokenAuth",
            "Kubernetes token auth is not supported for RayJob", "remove enableK8sTokenAuth");
  }
  if (!runs(Op::kClusterSpec)) {
    return;
  }
  const bool autoscaling = is_autoscaling(rc_);
  const HeadGroup& h = rc_->head;
  group_checks(base + ".headGroupSpec", "head", h.pod_template, h.ray_start_params,
               h.ray_start_params_sets_resources, h.has_group_resources, h.labels);
  for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
    const WorkerGroup& g = rc_->worker_groups[i];
    const std::string wg = base + ".workerGroupSpecs[" + std::to_string(i) + "]";
    group_checks(wg, "worker", g.pod_template, g.ray_start_params,
                 g.ray_start_params_sets_resources, g.has_group_resources, g.labels);
    if (g.suspend.value_or(false)) {
      if (!policy_.kuberay.ray_job_deletion_policy_gate) {
        rejects(wg + ".suspend",
                "a suspended worker group needs the RayJobDeletionPolicy feature gate, which this "
                "operator runs with off",
                "remove suspend");
      } else if (autoscaling) {
        rejects(wg + ".suspend", "a worker group cannot be suspended with autoscaling",
                "remove suspend", {Edit::remove(wg + ".suspend")});
      }
    }
    worker_autoscaling(wg, g);
    if (!runs(Op::kWorkerReplicaBounds)) {
      continue;
    }
    if (!autoscaling && (!g.min_replicas || !g.max_replicas)) {
      rejects(wg + (g.min_replicas ? ".maxReplicas" : ".minReplicas"),
              "without autoscaling both minReplicas and maxReplicas must be set",
              "set minReplicas and maxReplicas (e.g. both equal to replicas)");
    }
    if (g.min_replicas && *g.min_replicas < 0) {
      rejects(wg + ".minReplicas", std::to_string(*g.min_replicas) + " is negative",
              "set minReplicas to 0 or more");
    }
    if (g.max_replicas && *g.max_replicas < 0) {
      rejects(wg + ".maxReplicas", std::to_string(*g.max_replicas) + " is negative",
              "set maxReplicas to 0 or more");
    }
    if (g.min_replicas && g.max_replicas && *g.min_replicas >= 0 && *g.max_replicas >= 0 &&
        *g.min_replicas > *g.max_replicas) {
      rejects(wg + ".minReplicas",
              "minReplicas " + std::to_string(*g.min_replicas) + " is greater than maxReplicas " +
                  std::to_string(*g.max_replicas),
              "make minReplicas <= maxReplicas");
    }
  }
  fault_tolerance(base);
  autoscaler(base);
  gated_options(base);
  if (runs(Op::kAuthTokenRayVersion) && rc_->auth_mode == "token") {
    const std::string field = base + ".rayVersion";
    const std::string fix = "set rayVersion to 2.52.0 or later (and use a matching image)";
    if (!rc_->ray_version || rc_->ray_version->empty()) {
      rejects(field, "authOptions.mode token needs rayVersion, which is not set", fix);
    } else if (const auto parsed = parse_generic_version(*rc_->ray_version); !parsed) {
      rejects(field, quoted(*rc_->ray_version) + " is not a version", fix);
    } else if (version_less(*parsed, {2, 52, 0})) {
      rejects(field,
              quoted(*rc_->ray_version) +
                  " is older than 2.52.0, the minimum for authOptions.mode token",
              fix);
    }
  }
}

}  // namespace rjg::policy::kuberay
