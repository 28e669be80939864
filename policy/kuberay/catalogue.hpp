// What each KubeRay operator version knows, as data: one row shape (a fact and the minor versions
// it holds for) and one function that judges it. The operator's checks after admission
// (ray-operator/controllers/ray/utils/validation.go, and rayjob_controller.go before 1.3), the
// RayJob fields of each CRD, the CRD's own schema rules, the feature gates with their compiled
// defaults (pkg/features/features.go), the submission modes, and what the operator does with a
// RayJob it refuses. Read at each tag v1.0.0 .. v1.7.0; patch releases agree. Pure.
//
// Adding KubeRay 1.8: bump kNewestMinor, then add rows for what 1.8 adds and close (set `until`
// on) the rows of what it removes. Every open row holds for 1.8 with no edit; catalogue_test
// proves it for a version after the newest. CONTRIBUTING.md, "Adding a KubeRay version".
#pragma once

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "policy/policy_config.hpp"

namespace rjg::policy::kuberay {

// The newest KubeRay minor version (1.x) the catalogue describes, and so the newest a policy may
// name (kuberay.version).
inline constexpr int kNewestMinor = 7;

// The oldest and the newest version the catalogue describes.
inline constexpr KubeRayVersion kOldest{1, 0};
inline constexpr KubeRayVersion kNewest{1, kNewestMinor};

// `until` of a fact that still holds in the newest version.
inline constexpr int kOpen = std::numeric_limits<int>::max();

// The minor versions 1.from .. 1.until (inclusive) for which a fact holds.
struct Span {
  int from;
  int until = kOpen;
};

// The row of every table keyed by an enum: the fact and when it holds. Fields and feature gates
// carry one more column each (FieldRow, GateRow).
template <typename Key>
struct FactRow {
  Key key;
  Span span;
};

// Whether a fact of span `s` holds at `v`: the one test of every table below.
constexpr bool holds(Span s, KubeRayVersion v) {
  return v.major == 1 && v.minor >= s.from && v.minor <= s.until;
}

// Whether `v` is a version the catalogue describes: kOldest .. kNewest.
constexpr bool supported(KubeRayVersion v) { return v >= kOldest && v <= kNewest; }

// "1.6": how messages write a version.
std::string version_text(KubeRayVersion v);
// How messages write a span: "1.5 or later", "1.3 or 1.4", "1.2 to 1.4", "1.5".
std::string span_text(Span s);

// Each check the operator runs after admission (or when it builds what the RayJob asks for).
// docs/rules.md, kuberay-schema, is the summary.
enum class Op {
  kSuspendNeedsShutdown,    // suspend requires shutdownAfterJobFinishes
  kSuspendWithSelector,     // no suspend in clusterSelector mode
  kClusterSpecOrSelector,   // one of rayClusterSpec / clusterSelector
  kRuntimeEnvMapping,       // runtimeEnvYAML parses to a mapping
  kActiveDeadlinePositive,  // activeDeadlineSeconds > 0
  kBackoffLimitNonNegative, // backoffLimit >= 0
  kDeletionPolicy,          // spec.deletionPolicy: gate, compatibility
  kMetadataName,            // name <= 47 characters, DNS-1035
  kTtl,                     // TTL >= 0, TTL > 0 needs shutdown
  kInteractiveNoBackoff,    // InteractiveMode: backoffLimit 0
  kClusterSpec,             // ValidateRayClusterSpec on the RayJob's rayClusterSpec
  kDeletionStrategy,        // spec.deletionStrategy: gate, forms, rules
  kSelectorClusterKey,      // clusterSelector[ray.io/cluster] non-empty
  kSelectorNoSidecar,       // no SidecarMode with clusterSelector
  kSidecarRules,            // SidecarMode: no submitter template/config, head restartPolicy
  kGroupResources,          // rayStartParams resources vs group resources
  kGroupLabels,             // group labels: syntax, not in rayStartParams
  kAutoscalerV2EnvAlone,    // RAY_enable_autoscaler_v2=1|true without autoscaling
  kSelectorNoBackoff,       // no backoffLimit > 0 with clusterSelector
  kNoK8sTokenAuth,          // authOptions.enableK8sTokenAuth unsupported for RayJob
  kPreRunningPositive,      // preRunningDeadlineSeconds > 0
  kWorkerReplicaBounds,     // min/max set without autoscaling, >= 0, min <= max
  kIdleTimeouts,            // idleTimeoutSeconds >= 0, worker ones need autoscaler v2
  kAuthTokenRayVersion,     // authOptions.mode token needs rayVersion >= 2.52.0
  kDeploymentCondition,     // deletion rules may use condition.jobDeploymentStatus, so they
                            // close every outcome (lifecycle mode deletionRules is leak-free)
  kWorkerPriority,          // worker priority needs Ray 2.56.0 and autoscaler v2
  kGatedClusterOptions,     // networkPolicy, tlsOptions, historyServerOptions need gates
  kUpgradeStrategy,         // the RayJob's RayCluster may not set upgradeStrategy.type
  kSubmitterBuild,          // the submitter the operator builds: a container, --metadata-json
  kAutoscalerStartCmdEnv,   // autoscalerOptions.env may not set KUBERAY_GEN_AUTOSCALER_START_CMD
  kGcsBackend,              // gcsFaultToleranceOptions.backend rocksdb: gate, no redis fields,
                            // claimName alone, no user RAY_gcs_storage* env or gcs-storage volume
  kTlsManagedByOperator,    // tlsOptions.enabled: no user TLS env vars or ray-tls mounts
  kCollectorOptions,        // historyServerOptions.collectorOptions: env rules, container name
};
using OpRow = FactRow<Op>;
std::span<const OpRow> operator_checks();
// Whether the operator of `v` runs check `op`.
bool runs(Op op, KubeRayVersion v);
// The versions whose operator runs `op`.
Span span_of(Op op);

// RayJob fields that exist only in some versions (the CRD at each tag).
enum class Field {
  kSubmissionMode,
  kActiveDeadlineSeconds,
  kNumOfHosts,
  kBackoffLimit,
  kSubmitterConfig,
  kManagedBy,
  kClusterManagedBy,
  kWorkerSuspend,
  kPreRunningDeadlineSeconds,
  kDeletionPolicy,
  kDeletionStrategy,
  kNetworkPolicy,         // rayClusterSpec.networkPolicy
  kTlsOptions,            // rayClusterSpec.tlsOptions
  kHistoryServerOptions,  // rayClusterSpec.historyServerOptions
  kGcsFtBackend,          // rayClusterSpec.gcsFaultToleranceOptions.backend
  kGcsFtStorage,          // rayClusterSpec.gcsFaultToleranceOptions.storage
  kWorkerPriority,        // workerGroupSpecs[].priority
};
struct FieldRow {
  Field field;
  Span span;
  std::string_view hint;  // what to do instead, for a version that does not know the field
};
std::span<const FieldRow> fields();
// Whether the RayJob API of `v` has field `f`.
bool knows(Field f, KubeRayVersion v);
// The row of `f`.
const FieldRow& field_row(Field f);

// Schema rules of the CRD (required fields, enums) that differ by version.
enum class Crd {
  kEntrypointRequired,  // spec.entrypoint is required (optional from 1.3, InteractiveMode)
  kManagedByValues,     // managedBy is ray.io/kuberay-operator or kueue.x-k8s.io/multikueue
  kClusterOptionEnums,  // enums of gcsFaultToleranceOptions.backend and .storage.deletionPolicy,
                        // networkPolicy.mode
};
using CrdRow = FactRow<Crd>;
std::span<const CrdRow> crd_rules();
// Whether the CRD of `v` has schema rule `rule`.
bool crd_has(Crd rule, KubeRayVersion v);

// The defaults the CRD writes (its `default:` markers), each from the version whose CRD has it.
enum class CrdDefault {
  kSubmissionMode,           // spec.submissionMode: K8sJobMode
  kTtlSecondsAfterFinished,  // spec.ttlSecondsAfterFinished: 0
  kBackoffLimit,             // spec.backoffLimit: 0
  kWorkerReplicas,           // workerGroupSpecs[].replicas and minReplicas: 0, maxReplicas: int32 max
  kNumOfHosts,               // workerGroupSpecs[].numOfHosts: 1
  kDeletionRuleTtlSeconds,   // deletionRules[].condition.ttlSeconds: 0
};
using CrdDefaultRow = FactRow<CrdDefault>;
std::span<const CrdDefaultRow> crd_defaults();
// Whether the CRD of `v` writes default `d`.
bool writes_default(CrdDefault d, KubeRayVersion v);

// What the operator does, beyond single checks.
enum class Behavior {
  // A RayJob the operator refuses is parked in JobDeploymentStatus ValidationFailed (before:
  // requeued forever with a Warning event).
  kParksRefused,
  // DELETE_RAYJOB_CR_AFTER_JOB_FINISHES=true deletes a finished RayJob with its cluster
  // (lifecycle mode operatorDeletesRayJob).
  kDeletesRayJobAfterFinish,
};
using BehaviorRow = FactRow<Behavior>;
std::span<const BehaviorRow> behaviors();
// Whether the operator of `v` behaves as `b` says.
bool does(Behavior b, KubeRayVersion v);
// The versions whose operator behaves as `b` says.
Span span_of(Behavior b);

// spec.submissionMode values.
struct SubmissionModeRow {
  std::string_view name;
  Span span;
};
std::span<const SubmissionModeRow> submission_modes();
// Whether `v` knows submission mode `name` (exact spelling).
bool knows_submission_mode(std::string_view name, KubeRayVersion v);

// One feature gate with one compiled default over a span (1.0 and 1.1 have no gate framework).
struct GateRow {
  std::string_view name;
  Span span;
  bool default_on;
};
std::span<const GateRow> feature_gates();
// The compiled default of `gate` at `v`, or nullopt when `v` has no such gate.
std::optional<bool> feature_gate_default(std::string_view gate, KubeRayVersion v);
// Whether the operator runs with `gate` on: kuberay.featureGates, else the compiled default of
// kuberay.version, else off (a gate the version does not have).
bool feature_gate_on(const KubeRayConfig& k, std::string_view gate);
// The gates of `v`, comma-separated in table order ("" for 1.0-1.1): for error messages.
std::string feature_gate_names(KubeRayVersion v);

}  // namespace rjg::policy::kuberay
