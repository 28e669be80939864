// The typed RayJob model: the subset of a ray.io/v1 RayJob that the rules read.
// The translation layer (admission/) fills it from JSON or YAML; the rules only read it.
// Every optional<> is "absent in the object"; defaults that the CRD applies are NOT filled in
// here, except by policy::apply_crd_defaults (used by `check`, which has no apiserver).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/flat_map.hpp"

namespace rjg::policy {

// A resource list as written (`requests` or `limits`): resource name -> quantity text, in name
// order. Quantities stay text here; rules parse them with policy::Quantity so that a bad value is
// a finding with a field path instead of a decode failure.
using ResourceList = FlatMap<std::string>;

// One env entry of a container: the operator reads the head container's env by name.
struct EnvVar {
  std::string name;
  std::optional<std::string> value;  // absent for valueFrom
  bool value_from = false;           // valueFrom present
};

// One volumeMounts[] entry: the operator refuses mounts on names and paths it manages.
struct VolumeMount {
  std::string name;
  std::string mount_path;  // mountPath
};

struct Container {
  std::string name;
  std::string image;                     // empty when absent
  std::optional<ResourceList> requests;  // absent vs {} matters for messages only
  std::optional<ResourceList> limits;
  std::vector<EnvVar> env{};  // env[], as written
  std::vector<VolumeMount> volume_mounts{};  // volumeMounts[], as written
};

// A corev1.PodTemplateSpec, reduced to what the rules read.
struct PodTemplate {
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  std::optional<std::string> restart_policy;  // spec.restartPolicy
  std::vector<std::string> volume_names{};    // spec.volumes[].name
  // What the ResourceQuota scopes read of the pods (policy/cluster_quota.hpp).
  std::optional<std::int64_t> active_deadline_seconds{};  // spec.activeDeadlineSeconds
  std::optional<std::string> priority_class_name{};       // spec.priorityClassName
  bool pod_level_resources = false;  // spec.resources present and not empty
  // Some term of spec.affinity.podAffinity or podAntiAffinity (required or preferred) has a
  // non-empty `namespaces` or a `namespaceSelector` (even {}): Kubernetes'
  // usesCrossNamespacePodAffinity. The terms themselves are not kept.
  bool cross_namespace_pod_affinity = false;
};

struct AutoscalerOptions {
  std::optional<std::string> image;
  std::optional<ResourceList> requests;  // autoscalerOptions.resources.requests
  std::optional<ResourceList> limits;    // autoscalerOptions.resources.limits
  std::optional<std::string> version;    // "v1" | "v2"
  std::optional<std::int64_t> idle_timeout_seconds;  // autoscalerOptions.idleTimeoutSeconds
  std::vector<EnvVar> env;                           // autoscalerOptions.env[]
  std::vector<VolumeMount> volume_mounts;            // autoscalerOptions.volumeMounts[]
};

struct HeadGroup {
  PodTemplate pod_template;  // headGroupSpec.template (required by the CRD)
  // True when rayStartParams sets num-cpus, num-gpus, memory or resources to a non-empty value,
  // which may not be combined with a non-empty group-level `resources` field.
  bool ray_start_params_sets_resources = false;
  bool has_group_resources = false;  // headGroupSpec.resources present and non-empty
  FlatMap<std::string> ray_start_params;      // rayStartParams, as written
  std::optional<FlatMap<std::string>> labels;  // headGroupSpec.labels (KubeRay 1.5+)
};

struct WorkerGroup {
  std::string group_name;
  std::optional<std::int64_t> replicas;
  std::optional<std::int64_t> min_replicas;
  std::optional<std::int64_t> max_replicas;
  std::optional<std::int64_t> num_of_hosts;
  std::optional<bool> suspend;
  std::optional<std::int64_t> idle_timeout_seconds;  // idleTimeoutSeconds
  std::optional<std::int64_t> priority;              // priority (KubeRay 1.7)
  PodTemplate pod_template;
  bool ray_start_params_sets_resources = false;
  bool has_group_resources = false;
  FlatMap<std::string> ray_start_params;
  std::optional<FlatMap<std::string>> labels;
};

// networkPolicy (KubeRay 1.7), reduced to what the operator validates: which rule lists are set.
struct NetworkPolicyRules {
  bool ingress = false;  // ingressRules non-empty
  bool egress = false;   // egressRules non-empty
};
struct NetworkPolicy {
  std::optional<std::string> mode;  // DenyAll (default) | DenyAllIngress | DenyAllEgress
  std::optional<NetworkPolicyRules> head;
  std::optional<NetworkPolicyRules> worker;
  std::vector<std::pair<std::string, NetworkPolicyRules>> worker_groups;  // groupName, rules
};

struct RayClusterSpec {
  HeadGroup head;
  std::vector<WorkerGroup> worker_groups;
  std::optional<bool> enable_in_tree_autoscaling;
  std::optional<AutoscalerOptions> autoscaler_options;
  std::optional<std::string> ray_version;
  // authOptions.mode ("token" | "disabled" ...) and authOptions.enableK8sTokenAuth.
  std::optional<std::string> auth_mode;
  std::optional<bool> enable_k8s_token_auth;
  std::optional<std::string> managed_by;
  bool has_gcs_fault_tolerance_options = false;  // gcsFaultToleranceOptions present
  std::optional<std::string> gcs_ft_backend;      // gcsFaultToleranceOptions.backend (1.7)
  bool gcs_ft_has_storage = false;                // gcsFaultToleranceOptions.storage (1.7)
  std::string gcs_ft_storage_claim_name;          // storage.claimName ("" when absent)
  std::optional<std::string> gcs_ft_storage_deletion_policy;  // storage.deletionPolicy
  // The storage fields that size an operator-managed PVC and so exclude claimName: size,
  // storageClassName (present, even ""), accessModes (non-empty), in that order.
  std::vector<std::string> gcs_ft_storage_pvc_fields;
  // gcsFaultToleranceOptions fields the rocksdb backend refuses (redisAddress and
  // externalStorageNamespace non-empty, redisUsername and redisPassword present), in that order.
  std::vector<std::string> gcs_ft_redis_fields;
  std::optional<std::string> upgrade_strategy_type;  // upgradeStrategy.type (1.6+)
  // KubeRay 1.7 options, each behind a feature gate.
  bool has_network_policy = false;         // networkPolicy
  NetworkPolicy network_policy;            // its content, when present
  bool has_tls_options = false;            // tlsOptions
  std::optional<bool> tls_enabled;         // tlsOptions.enabled
  bool has_history_server_options = false;  // historyServerOptions
  bool has_collector_options = false;       // historyServerOptions.collectorOptions
  std::optional<std::string> collector_image;  // historyServerOptions.collectorOptions.image
  std::vector<EnvVar> collector_env;           // historyServerOptions.collectorOptions.env[]
};

// One deletionStrategy.deletionRules[] item.
struct DeletionRule {
  std::optional<std::string> policy;  // DeleteCluster|DeleteWorkers|DeleteSelf|DeleteNone
  bool has_condition = false;
  std::optional<std::string> job_status;             // condition.jobStatus: SUCCEEDED|FAILED
  std::optional<std::string> job_deployment_status;  // condition.jobDeploymentStatus: Failed
  std::optional<std::int64_t> ttl_seconds;           // condition.ttlSeconds
};

// spec.deletionStrategy (KubeRay 1.5+): either the legacy onSuccess/onFailure form or rules.
struct DeletionStrategy {
  bool has_on_success = false;
  std::optional<std::string> on_success_policy;  // onSuccess.policy
  bool has_on_failure = false;
  std::optional<std::string> on_failure_policy;  // onFailure.policy
  std::optional<std::vector<DeletionRule>> deletion_rules;
};

// runtimeEnvYAML, parsed by the translation layer into what the rules need.
struct RuntimeEnv {
  enum class Parse {
    kAbsent,      // no runtimeEnvYAML, an empty string, or YAML null (`null`, `~`, comments)
    kMapping,     // parsed to a YAML mapping: the only form KubeRay accepts
    kNotMapping,  // valid YAML, but a scalar or a sequence
    kInvalid,     // not YAML at all
  };
  Parse parse = Parse::kAbsent;
  std::string parse_error;  // for kNotMapping/kInvalid: what the parser said

  enum class PipForm {
    kNone,              // no `pip` key
    kList,              // pip: ["pkg==1", ...]
    kPackages,          // pip: {packages: [...], ...}
    kRequirementsPath,  // pip: /path/requirements.txt
    kMalformed,         // anything else
  };
  PipForm pip_form = PipForm::kNone;
  std::vector<std::string> pip_packages;  // items for kList and kPackages, as written
  bool has_conda = false;
  std::optional<std::string> working_dir;
  std::vector<std::string> py_modules;
};

struct ObjectMeta {
  std::string name;  // may be empty for `check` on a generateName manifest
  std::string generate_name;
  std::string namespace_;
  // Only the annotations under rayjob-guard.io/ (kAnnotationPrefix), and below those under ray.io/
  // and kueue.x-k8s.io/: no rule reads any other annotation or label. The decoders still check
  // that every annotation and label value is a string.
  FlatMap<std::string> annotations;
  // The annotations under ray.io/ (ray.io/ft-enabled, ray.io/external-storage-namespace), which
  // the operator's ValidateRayClusterSpec reads.
  FlatMap<std::string> ray_annotations;
  std::vector<std::string> finalizers;
  // The labels and annotations under kueue.x-k8s.io/ (policy/kueue.hpp): the queue-name label
  // makes the RayJob Kueue's; the elastic-job annotation allows in-tree autoscaling under Kueue.
  FlatMap<std::string> kueue_labels;
  FlatMap<std::string> kueue_annotations;
};

struct RayJobSpec {
  std::optional<std::string> entrypoint;
  std::optional<std::string> runtime_env_yaml;  // raw text, as written
  RuntimeEnv runtime_env;                       // parsed form of runtime_env_yaml
  std::optional<bool> shutdown_after_job_finishes;
  std::optional<std::int64_t> ttl_seconds_after_finished;
  std::optional<std::int64_t> active_deadline_seconds;
  std::optional<std::int64_t> pre_running_deadline_seconds;
  std::optional<std::int64_t> backoff_limit;
  std::optional<bool> suspend;
  std::optional<std::string> submission_mode;
  std::optional<PodTemplate> submitter_pod_template;
  bool has_submitter_config = false;
  std::optional<std::int64_t> submitter_backoff_limit;  // submitterConfig.backoffLimit
  std::optional<FlatMap<std::string>> cluster_selector;
  // spec.metadata is set and non-empty: the submitter passes it as --metadata-json, which the
  // operator allows only with a rayClusterSpec.rayVersion of at least 2.6.0.
  bool has_metadata = false;
  std::optional<RayClusterSpec> ray_cluster_spec;
  std::optional<std::string> managed_by;
  std::optional<std::string> deletion_policy;  // KubeRay 1.3-1.4
  std::optional<DeletionStrategy> deletion_strategy;
  std::optional<std::string> job_id;
};

struct RayJob {
  std::string api_version;  // "ray.io/v1"
  ObjectMeta metadata;
  RayJobSpec spec;
};

}  // namespace rjg::policy
