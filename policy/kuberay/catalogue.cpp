// The catalogue's tables (see catalogue.hpp). A row with no `until` still holds in the newest
// version.
#include "policy/kuberay/catalogue.hpp"

#include <algorithm>
#include <array>
#include <cassert>

namespace rjg::policy::kuberay {
namespace {

constexpr std::array<OpRow, 33> kOps = {{
    {Op::kSuspendNeedsShutdown, {1}},
    {Op::kSuspendWithSelector, {1}},
    {Op::kClusterSpecOrSelector, {1}},
    {Op::kRuntimeEnvMapping, {1}},
    {Op::kActiveDeadlinePositive, {1}},
    {Op::kBackoffLimitNonNegative, {2}},
    {Op::kDeletionPolicy, {3, 4}},
    {Op::kMetadataName, {4}},
    {Op::kTtl, {4}},
    {Op::kInteractiveNoBackoff, {4}},
    {Op::kClusterSpec, {4}},
    {Op::kDeletionStrategy, {5}},
    {Op::kSelectorClusterKey, {5}},
    {Op::kSelectorNoSidecar, {5}},
    {Op::kSidecarRules, {5}},
    {Op::kGroupResources, {5}},
    {Op::kGroupLabels, {5}},
    {Op::kAutoscalerV2EnvAlone, {5}},
    {Op::kSelectorNoBackoff, {6}},
    {Op::kNoK8sTokenAuth, {6}},
    {Op::kPreRunningPositive, {6}},
    {Op::kWorkerReplicaBounds, {6}},
    {Op::kIdleTimeouts, {6}},
    {Op::kAuthTokenRayVersion, {6}},
    {Op::kDeploymentCondition, {6}},
    {Op::kWorkerPriority, {7}},
    {Op::kGatedClusterOptions, {7}},
    // ValidateRayClusterUpgradeOptions runs on the RayCluster the RayJob creates, which carries
    // the originated-from-RayJob label: the RayJob then waits in Initializing forever.
    {Op::kUpgradeStrategy, {6}},
    // After validation, when the operator builds the submitter (K8sJobMode: the submitter Job,
    // from submitterPodTemplate's first container; SidecarMode: the head's submitter
    // container), common.BuildJobSubmitCommand turns spec.metadata into --metadata-json, only for
    // a rayVersion of 2.6.0 or later. Proven from 1.6 by the conformance oracle, which runs that
    // code; the 1.0-1.5 operators build it the same way, but their oracles do not run it.
    {Op::kSubmitterBuild, {6}},
    {Op::kAutoscalerStartCmdEnv, {7}},
    {Op::kGcsBackend, {7}},
    {Op::kTlsManagedByOperator, {7}},
    {Op::kCollectorOptions, {7}},
}};

constexpr std::array<FieldRow, 17> kFields = {{
    {Field::kSubmissionMode, {1}, ""},  // submission-mode reports it
    {Field::kActiveDeadlineSeconds, {1},
     "KubeRay 1.0 has no run deadline; remove activeDeadlineSeconds"},
    {Field::kNumOfHosts, {1}, "every replica is one Pod here; remove numOfHosts and scale replicas"},
    {Field::kBackoffLimit, {2},
     "the operator does not retry RayJobs; remove backoffLimit and resubmit on failure"},
    {Field::kSubmitterConfig, {2},
     "the submitter Job's backoffLimit is fixed at 2; remove submitterConfig"},
    {Field::kManagedBy, {3}, "remove managedBy"},
    {Field::kClusterManagedBy, {3}, "remove managedBy"},
    {Field::kWorkerSuspend, {3}, "remove suspend and set replicas instead"},
    {Field::kPreRunningDeadlineSeconds, {6}, ""},  // the hint depends on the version
    {Field::kDeletionPolicy, {3, 4}, ""},
    {Field::kDeletionStrategy, {5}, ""},
    {Field::kNetworkPolicy, {7}, "remove networkPolicy"},
    {Field::kTlsOptions, {7}, "remove tlsOptions"},
    {Field::kHistoryServerOptions, {7}, "remove historyServerOptions"},
    {Field::kGcsFtBackend, {7}, "remove backend: the operator uses Redis"},
    {Field::kGcsFtStorage, {7}, "remove storage: it applies only to the 1.7 rocksdb backend"},
    {Field::kWorkerPriority, {7}, "remove priority"},
}};

constexpr std::array<CrdRow, 3> kCrdRules = {{
    {Crd::kEntrypointRequired, {0, 2}},
    {Crd::kManagedByValues, {3}},
    {Crd::kClusterOptionEnums, {7}},
}};

constexpr std::array<CrdDefaultRow, 6> kCrdDefaults = {{
    {CrdDefault::kSubmissionMode, {1}},
    {CrdDefault::kTtlSecondsAfterFinished, {1}},
    {CrdDefault::kBackoffLimit, {2}},
    {CrdDefault::kWorkerReplicas, {0}},
    {CrdDefault::kNumOfHosts, {1}},
    {CrdDefault::kDeletionRuleTtlSeconds, {5}},
}};

constexpr std::array<BehaviorRow, 2> kBehaviors = {{
    {Behavior::kParksRefused, {5}},
    {Behavior::kDeletesRayJobAfterFinish, {2}},
}};

// Absent means K8sJobMode in every version (the CRD default from 1.1, the only mode before).
constexpr std::array<SubmissionModeRow, 4> kModes = {{
    {"K8sJobMode", {1}},
    {"HTTPMode", {1}},
    {"InteractiveMode", {3}},
    {"SidecarMode", {5}},
}};

constexpr std::array<GateRow, 16> kGates = {{
    {"RayClusterStatusConditions", {2, 2}, false},
    {"RayClusterStatusConditions", {3}, true},
    {"RayJobDeletionPolicy", {3, 5}, false},
    {"RayJobDeletionPolicy", {6}, true},
    {"RayMultiHostIndexing", {5, 5}, false},
    {"RayMultiHostIndexing", {6}, true},
    {"RayServiceIncrementalUpgrade", {5, 6}, false},
    {"RayServiceIncrementalUpgrade", {7}, true},
    {"RayCronJob", {6}, false},
    {"AsyncJobInfoQuery", {6, 6}, false},
    {"SidecarSubmitterRestart", {7}, false},
    {"RayClusterNetworkPolicy", {7}, false},
    {"GCSFaultToleranceEmbeddedStorage", {7}, false},
    {"RayClusterMTLS", {7}, false},
    {"RayClusterHistoryServer", {7}, false},
    {"KubernetesWAS", {7}, false},
}};

// The row of key `key` in a table keyed by `member`; every key has one.
template <typename Row, std::size_t N, typename Key>
const Row& row_of(const std::array<Row, N>& table, Key key, [[maybe_unused]] Key Row::* member) {
  // Row k of each keyed table is the row of key k (checked below at compile time), so a lookup
  // on the review's path is an index, not a scan.
  const auto i = static_cast<std::size_t>(key);
  assert(i < N && table[i].*member == key);
  return table[i];
}

// Whether row k of `table` has key k: the order row_of() relies on.
template <typename Row, std::size_t N, typename Key>
constexpr bool in_key_order(const std::array<Row, N>& table, Key Row::* member) {
  for (std::size_t i = 0; i < N; ++i) {
    if (static_cast<std::size_t>(table[i].*member) != i) {
      return false;
    }
  }
  return true;
}
static_assert(in_key_order(kOps, &OpRow::key), "kOps: rows in the order of enum Op");
static_assert(in_key_order(kFields, &FieldRow::field), "kFields: rows in the order of enum Field");
static_assert(in_key_order(kCrdRules, &CrdRow::key), "kCrdRules: rows in the order of enum Crd");
static_assert(in_key_order(kCrdDefaults, &CrdDefaultRow::key),
              "kCrdDefaults: rows in the order of enum CrdDefault");
static_assert(in_key_order(kBehaviors, &BehaviorRow::key),
              "kBehaviors: rows in the order of enum Behavior");

}  // namespace

std::string version_text(KubeRayVersion v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor);
}

std::string span_text(Span s) {
  const auto minor = [](int m) { return version_text({1, m}); };
  if (s.until == kOpen) {
    return minor(s.from) + " or later";
  }
  if (s.until == s.from) {
    return minor(s.from);
  }
  return minor(s.from) + (s.until == s.from + 1 ? " or " : " to ") + minor(s.until);
}

std::span<const OpRow> operator_checks() { return kOps; }
Span span_of(Op op) { return row_of(kOps, op, &OpRow::key).span; }
bool runs(Op op, KubeRayVersion v) { return holds(span_of(op), v); }

std::span<const FieldRow> fields() { return kFields; }
const FieldRow& field_row(Field f) { return row_of(kFields, f, &FieldRow::field); }
bool knows(Field f, KubeRayVersion v) { return holds(field_row(f).span, v); }

std::span<const CrdRow> crd_rules() { return kCrdRules; }
bool crd_has(Crd rule, KubeRayVersion v) {
  return holds(row_of(kCrdRules, rule, &CrdRow::key).span, v);
}

std::span<const CrdDefaultRow> crd_defaults() { return kCrdDefaults; }
bool writes_default(CrdDefault d, KubeRayVersion v) {
  return holds(row_of(kCrdDefaults, d, &CrdDefaultRow::key).span, v);
}

std::span<const BehaviorRow> behaviors() { return kBehaviors; }
Span span_of(Behavior b) { return row_of(kBehaviors, b, &BehaviorRow::key).span; }
bool does(Behavior b, KubeRayVersion v) { return holds(span_of(b), v); }

std::span<const SubmissionModeRow> submission_modes() { return kModes; }
bool knows_submission_mode(std::string_view name, KubeRayVersion v) {
  return std::any_of(kModes.begin(), kModes.end(),
                     [&](const SubmissionModeRow& m) { return m.name == name && holds(m.span, v); });
}

std::span<const GateRow> feature_gates() { return kGates; }

std::optional<bool> feature_gate_default(std::string_view gate, KubeRayVersion v) {
  for (const GateRow& g : kGates) {
    if (g.name == gate && holds(g.span, v)) {
      return g.default_on;
    }
  }
  return std::nullopt;
}

bool feature_gate_on(const KubeRayConfig& k, std::string_view gate) {
  if (gate == "RayJobDeletionPolicy") {
    return k.ray_job_deletion_policy_gate;
  }
  if (const auto it = k.feature_gates.find(gate); it != k.feature_gates.end()) {
    return it->second;
  }
  return feature_gate_default(gate, k.version).value_or(false);
}

std::string feature_gate_names(KubeRayVersion v) {
  std::string out;
  for (const GateRow& g : kGates) {
    if (holds(g.span, v)) {
      out += (out.empty() ? "" : ", ") + std::string(g.name);
    }
  }
  return out;
}

}  // namespace rjg::policy::kuberay
