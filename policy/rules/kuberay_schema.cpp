// kuberay-schema: the RayJob passes everything the pinned KubeRay version checks after admission
// (ValidateRayJobMetadata, ValidateRayJobSpec, the RayJob-relevant part of ValidateRayClusterSpec,
// and the CRD's own enums and CEL rules), and uses no field that version does not know.
// Whatever the operator rejects never runs, yet the RayJob stays and holds quota: in 1.5+ in
// JobDeploymentStatus ValidationFailed, in 1.1-1.4 as an endless requeue (rayjob_controller.go;
// docs/lifecycle.md).
// Which submissionMode values a version knows is submission-mode's, so it is reported once.
// A field whose value is what the operator does without it (backoffLimit 0, numOfHosts 1) is not
// reported as unknown: a CRD newer than the operator writes exactly those as defaults.
#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "common/ascii.hpp"
#include "policy/field_paths.hpp"
#include "policy/kuberay_versions.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

constexpr std::size_t kMaxRayJobNameLength = 47;  // 53 - 6: the RayCluster name adds a suffix
constexpr std::string_view kClusterNameKey = "ray.io/cluster";

constexpr std::array<std::string_view, 4> kDeletionPolicies = {"DeleteCluster", "DeleteWorkers",
                                                               "DeleteSelf", "DeleteNone"};

// Each check the operator runs after admission, with the minor versions (1.from .. 1.to) whose
// operator runs it (read in ray-operator/controllers/ray/utils/validation.go and, before 1.3,
// rayjob_controller.go at each tag). docs/rules.md, kuberay-schema, is the summary.
enum class Op {
  kSuspendNeedsShutdown,      // suspend requires shutdownAfterJobFinishes
  kSuspendWithSelector,       // no suspend in clusterSelector mode
  kClusterSpecOrSelector,     // one of rayClusterSpec / clusterSelector
  kRuntimeEnvMapping,         // runtimeEnvYAML parses to a mapping
  kActiveDeadlinePositive,    // activeDeadlineSeconds > 0
  kBackoffLimitNonNegative,   // backoffLimit >= 0
  kDeletionPolicy,            // spec.deletionPolicy: gate, compatibility
  kMetadataName,              // name <= 47 characters, DNS-1035
  kTtl,                       // TTL >= 0, TTL > 0 needs shutdown
  kInteractiveNoBackoff,      // InteractiveMode: backoffLimit 0
  kClusterSpec,               // ValidateRayClusterSpec on the RayJob's rayClusterSpec
  kDeletionStrategy,          // spec.deletionStrategy: gate, forms, rules
  kSelectorClusterKey,        // clusterSelector[ray.io/cluster] non-empty
  kSelectorNoSidecar,         // no SidecarMode with clusterSelector
  kSidecarRules,              // SidecarMode: no submitter template/config, head restartPolicy
  kGroupResources,            // rayStartParams resources vs group resources
  kGroupLabels,               // group labels: syntax, not in rayStartParams
  kAutoscalerV2EnvAlone,      // RAY_enable_autoscaler_v2=1|true without autoscaling
  kSelectorNoBackoff,         // no backoffLimit > 0 with clusterSelector
  kNoK8sTokenAuth,            // authOptions.enableK8sTokenAuth unsupported for RayJob
  kPreRunningPositive,        // preRunningDeadlineSeconds > 0
  kWorkerReplicaBounds,       // min/max set without autoscaling, >= 0, min <= max
  kIdleTimeouts,              // idleTimeoutSeconds >= 0, worker ones need autoscaler v2
  kAuthTokenRayVersion,       // authOptions.mode token needs rayVersion >= 2.52.0
  kDeploymentCondition,       // deletion rules may use condition.jobDeploymentStatus
  kWorkerPriority,            // worker priority needs Ray 2.56.0 and autoscaler v2
  kGatedClusterOptions,       // networkPolicy, tlsOptions, historyServerOptions need gates
  kUpgradeStrategy,           // the RayJob's RayCluster may not set upgradeStrategy.type
  kSubmitterBuild,            // the submitter the operator builds: a container, --metadata-json
  kAutoscalerStartCmdEnv,     // autoscalerOptions.env may not set KUBERAY_GEN_AUTOSCALER_START_CMD
  kGcsBackend,                // gcsFaultToleranceOptions.backend rocksdb: gate, no redis fields,
                              // claimName alone, no user RAY_gcs_storage* env or gcs-storage volume
  kTlsManagedByOperator,      // tlsOptions.enabled: no user TLS env vars or ray-tls mounts
  kCollectorOptions,          // historyServerOptions.collectorOptions: env rules, container name
};

struct OpSpan {
  Op op;
  int from;
  int to;
};

constexpr std::array<OpSpan, 33> kOperatorChecks = {{
    {Op::kSuspendNeedsShutdown, 1, 7},
    {Op::kSuspendWithSelector, 1, 7},
    {Op::kClusterSpecOrSelector, 1, 7},
    {Op::kRuntimeEnvMapping, 1, 7},
    {Op::kActiveDeadlinePositive, 1, 7},
    {Op::kBackoffLimitNonNegative, 2, 7},
    {Op::kDeletionPolicy, 3, 4},
    {Op::kMetadataName, 4, 7},
    {Op::kTtl, 4, 7},
    {Op::kInteractiveNoBackoff, 4, 7},
    {Op::kClusterSpec, 4, 7},
    {Op::kDeletionStrategy, 5, 7},
    {Op::kSelectorClusterKey, 5, 7},
    {Op::kSelectorNoSidecar, 5, 7},
    {Op::kSidecarRules, 5, 7},
    {Op::kGroupResources, 5, 7},
    {Op::kGroupLabels, 5, 7},
    {Op::kAutoscalerV2EnvAlone, 5, 7},
    {Op::kSelectorNoBackoff, 6, 7},
    {Op::kNoK8sTokenAuth, 6, 7},
    {Op::kPreRunningPositive, 6, 7},
    {Op::kWorkerReplicaBounds, 6, 7},
    {Op::kIdleTimeouts, 6, 7},
    {Op::kAuthTokenRayVersion, 6, 7},
    {Op::kDeploymentCondition, 6, 7},
    {Op::kWorkerPriority, 7, 7},
    {Op::kGatedClusterOptions, 7, 7},
    // ValidateRayClusterUpgradeOptions runs on the RayCluster the RayJob creates, which carries
    // the originated-from-RayJob label: the RayJob then waits in Initializing forever.
    {Op::kUpgradeStrategy, 6, 7},
    // After validation, when the operator builds the submitter (K8sJobMode: the submitter Job,
    // from submitterPodTemplate's first container; SidecarMode: the head's submitter
    // container), common.BuildJobSubmitCommand turns spec.metadata into --metadata-json, only for
    // a rayVersion of 2.6.0 or later. Proven from 1.6 by the conformance oracle, which runs that
    // code; the 1.0-1.5 operators build it the same way, but their oracles do not run it.
    {Op::kSubmitterBuild, 6, 7},
    {Op::kAutoscalerStartCmdEnv, 7, 7},
    {Op::kGcsBackend, 7, 7},
    {Op::kTlsManagedByOperator, 7, 7},
    {Op::kCollectorOptions, 7, 7},
}};

// RayJob fields that exist only in some versions (the CRD at each tag). `since` 0 with `until`
// set means "until `until`"; `unset_is` is the value a newer CRD writes as its default, which is
// what the older operator does without the field, so it is not reported.
enum class Field {
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

struct FieldSpan {
  Field field;
  int from;
  int to;
  std::string_view hint;  // what to do instead, for a version that does not know the field
};

constexpr std::array<FieldSpan, 16> kFields = {{
    {Field::kActiveDeadlineSeconds, 1, 7,
     "KubeRay 1.0 has no run deadline; remove activeDeadlineSeconds"},
    {Field::kNumOfHosts, 1, 7, "every replica is one Pod here; remove numOfHosts and scale replicas"},
    {Field::kBackoffLimit, 2, 7,
     "the operator does not retry RayJobs; remove backoffLimit and resubmit on failure"},
    {Field::kSubmitterConfig, 2, 7,
     "the submitter Job's backoffLimit is fixed at 2; remove submitterConfig"},
    {Field::kManagedBy, 3, 7, "remove managedBy"},
    {Field::kClusterManagedBy, 3, 7, "remove managedBy"},
    {Field::kWorkerSuspend, 3, 7, "remove suspend and set replicas instead"},
    {Field::kPreRunningDeadlineSeconds, 6, 7, ""},  // hint depends on the version, see below
    {Field::kDeletionPolicy, 3, 4, ""},
    {Field::kDeletionStrategy, 5, 7, ""},
    {Field::kNetworkPolicy, 7, 7, "remove networkPolicy"},
    {Field::kTlsOptions, 7, 7, "remove tlsOptions"},
    {Field::kHistoryServerOptions, 7, 7, "remove historyServerOptions"},
    {Field::kGcsFtBackend, 7, 7, "remove backend: the operator uses Redis"},
    {Field::kGcsFtStorage, 7, 7, "remove storage: it applies only to the 1.7 rocksdb backend"},
    {Field::kWorkerPriority, 7, 7, "remove priority"},
}};

// Schema rules of the CRD (required fields, enums) that differ by version.
enum class Crd {
  kEntrypointRequired,  // spec.entrypoint is required (optional from 1.3, InteractiveMode)
  kManagedByValues,     // managedBy is ray.io/kuberay-operator or kueue.x-k8s.io/multikueue
  kClusterOptionEnums,  // enums of gcsFaultToleranceOptions.backend and .storage.deletionPolicy,
                        // networkPolicy.mode (1.7)
};

struct CrdSpan {
  Crd rule;
  int from;
  int to;
};

constexpr std::array<CrdSpan, 3> kCrdRules = {{
    {Crd::kEntrypointRequired, 0, 2},
    {Crd::kManagedByValues, 3, 7},
    {Crd::kClusterOptionEnums, 7, 7},
}};

bool crd_has(Crd rule, KubeRayVersion v) {
  for (const CrdSpan& s : kCrdRules) {
    if (s.rule == rule) {
      return v.major == 1 && v.minor >= s.from && v.minor <= s.to;
    }
  }
  return false;
}

bool runs(Op op, KubeRayVersion v) {
  for (const OpSpan& s : kOperatorChecks) {
    if (s.op == op) {
      return v.major == 1 && v.minor >= s.from && v.minor <= s.to;
    }
  }
  return false;
}

const FieldSpan& field_span(Field f) {
  for (const FieldSpan& s : kFields) {
    if (s.field == f) {
      return s;
    }
  }
  assert(false);
  return kFields[0];
}

bool knows(Field f, KubeRayVersion v) {
  const FieldSpan& s = field_span(f);
  return v.major == 1 && v.minor >= s.from && v.minor <= s.to;
}

std::string quoted(std::string_view v) { return "\"" + std::string(v) + "\""; }

bool is_one_of(std::string_view v, const std::array<std::string_view, 4>& set) {
  for (std::string_view s : set) {
    if (s == v) {
      return true;
    }
  }
  return false;
}

// DNS-1035 label, as k8s.io/apimachinery IsDNS1035Label: [a-z]([-a-z0-9]*[a-z0-9])?, <= 63.
bool is_dns1035_label(std::string_view s) {
  if (s.empty() || s.size() > 63) {
    return false;
  }
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!lower(s.front()) || !(lower(s.back()) || digit(s.back()))) {
    return false;
  }
  for (char c : s) {
    if (!lower(c) && !digit(c) && c != '-') {
      return false;
    }
  }
  return true;
}

// A "generic" version as k8s.io/apimachinery ParseGeneric reads it (`^\\s*v?([0-9]+(\\.[0-9]+)*)(.*)`):
// leading ASCII white space, an optional "v", at least two dot-separated numbers (the first not
// zero-prefixed), then anything but a line break.
std::optional<std::vector<long long>> parse_generic_version(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' ||
                        s.front() == '\f' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  if (!s.empty() && s.front() == 'v') {
    s.remove_prefix(1);
  }
  std::vector<long long> parts;
  std::size_t i = 0;
  while (true) {
    const std::size_t start = i;
    long long n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 18) {
      n = n * 10 + (s[i] - '0');
      ++i;
    }
    if (i == start || (parts.empty() && s[start] == '0' && i - start > 1)) {
      return std::nullopt;
    }
    parts.push_back(n);
    if (i + 1 < s.size() && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
      ++i;
      continue;
    }
    break;
  }
  if (parts.size() < 2 || (i < s.size() && s[i] >= '0' && s[i] <= '9') ||
      s.find('\n', i) != std::string_view::npos) {
    return std::nullopt;
  }
  return parts;
}

// Why Masterminds semver v3 (NewVersion, coercing) cannot read `s` as a version, or why it
// fails common.GetMetadataJson's ">= 2.6.0" (a pre-release never satisfies a constraint without
// one); "" when it passes. The form: v?MAJOR[.MINOR[.PATCH]][-PRE][+META], numbers that fit
// 64 bits; PRE and META dot-separated non-empty [0-9A-Za-z-] parts, numeric PRE parts without a
// leading zero.
std::string metadata_version_problem(std::string_view s) {
  const auto alnum = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
  };
  // Splits s[i..] at dots into parts of [0-9A-Za-z-] up to `stop` or the end.
  const auto parts = [&](std::size_t& i, char stop, bool pre) {
    bool ok = true;
    while (true) {
      const std::size_t start = i;
      bool numeric = true;
      while (i < s.size() && alnum(s[i])) {
        numeric = numeric && s[i] >= '0' && s[i] <= '9';
        ++i;
      }
      if (i == start || (pre && numeric && i - start > 1 && s[start] == '0')) {
        ok = false;
      }
      if (i < s.size() && s[i] == '.') {
        ++i;
        continue;
      }
      break;
    }
    return ok && (i == s.size() || s[i] == stop);
  };
  std::size_t i = 0;
  if (i < s.size() && s[i] == 'v') {
    ++i;
  }
  std::array<unsigned long long, 3> num = {0, 0, 0};
  for (std::size_t k = 0; k < 3; ++k) {
    if (k > 0) {
      if (i + 1 >= s.size() || s[i] != '.' || s[i + 1] < '0' || s[i + 1] > '9') {
        break;
      }
      ++i;
    }
    const std::size_t start = i;
    unsigned long long n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      const auto d = static_cast<unsigned long long>(s[i] - '0');
      if (n > (~0ULL - d) / 10) {
        return "its version number overflows";
      }
      n = n * 10 + d;
      ++i;
    }
    if (i == start) {
      return "is not a semantic version";
    }
    num[k] = n;
  }
  bool pre = false;
  if (i < s.size() && s[i] == '-') {
    ++i;
    pre = true;
    if (!parts(i, '+', true)) {
      return "is not a semantic version";
    }
  }
  if (i < s.size() && s[i] == '+') {
    ++i;
    if (!parts(i, '\0', false)) {
      return "is not a semantic version";
    }
  }
  if (i != s.size()) {
    return "is not a semantic version";
  }
  if (pre) {
    return "is a pre-release, which never satisfies >= 2.6.0";
  }
  if (num < std::array<unsigned long long, 3>{2, 6, 0}) {
    return "is older than 2.6.0";
  }
  return {};
}

bool version_less(const std::vector<long long>& a, const std::vector<long long>& b) {
  for (std::size_t i = 0; i < a.size() || i < b.size(); ++i) {
    const long long x = i < a.size() ? a[i] : 0;
    const long long y = i < b.size() ? b[i] : 0;
    if (x != y) {
      return x < y;
    }
  }
  return false;
}

bool is_autoscaling(const RayClusterSpec* rc) {
  return rc != nullptr && rc->enable_in_tree_autoscaling.value_or(false);
}

// What a fix of one deletion rule must know of the others, answered without a scan: the first
// two rules of each (jobStatus, jobDeploymentStatus, policy), and per condition the first rule
// that kuberay-schema's fix makes DeleteSelf. Built once per list, so that the fixes of N rules
// cost N log N, not N squared.
class RuleLookup {
 public:
  RuleLookup(const std::vector<DeletionRule>& rules, const RayJobSpec& spec) {
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const DeletionRule& r = rules[i];
      if (!r.has_condition) {
        continue;
      }
      auto& first = exact_.try_emplace({r.job_status, r.job_deployment_status, r.policy},
                                       std::array<std::size_t, 2>{kNone, kNone})
                        .first->second;
      if (first[0] == kNone) {
        first[0] = i;
      } else if (first[1] == kNone) {
        first[1] = i;
      }
      if (fixed_to_delete_self(r.policy, spec)) {
        to_self_.try_emplace({r.job_status, r.job_deployment_status}, i);
      }
    }
  }

  // Whether a rule other than `i` is exactly (job_status, deployment_status, policy), or, for
  // DeleteSelf, a rule before `i` becomes it by its own fix.
  bool taken(std::size_t i, const std::optional<std::string>& job_status,
             const std::optional<std::string>& deployment_status,
             const std::optional<std::string>& policy) const {
    if (const auto it = exact_.find({job_status, deployment_status, policy}); it != exact_.end()) {
      const auto& first = it->second;
      if ((first[0] != kNone && first[0] != i) || (first[1] != kNone && first[1] != i)) {
        return true;
      }
    }
    if (policy != "DeleteSelf") {
      return false;
    }
    const auto it = to_self_.find({job_status, deployment_status});
    return it != to_self_.end() && it->second < i;
  }

 private:
  using Opt = std::optional<std::string>;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::map<std::tuple<Opt, Opt, Opt>, std::array<std::size_t, 2>> exact_;
  std::map<std::pair<Opt, Opt>, std::size_t> to_self_;
};

bool is_autoscaler_v2(const RayClusterSpec* rc) {
  return is_autoscaling(rc) && rc->autoscaler_options && rc->autoscaler_options->version == "v2";
}

bool restart_policy_ok(const PodTemplate& t) {
  return !t.restart_policy || t.restart_policy->empty() || *t.restart_policy == "Never";
}

// The first entry of `env` named `name`, or nullptr.
const EnvVar* find_env(const std::vector<EnvVar>& env, std::string_view name) {
  const auto it =
      std::find_if(env.begin(), env.end(), [name](const EnvVar& e) { return e.name == name; });
  return it == env.end() ? nullptr : &*it;
}

const EnvVar* env_var(const PodTemplate& t, std::string_view name) {
  // The operator reads the Ray container, containers[0] (RayContainerIndex).
  return t.containers.empty() ? nullptr : find_env(t.containers.front().env, name);
}

// Edits removing every entry named `name` from the env[] list at `field`.
std::vector<Edit> remove_items(const std::string& field, const std::vector<EnvVar>& env,
                               std::string_view name) {
  std::vector<Edit> edits;
  for (std::size_t i = 0; i < env.size(); ++i) {
    if (env[i].name == name) {
      edits.push_back(Edit::remove(field + "[" + std::to_string(i) + "]"));
    }
  }
  return edits;
}

bool is_true_text(const std::optional<std::string>& v) { return v && (*v == "1" || *v == "true"); }

// Go's strings.ToUpper and strings.ToLower, as far as the result can equal an ASCII word (the
// only use here): ASCII letters, and the four runes whose Unicode case mapping is ASCII: 'ı'
// (U+0131) and 'ſ' (U+017F) upper-case to I and S, 'İ' (U+0130) and the Kelvin sign (U+212A)
// lower-case to i and k. Every other byte is kept, and cannot match an ASCII word.
std::string go_upper(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= 'a' && c <= 'z') {
      out += static_cast<char>(c - 'a' + 'A');
    } else if (s.substr(i, 2) == "\xC4\xB1") {
      out += 'I';
      ++i;
    } else if (s.substr(i, 2) == "\xC5\xBF") {
      out += 'S';
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

std::string go_lower(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (s.substr(i, 2) == "\xC4\xB0") {
      out += 'i';
      ++i;
    } else if (s.substr(i, 3) == "\xE2\x84\xAA") {
      out += 'k';
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// The length of the Unicode white space (Go's unicode.IsSpace) that starts `s` at `i`, or 0.
std::size_t space_at(std::string_view s, std::size_t i) {
  constexpr std::array<std::string_view, 13> kSpaces = {
      "\t",           "\n",           "\v",           "\f",           "\r",
      " ",            "\xC2\x85",     "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\xA8",
      "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F"};
  for (std::string_view sp : kSpaces) {
    if (s.substr(i, sp.size()) == sp) {
      return sp.size();
    }
  }
  // U+2000 .. U+200A, and U+3000.
  const std::string_view rest = s.substr(i);
  if (rest.size() >= 3 && rest.substr(0, 2) == "\xE2\x80" &&
      static_cast<unsigned char>(rest[2]) <= 0x8A) {
    return 3;
  }
  return rest.substr(0, 3) == "\xE3\x80\x80" ? 3 : 0;
}

// Go's strings.TrimSpace (Unicode white space at both ends).
std::string_view go_trim_space(std::string_view s) {
  while (!s.empty()) {
    const std::size_t n = space_at(s, 0);
    if (n == 0) {
      break;
    }
    s.remove_prefix(n);
  }
  std::size_t end = 0;  // just past the last byte that is not white space
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = space_at(s, i);
    i += n > 0 ? n : 1;
    end = n > 0 ? end : i;
  }
  return s.substr(0, end);
}

const std::string* find_value(const FlatMap<std::string>& m, std::string_view key) {
  const auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

bool non_empty(const FlatMap<std::string>& m, std::string_view key) {
  const std::string* v = find_value(m, key);
  return v != nullptr && !v->empty();
}

// k8s.io/apimachinery validation: a label value, and the name part of a qualified name.
bool is_label_name_part(std::string_view s, std::size_t max) {
  if (s.empty() || s.size() > max) {
    return false;
  }
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(s.front()) || !alnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

}  // namespace

bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    const std::string_view label = s.substr(start, dot == std::string_view::npos ? dot : dot - start);
    auto ok = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (label.empty() || !ok(label.front()) || !ok(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!ok(c) && c != '-') {
        return false;
      }
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}

namespace {

// IsQualifiedName: [prefix/]name, prefix a DNS-1123 subdomain, name at most 63 characters.
bool is_qualified_name(std::string_view s) {
  const std::size_t slash = s.find('/');
  if (slash == std::string_view::npos) {
    return is_label_name_part(s, 63);
  }
  if (s.find('/', slash + 1) != std::string_view::npos) {
    return false;
  }
  return is_dns1123_subdomain(s.substr(0, slash)) && is_label_name_part(s.substr(slash + 1), 63);
}

bool is_label_value(std::string_view s) { return s.empty() || is_label_name_part(s, 63); }

// Everything one check needs, and the wording shared by all messages.
class Checker {
 public:
  Checker(const RuleContext& ctx, Findings& out)
      : job_(ctx.job),
        spec_(ctx.job.spec),
        policy_(ctx.policy),
        mode_(ctx.mode()),
        v_(ctx.policy.kuberay.version),
        ver_(std::to_string(v_.major) + "." + std::to_string(v_.minor)),
        rc_(ctx.job.spec.ray_cluster_spec ? &*ctx.job.spec.ray_cluster_spec : nullptr),
        out_(out) {}

  void run();

 private:
  bool runs(Op op) const { return policy::runs(op, v_); }
  bool knows(Field f) const { return policy::knows(f, v_); }
  bool gate(std::string_view name) const { return feature_gate_on(policy_.kuberay, name); }
  bool shutdown() const { return spec_.shutdown_after_job_finishes.value_or(false); }
  bool selector_mode() const { return spec_.cluster_selector && !spec_.cluster_selector->empty(); }
  // Whether the RayJob's lifecycle is deletion rules, which forbid shutdownAfterJobFinishes.
  bool rules_lifecycle() const { return mode_ == LifecycleMode::kDeletionRules; }
  // Whether "set shutdownAfterJobFinishes: true" is a fix that nothing else then refuses: not in
  // the deletionRules lifecycle, not with deletion rules, and not with a DeleteNone policy.
  // What this round's own fixes remove (the version does not know the field, or the
  // RayJobDeletionPolicy gate is off) does not stand in the way.
  bool shutdown_fits() const {
    const auto& ds = spec_.deletion_strategy;
    const bool strategy_stays = ds && knows(Field::kDeletionStrategy) &&
                                (!runs(Op::kDeletionStrategy) ||
                                 policy_.kuberay.ray_job_deletion_policy_gate);
    const bool policy_stays = knows(Field::kDeletionPolicy) &&
                              (!runs(Op::kDeletionPolicy) ||
                               policy_.kuberay.ray_job_deletion_policy_gate);
    const bool rules = strategy_stays && ds->deletion_rules && !ds->deletion_rules->empty();
    const bool none = (policy_stays && spec_.deletion_policy == "DeleteNone") ||
                      (strategy_stays && (ds->on_success_policy == "DeleteNone" ||
                                          ds->on_failure_policy == "DeleteNone"));
    // Outside lifecycle mode deletionRules the target form has shutdownAfterJobFinishes: true,
    // and reap-self removes what conflicts with it in the same round.
    return !rules_lifecycle() && ((!rules && !none) || reap_self_on());
  }
  bool reap_self_on() const { return policy_.action(RuleId::kReapSelf) != RuleAction::kOff; }
  // Setting shutdownAfterJobFinishes: true, with what the operator refuses next to it gone in the
  // same round, as reap-self's fix does (the same edits, so the two agree).
  std::vector<Edit> shutdown_edits() const {
    std::vector<Edit> edits = {Edit::set("spec.shutdownAfterJobFinishes", true)};
    const auto& ds = spec_.deletion_strategy;
    if (ds && ((ds->deletion_rules && !ds->deletion_rules->empty()) ||
               ds->on_success_policy == "DeleteNone" || ds->on_failure_policy == "DeleteNone")) {
      edits.push_back(Edit::remove("spec.deletionStrategy"));
    }
    if (spec_.deletion_policy == "DeleteNone") {
      edits.push_back(mode_ == LifecycleMode::kDeletionPolicy
                          ? Edit::set("spec.deletionPolicy", std::string("DeleteSelf"))
                          : Edit::remove("spec.deletionPolicy"));
    }
    return edits;
  }
  // deletionRules[i]'s jobStatus `value` respelled in upper case when that is SUCCEEDED or FAILED
  // ("failed"); else no fix.
  std::vector<Edit> respelled(const std::vector<DeletionRule>& rules, const RuleLookup& lookup,
                              std::size_t i, const std::string& value) const {
    const std::string upper = ascii_upper(value);
    if (upper != "SUCCEEDED" && upper != "FAILED") {
      return {};
    }
    const std::string field =
        "spec.deletionStrategy.deletionRules[" + std::to_string(i) + "].condition.jobStatus";
    return rule_becomes(lookup, i, upper, rules[i].job_deployment_status, rules[i].policy,
                        {Edit::set(field, upper)});
  }
  // Whether the operator parks a rejected RayJob in ValidationFailed (1.5+) or requeues it.
  bool parks() const { return v_ >= KubeRayVersion{1, 5}; }

  // `edits`: the literal fix (Finding::fix); empty when the change is the tenant's choice.
  void add(std::string field, std::string message, std::vector<Edit> edits = {}) {
    out_.push_back(Finding{RuleId::kKuberaySchema, Finding::Kind::kViolation, std::move(field),
                           std::move(message), std::move(edits)});
  }
  // "<what is wrong>; <what the operator does>; <what to do>" for an operator-side rejection.
  void rejects(std::string field, std::string_view wrong, std::string_view fix,
               std::vector<Edit> edits = {}, std::string_view event = "InvalidRayJobSpec") {
    std::string consequence;
    if (parks()) {
      consequence = "the KubeRay " + ver_ +
                    " operator rejects this RayJob after admission and it stays in "
                    "ValidationFailed, holding quota";
    } else if (event == "InvalidRayJobSpec") {
      consequence = "the KubeRay " + ver_ +
                    " operator rejects this RayJob after admission and requeues it forever "
                    "(Warning event InvalidRayJobSpec), so it never runs and holds quota";
    } else {
      consequence = "the KubeRay " + ver_ +
                    " operator rejects this RayJob after admission and requeues it forever "
                    "(Warning event " +
                    std::string(event) + "), holding quota";
    }
    add(std::move(field), std::string(wrong) + "; " + consequence + "; " + std::string(fix),
        std::move(edits));
  }
  // For what passes validation and fails when the operator builds the submitter: the RayCluster
  // is already up, and the reconcile fails and retries forever.
  void fails_building_submitter(std::string field, std::string_view wrong, std::string_view fix,
                                std::vector<Edit> edits = {}) {
    add(std::move(field),
        std::string(wrong) + "; the KubeRay " + ver_ +
            " operator accepts this RayJob and creates its RayCluster, then cannot build the "
            "submitter and retries forever, so the job never runs and the RayJob waits in "
            "Initializing, holding quota; " +
            std::string(fix),
        std::move(edits));
  }
  // For what the CRD schema (enum, required, CEL) refuses. The apiserver checks these before the
  // webhook, so they show up in `check` or when the installed CRD differs from the operator.
  void crd_rejects(std::string field, std::string_view wrong, std::string_view fix,
                   std::vector<Edit> edits = {}) {
    add(std::move(field),
        std::string(wrong) + "; the KubeRay " + ver_ + " CRD refuses this RayJob at the apiserver; " +
            std::string(fix),
        std::move(edits));
  }
  // For a field the pinned version does not know. Its fix removes it: it has no effect anyway.
  void unknown(std::string field, Field f, std::string_view instead) {
    const FieldSpan& s = field_span(f);
    const std::string when = "1." + std::to_string(s.from);
    std::vector<Edit> edits = {Edit::remove(field)};
    add(std::move(field),
        "the KubeRay " + ver_ + " API does not know this field (it exists from " + when +
            "): the apiserver prunes it or the operator ignores it, so it has no effect; " +
            std::string(instead.empty() ? s.hint : instead),
        std::move(edits));
  }

  void metadata();
  void unknown_fields();
  void suspend_and_ttl();
  void deletion_policy();
  void deletion_strategy();
  void legacy_deletion(const DeletionStrategy& ds);
  void deletion_rules(const std::vector<DeletionRule>& rules);
  // The one copy of the checks that a deletion policy fits the RayJob, shared by deletionPolicy
  // (1.3-1.4), the legacy onSuccess/onFailure form and deletionRules (1.5+). `none_vs_shutdown`:
  // whether DeleteNone with shutdownAfterJobFinishes is checked (not for rules, which forbid
  // shutdown anyway). Returns false when it reported something.
  // `to_delete_self`: the fix that makes the field DeleteSelf, which fits every check here.
  bool policy_fits(const std::string& field, const std::string& policy, bool none_vs_shutdown,
                   const std::vector<Edit>& to_delete_self);
  // The fix turning deletionRules[i] into a rule for (job_status, deployment_status, policy) by
  // `edits`; or removing the rule when another rule already is exactly that, or an earlier one
  // becomes it by its own fix (DeleteSelf, see policy_fits).
  static std::vector<Edit> rule_becomes(const RuleLookup& lookup, std::size_t i,
                                        const std::optional<std::string>& job_status,
                                        const std::optional<std::string>& deployment_status,
                                        const std::optional<std::string>& policy,
                                        std::vector<Edit> edits);
  void cluster_selection();
  void submission_modes();
  void cluster_spec();
  void group_checks(const std::string& path, std::string_view group, const PodTemplate& t,
                    const FlatMap<std::string>& params, bool params_set_resources,
                    bool has_resources, const std::optional<FlatMap<std::string>>& labels);
  void fault_tolerance(const std::string& base);
  void autoscaler(const std::string& base);
  void worker_autoscaling(const std::string& wg, const WorkerGroup& g);
  void gated_options(const std::string& base);
  void gcs_backend(const std::string& base);
  void collector(const std::string& base);
  void tls_managed(const std::string& base);
  void network_policy(const std::string& np);
  bool autoscaler_v2_chosen() const;
  void scalars();
  void submitter();
  void crd_fields();

  const RayJob& job_;
  const RayJobSpec& spec_;
  const PolicyConfig& policy_;
  const LifecycleMode mode_;  // the lifecycle mode this RayJob is judged by (RuleContext::mode)
  const KubeRayVersion v_;
  const std::string ver_;
  const RayClusterSpec* rc_;
  Findings& out_;
};

void Checker::run() {
  unknown_fields();
  crd_fields();
  metadata();
  suspend_and_ttl();
  deletion_policy();
  deletion_strategy();
  cluster_selection();
  submission_modes();
  cluster_spec();
  scalars();
  submitter();
}

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

std::vector<Edit> Checker::rule_becomes(const RuleLookup& lookup, std::size_t i,
                                        const std::optional<std::string>& job_status,
                                        const std::optional<std::string>& deployment_status,
                                        const std::optional<std::string>& policy,
                                        std::vector<Edit> edits) {
  if (lookup.taken(i, job_status, deployment_status, policy)) {
    return {Edit::remove("spec.deletionStrategy.deletionRules[" + std::to_string(i) + "]")};
  }
  return edits;
}

bool Checker::policy_fits(const std::string& field, const std::string& p, bool none_vs_shutdown,
                          const std::vector<Edit>& to_delete_self) {
  // Every fix here is DeleteSelf, which fits all three checks: two findings on one field never
  // ask for different values.
  bool fits = true;
  if (selector_mode() && (p == "DeleteCluster" || p == "DeleteWorkers")) {
    rejects(field, p + " cannot be used with clusterSelector (the cluster is not the RayJob's)",
            "use DeleteSelf or DeleteNone", to_delete_self);
    fits = false;
  }
  if (p == "DeleteWorkers" && is_autoscaling(rc_)) {
    rejects(field, "DeleteWorkers does not work with enableInTreeAutoscaling",
            "use DeleteCluster or DeleteSelf", to_delete_self);
    fits = false;
  }
  if (none_vs_shutdown && p == "DeleteNone" && shutdown()) {
    rejects(field, "DeleteNone contradicts shutdownAfterJobFinishes: true",
            "use DeleteSelf, or set shutdownAfterJobFinishes: false", to_delete_self);
    fits = false;
  }
  return fits;
}

void Checker::deletion_policy() {
  if (!spec_.deletion_policy || !runs(Op::kDeletionPolicy)) {
    return;
  }
  const std::string field = "spec.deletionPolicy";
  const std::string& value = *spec_.deletion_policy;
  if (!policy_.kuberay.ray_job_deletion_policy_gate) {
    rejects(field, "needs the RayJobDeletionPolicy feature gate, which this operator runs with off",
            "remove deletionPolicy (and ask the platform team if DeleteSelf is needed)",
            {Edit::remove(field)});
    return;
  }
  // In lifecycle mode operatorDeletesRayJob the target form has no deletionPolicy (reap-self
  // removes it): the fix agrees, or the two would contradict.
  const std::vector<Edit> fix =
      mode_ == LifecycleMode::kOperatorDeletesRayJob
          ? std::vector<Edit>{Edit::remove(field)}
          : std::vector<Edit>{Edit::set(field, std::string("DeleteSelf"))};
  if (!is_one_of(value, kDeletionPolicies)) {
    crd_rejects(field, quoted(value) + " is not a deletion policy",
                "use DeleteSelf (or DeleteCluster, DeleteWorkers, DeleteNone)", fix);
    return;
  }
  policy_fits(field, value, true, fix);
}

void Checker::deletion_strategy() {
  if (!spec_.deletion_strategy || !runs(Op::kDeletionStrategy)) {
    return;
  }
  const DeletionStrategy& ds = *spec_.deletion_strategy;
  if (!policy_.kuberay.ray_job_deletion_policy_gate) {
    rejects("spec.deletionStrategy",
            "needs the RayJobDeletionPolicy feature gate, which this operator runs with off",
            "remove deletionStrategy (and ask the platform team to enable the gate)",
            {Edit::remove("spec.deletionStrategy")});
    return;
  }
  const bool legacy = ds.has_on_success || ds.has_on_failure;
  const bool rules = ds.deletion_rules && !ds.deletion_rules->empty();
  if (ds.deletion_rules && ds.deletion_rules->empty()) {
    crd_rejects("spec.deletionStrategy.deletionRules", "is an empty list (minItems is 1)",
                "add at least one rule, e.g. {policy: DeleteSelf, condition: {jobStatus: "
                "SUCCEEDED, ttlSeconds: 60}}");
  }
  if (rules && shutdown() && !rules_lifecycle() && reap_self_on()) {
    // The lifecycle mode keeps shutdownAfterJobFinishes (reap-self asks for it): the rules go.
    rejects("spec.shutdownAfterJobFinishes", "true together with deletionStrategy.deletionRules",
            "remove deletionStrategy: lifecycle mode " +
                std::string(mode_ == LifecycleMode::kReaper
                                ? "reaper"
                                : "operatorDeletesRayJob") +
                " deletes the RayJob after shutdownAfterJobFinishes",
            {Edit::remove("spec.deletionStrategy")});
  } else if (rules && shutdown() && runs(Op::kSuspendNeedsShutdown) &&
             spec_.suspend.value_or(false)) {
    // suspend needs shutdownAfterJobFinishes, which the rules forbid; suspend is never removed by
    // a fix (whoever queues the RayJob sets it again), so the choice is the tenant's.
    rejects("spec.shutdownAfterJobFinishes", "true together with deletionStrategy.deletionRules",
            "a suspended RayJob cannot use deletion rules (suspend needs shutdownAfterJobFinishes): "
            "remove deletionStrategy, or remove suspend and set shutdownAfterJobFinishes: false; " +
                std::string(kKueueQueuedHint));
  } else if (rules && shutdown()) {
    // Every line at once: without shutdownAfterJobFinishes a TTL above 0 is refused.
    std::vector<Edit> edits = {Edit::set("spec.shutdownAfterJobFinishes", false)};
    std::string also;
    if (runs(Op::kTtl) && spec_.ttl_seconds_after_finished.value_or(0) > 0) {
      edits.push_back(Edit::remove("spec.ttlSecondsAfterFinished"));
      also += ", remove ttlSecondsAfterFinished";
    }
    rejects("spec.shutdownAfterJobFinishes", "true together with deletionStrategy.deletionRules",
            "set shutdownAfterJobFinishes: false" + also +
                "; the rules decide what is deleted and when",
            std::move(edits));
  }
  if (rules && legacy) {
    rejects("spec.deletionStrategy",
            "legacy onSuccess/onFailure and deletionRules cannot be used together",
            "keep only deletionRules",
            {Edit::remove("spec.deletionStrategy.onSuccess"),
             Edit::remove("spec.deletionStrategy.onFailure")});
  } else if (!rules && !legacy) {
    rejects("spec.deletionStrategy",
            "needs either both onSuccess and onFailure, or a non-empty deletionRules list",
            "add deletionRules, e.g. [{policy: DeleteSelf, condition: {jobStatus: SUCCEEDED, "
            "ttlSeconds: 60}}, {policy: DeleteSelf, condition: {jobStatus: FAILED, "
            "ttlSeconds: 3600}}]");
  }
  if (legacy) {
    legacy_deletion(ds);
  }
  if (rules) {
    deletion_rules(*ds.deletion_rules);
  }
}

void Checker::legacy_deletion(const DeletionStrategy& ds) {
  struct Side {
    bool present;
    const std::optional<std::string>& policy;
    std::string_view name;
  };
  const Side sides[] = {{ds.has_on_success, ds.on_success_policy, "onSuccess"},
                        {ds.has_on_failure, ds.on_failure_policy, "onFailure"}};
  bool complete = true;
  for (const Side& side : sides) {
    const std::string field = "spec.deletionStrategy." + std::string(side.name);
    if (!side.present) {
      rejects(field, "missing: the legacy form needs both onSuccess and onFailure",
              "add " + std::string(side.name) + ": {policy: DeleteSelf}, or use deletionRules",
              {Edit::set(field + ".policy", std::string("DeleteSelf"))});
      complete = false;
    } else if (!side.policy) {
      rejects(field + ".policy", "missing", "set policy: DeleteSelf",
              {Edit::set(field + ".policy", std::string("DeleteSelf"))});
      complete = false;
    } else if (!is_one_of(*side.policy, kDeletionPolicies)) {
      crd_rejects(field + ".policy", quoted(*side.policy) + " is not a deletion policy",
                  "use DeleteSelf (or DeleteCluster, DeleteWorkers, DeleteNone)",
                  {Edit::set(field + ".policy", std::string("DeleteSelf"))});
      complete = false;
    }
  }
  if (!complete) {
    return;
  }
  for (const Side& side : sides) {
    const std::string field = "spec.deletionStrategy." + std::string(side.name) + ".policy";
    policy_fits(field, *side.policy, true, {Edit::set(field, std::string("DeleteSelf"))});
  }
}

void Checker::deletion_rules(const std::vector<DeletionRule>& rules) {
  // A valid rule has one of three conditions and one of the four policies; per (condition,
  // policy) the first valid rule is kept. Conditions are listed in the order their names sort
  // ("jobDeploymentStatus Failed" < "jobStatus FAILED" < "jobStatus SUCCEEDED"), so that findings
  // come out in a fixed order.
  struct Seen {
    std::int64_t ttl = 0;
    std::size_t index = 0;
    bool set = false;
  };
  constexpr std::array<std::string_view, 3> kConditions = {
      "jobDeploymentStatus Failed", "jobStatus FAILED", "jobStatus SUCCEEDED"};
  std::array<std::array<Seen, kDeletionPolicies.size()>, kConditions.size()> seen{};
  auto policy_index = [](std::string_view policy) {
    return static_cast<std::size_t>(
        std::find(kDeletionPolicies.begin(), kDeletionPolicies.end(), policy) -
        kDeletionPolicies.begin());
  };
  const bool deployment_known = runs(Op::kDeploymentCondition);
  const RuleLookup lookup(rules, spec_);
  const StagedRules staged(rules);

  for (std::size_t i = 0; i < rules.size(); ++i) {
    const DeletionRule& r = rules[i];
    // Field paths are built only for findings.
    auto base = [i] { return "spec.deletionStrategy.deletionRules[" + std::to_string(i) + "]"; };
    auto cond = [&base] { return base() + ".condition"; };
    bool valid = true;
    if (!r.policy) {
      crd_rejects(base() + ".policy", "missing", "set policy: DeleteSelf",
                  rule_becomes(lookup, i, r.job_status, r.job_deployment_status, "DeleteSelf",
                               {Edit::set(base() + ".policy", std::string("DeleteSelf"))}));
      valid = false;
    } else if (!is_one_of(*r.policy, kDeletionPolicies)) {
      crd_rejects(base() + ".policy", quoted(*r.policy) + " is not a deletion policy",
                  "use DeleteSelf (or DeleteCluster, DeleteWorkers, DeleteNone)",
                  rule_becomes(lookup, i, r.job_status, r.job_deployment_status, "DeleteSelf",
                               {Edit::set(base() + ".policy", std::string("DeleteSelf"))}));
      valid = false;
    }
    if (!r.has_condition) {
      crd_rejects(cond(), "missing",
                  "set condition: {jobStatus: SUCCEEDED or FAILED, ttlSeconds: N}");
      continue;
    }
    if (r.job_deployment_status && !deployment_known) {
      add(cond() + ".jobDeploymentStatus",
          "the KubeRay " + ver_ +
              " API does not know this field (it exists from 1.6): the apiserver prunes it or "
              "the operator ignores it, so the rule cannot match; use jobStatus: FAILED (in " +
              ver_ + " a deployment that fails before the job starts is not deleted)",
          rule_becomes(lookup, i, "FAILED", std::nullopt, r.policy,
                       {Edit::remove(cond() + ".jobDeploymentStatus"),
                        Edit::set(cond() + ".jobStatus", std::string("FAILED"))}));
      valid = false;
    }
    if (!deployment_known && !r.job_status) {
      crd_rejects(cond() + ".jobStatus", "missing (required in KubeRay " + ver_ + ")",
                  "set jobStatus: SUCCEEDED or FAILED");
      valid = false;
    } else if (deployment_known && r.job_status && r.job_deployment_status) {
      crd_rejects(cond(), "sets both jobStatus and jobDeploymentStatus",
                  "split it into two rules, one per field");
      valid = false;
    } else if (deployment_known && !r.job_status && !r.job_deployment_status) {
      crd_rejects(cond(), "sets neither jobStatus nor jobDeploymentStatus",
                  "set jobStatus: SUCCEEDED or FAILED, or jobDeploymentStatus: Failed");
      valid = false;
    }
    if (r.job_status && *r.job_status != "SUCCEEDED" && *r.job_status != "FAILED") {
      crd_rejects(cond() + ".jobStatus", quoted(*r.job_status) + " is not SUCCEEDED or FAILED",
                  "use jobStatus: SUCCEEDED or FAILED", respelled(rules, lookup, i, *r.job_status));
      valid = false;
    }
    if (deployment_known && r.job_deployment_status && *r.job_deployment_status != "Failed") {
      crd_rejects(cond() + ".jobDeploymentStatus",
                  quoted(*r.job_deployment_status) + " is not Failed",
                  "use jobDeploymentStatus: Failed",
                  rule_becomes(lookup, i, r.job_status, "Failed", r.policy,
                               {Edit::set(cond() + ".jobDeploymentStatus", std::string("Failed"))}));
      valid = false;
    }
    const std::int64_t ttl = r.ttl_seconds.value_or(0);
    if (ttl < 0) {
      rejects(cond() + ".ttlSeconds", std::to_string(ttl) + " is negative",
              "set ttlSeconds to 0 or more", {Edit::set(cond() + ".ttlSeconds", 0LL)});
      valid = false;
    }
    if (!valid) {
      continue;
    }
    const std::string& p = *r.policy;
    // The operator skips a rule that does not fit (its TTL takes no part in the order check).
    // A rule fixed into DeleteSelf gets the TTL a DeleteSelf rule needs in the same round
    // (reap-ttl would ask for it in the next).
    std::vector<Edit> to_self = {Edit::set(base() + ".policy", std::string("DeleteSelf"))};
    if (p != "DeleteSelf") {
      for (Edit& e : delete_self_ttl_fix(spec_, policy_, mode_, i, staged)) {
        to_self.push_back(std::move(e));
      }
    }
    if (!policy_fits(base() + ".policy", p, false,
                     rule_becomes(lookup, i, r.job_status, r.job_deployment_status, "DeleteSelf",
                                  std::move(to_self)))) {
      continue;
    }
    // Valid here: exactly one of jobStatus (SUCCEEDED or FAILED) and jobDeploymentStatus (Failed).
    const std::size_t c = !r.job_status ? 0 : *r.job_status == "FAILED" ? 1 : 2;
    assert(r.job_status || *r.job_deployment_status == "Failed");
    assert(policy_index(p) < kDeletionPolicies.size());
    Seen& slot = seen[c][policy_index(p)];
    if (slot.set) {
      rejects(base(),
              "duplicates deletionRules[" + std::to_string(slot.index) + "] (" + p + " for " +
                  std::string(kConditions[c]) + ")",
              "keep one rule per condition and policy", {Edit::remove(base())});
      continue;
    }
    slot = {ttl, i, true};
  }

  // Per condition, TTLs must not decrease along DeleteWorkers -> DeleteCluster -> DeleteSelf.
  constexpr std::array<std::string_view, 3> kOrder = {"DeleteWorkers", "DeleteCluster",
                                                      "DeleteSelf"};
  for (std::size_t c = 0; c < kConditions.size(); ++c) {
    // Measured against the longest TTL before it, not only the one just before (the same verdict
    // while the order holds), so that the fixes mend a whole decreasing chain in one round.
    std::int64_t longest = -1;
    std::string_view longest_name;
    for (std::string_view name : kOrder) {
      const Seen& it = seen[c][policy_index(name)];
      if (!it.set) {
        continue;
      }
      if (it.ttl < longest) {
        const std::string field = "spec.deletionStrategy.deletionRules[" +
                                  std::to_string(it.index) + "].condition.ttlSeconds";
        // DeleteSelf's TTL is reap-ttl's too: the fix both rules give (policy bounds included).
        rejects(field,
                "for " + std::string(kConditions[c]) + ", the " + std::string(name) + " TTL (" +
                    std::to_string(it.ttl) + ") is shorter than the " + std::string(longest_name) +
                    " TTL (" + std::to_string(longest) + ")",
                "make TTLs non-decreasing in the order DeleteWorkers <= DeleteCluster <= "
                "DeleteSelf",
                name == "DeleteSelf"
                    ? delete_self_ttl_fix(spec_, policy_, mode_, it.index, staged)
                    : std::vector<Edit>{Edit::set(field, static_cast<long long>(longest))});
      } else {
        longest = it.ttl;
        longest_name = name;
      }
    }
  }
}

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

void Checker::gated_options(const std::string& base) {
  if (runs(Op::kIdleTimeouts) && rc_->autoscaler_options &&
      rc_->autoscaler_options->idle_timeout_seconds &&
      *rc_->autoscaler_options->idle_timeout_seconds < 0) {
    rejects(base + ".autoscalerOptions.idleTimeoutSeconds",
            std::to_string(*rc_->autoscaler_options->idle_timeout_seconds) + " is negative",
            "set idleTimeoutSeconds to 0 or more",
            {Edit::set(base + ".autoscalerOptions.idleTimeoutSeconds", 0LL)});
  }
  if (runs(Op::kAutoscalerStartCmdEnv) && rc_->autoscaler_options) {
    const std::vector<EnvVar>& env = rc_->autoscaler_options->env;
    if (find_env(env, "KUBERAY_GEN_AUTOSCALER_START_CMD") != nullptr) {
      rejects(base + ".autoscalerOptions.env",
              "KUBERAY_GEN_AUTOSCALER_START_CMD is managed by KubeRay",
              "remove it from autoscalerOptions.env",
              remove_items(base + ".autoscalerOptions.env", env,
                           "KUBERAY_GEN_AUTOSCALER_START_CMD"));
    }
  }
  // In clusterSelector mode the operator creates no RayCluster, so nothing checks it.
  if (runs(Op::kUpgradeStrategy) && rc_->upgrade_strategy_type && !selector_mode()) {
    rejects(base + ".upgradeStrategy.type",
            "a RayJob's RayCluster cannot set an upgrade strategy (the operator rejects the "
            "RayCluster it creates, and the RayJob waits in Initializing)",
            "remove upgradeStrategy", {Edit::remove(base + ".upgradeStrategy")});
  }
  if (runs(Op::kGcsBackend) && rc_->has_gcs_fault_tolerance_options) {
    gcs_backend(base);
  }
  if (!runs(Op::kGatedClusterOptions)) {
    return;
  }
  if (rc_->has_history_server_options) {
    if (!gate("RayClusterHistoryServer")) {
      rejects(base + ".historyServerOptions",
              "needs the RayClusterHistoryServer feature gate, which this operator runs with off",
              "remove historyServerOptions", {Edit::remove(base + ".historyServerOptions")});
    } else if (!rc_->has_collector_options) {
      rejects(base + ".historyServerOptions.collectorOptions", "must be set",
              "set collectorOptions with an image and its storage env");
    } else {
      if (!rc_->collector_image || rc_->collector_image->empty()) {
        rejects(base + ".historyServerOptions.collectorOptions.image", "must be set",
                "set the collector image");
      }
      if (runs(Op::kCollectorOptions)) {
        collector(base);
      }
    }
  }
  if (rc_->has_network_policy && !gate("RayClusterNetworkPolicy")) {
    rejects(base + ".networkPolicy",
            "needs the RayClusterNetworkPolicy feature gate, which this operator runs with off",
            "remove networkPolicy", {Edit::remove(base + ".networkPolicy")});
  } else if (rc_->has_network_policy) {
    network_policy(base + ".networkPolicy");
  }
  if (rc_->has_tls_options) {
    if (!gate("RayClusterMTLS")) {
      rejects(base + ".tlsOptions",
              "needs the RayClusterMTLS feature gate, which this operator runs with off",
              "remove tlsOptions", {Edit::remove(base + ".tlsOptions")});
    } else if (runs(Op::kTlsManagedByOperator) && rc_->tls_enabled.value_or(false)) {
      tls_managed(base);
    }
  }
}

// validateGcsFaultToleranceBackend. rocksdb: the gate, no Redis fields, claimName without the
// fields of an operator-managed PVC, and nothing of what the operator adds to the head Pod (the
// RAY_gcs_storage* env vars, the gcs-storage volume mounted at /data/gcs). Any other backend
// (redis, the default): no storage.
void Checker::gcs_backend(const std::string& base) {
  const std::string gcs = base + ".gcsFaultToleranceOptions";
  if (rc_->gcs_ft_backend != "rocksdb") {
    if (rc_->gcs_ft_has_storage) {
      rejects(gcs + ".storage", "storage applies only to the rocksdb backend", "remove storage");
    }
    return;
  }
  if (!gate("GCSFaultToleranceEmbeddedStorage")) {
    rejects(gcs + ".backend",
            "rocksdb needs the GCSFaultToleranceEmbeddedStorage feature gate, which this "
            "operator runs with off",
            "use the redis backend (the default)");
    return;
  }
  for (const std::string& f : rc_->gcs_ft_redis_fields) {
    rejects(gcs + "." + f, "not allowed with the rocksdb backend",
            "remove it (the embedded store needs no Redis)");
  }
  if (!rc_->gcs_ft_storage_claim_name.empty() && !rc_->gcs_ft_storage_pvc_fields.empty()) {
    std::string fields;
    for (const std::string& f : rc_->gcs_ft_storage_pvc_fields) {
      fields += (fields.empty() ? "" : ", ") + f;
    }
    rejects(gcs + ".storage.claimName",
            "an existing claim cannot be combined with " + fields +
                " (size, storageClassName and accessModes describe a PVC the operator creates)",
            "keep claimName and remove " + fields + ", or remove claimName");
  }
  const PodTemplate& head = rc_->head.pod_template;
  if (head.containers.empty()) {
    return;
  }
  const std::string container = base + ".headGroupSpec.template.spec.containers[0]";
  for (std::string_view name : {"RAY_gcs_storage", "RAY_gcs_storage_path"}) {
    if (env_var(head, name) != nullptr) {
      rejects(container + ".env",
              std::string(name) + " is managed by KubeRay with the rocksdb backend", "remove it",
              remove_items(container + ".env", head.containers.front().env, name));
    }
  }
  const std::vector<VolumeMount>& mounts = head.containers.front().volume_mounts;
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    if (mounts[i].name == "gcs-storage" || mounts[i].mount_path == "/data/gcs") {
      rejects(container + ".volumeMounts[" + std::to_string(i) + "]",
              "the volume mount " + quoted(mounts[i].name) + " at " +
                  quoted(mounts[i].mount_path) +
                  " takes the name gcs-storage or the path /data/gcs, which the operator uses "
                  "for the rocksdb store",
              "rename it and mount it elsewhere, or remove it");
    }
  }
  for (std::size_t i = 0; i < head.volume_names.size(); ++i) {
    if (head.volume_names[i] == "gcs-storage") {
      rejects(base + ".headGroupSpec.template.spec.volumes[" + std::to_string(i) + "].name",
              "the volume name gcs-storage is the operator's for the rocksdb store",
              "rename the volume (and its mounts), or remove it");
    }
  }
}

// validateCollectorOptions (after the image) and the collector container's name: env vars the
// operator injects may not be set; STORAGE_BACKEND must be a literal and its backend's settings
// present (a value or valueFrom); no head or worker container may be named ray-history-collector.
void Checker::collector(const std::string& base) {
  const std::string cp = base + ".historyServerOptions.collectorOptions";
  const std::vector<EnvVar>& env = rc_->collector_env;
  // The operator keys the list by name, the last entry winning.
  auto last = [&env](std::string_view name) -> const EnvVar* {
    const EnvVar* found = nullptr;
    for (const EnvVar& e : env) {
      found = e.name == name ? &e : found;
    }
    return found;
  };
  auto has_value = [&last](std::string_view name) {
    const EnvVar* e = last(name);
    return e != nullptr && (!e->value.value_or("").empty() || e->value_from);
  };
  constexpr std::array<std::string_view, 8> kInjected = {
      "POD_IP",   "FQ_RAY_IP",  "RAY_CLUSTER_NAME", "RAY_CLUSTER_NAMESPACE",
      "RAY_ROLE", "OWNER_KIND", "OWNER_NAME",       "EVENTS_PORT"};
  for (std::string_view name : kInjected) {
    if (last(name) != nullptr) {
      rejects(cp + ".env", std::string(name) + " is injected by KubeRay into the collector",
              "remove it", remove_items(cp + ".env", env, name));
    }
  }
  auto needs = [&](std::string_view name, const std::string& when) {
    if (!has_value(name)) {
      rejects(cp + ".env", std::string(name) + " must be set " + when,
              "add " + std::string(name) + " with a value or valueFrom");
    }
  };
  const EnvVar* backend = last("STORAGE_BACKEND");
  if (backend == nullptr || backend->value.value_or("").empty()) {
    rejects(cp + ".env", "STORAGE_BACKEND must be set with a literal value",
            "add STORAGE_BACKEND with value GCS, S3, AZUREBLOB or ALIYUNOSS, and that backend's "
            "settings");
  } else {
    const std::string kind = go_upper(*backend->value);
    if (kind == "GCS") {
      needs("GCS_BUCKET", "when STORAGE_BACKEND is GCS");
    } else if (kind == "S3") {
      needs("S3_REGION", "when STORAGE_BACKEND is S3");
    } else if (kind == "AZUREBLOB") {
      const EnvVar* mode_env = last("AZURE_STORAGE_AUTH_MODE");
      const std::string mode =
          mode_env != nullptr ? go_lower(go_trim_space(mode_env->value.value_or(""))) : "";
      if (mode == "connection_string") {
        needs("AZURE_STORAGE_CONNECTION_STRING",
              "when STORAGE_BACKEND is AZUREBLOB and AZURE_STORAGE_AUTH_MODE is connection_string");
      } else if (mode == "workload_identity" || mode == "default") {
        needs("AZURE_STORAGE_ACCOUNT_URL",
              "when STORAGE_BACKEND is AZUREBLOB and AZURE_STORAGE_AUTH_MODE is " + mode);
      } else if (!has_value("AZURE_STORAGE_CONNECTION_STRING") &&
                 !has_value("AZURE_STORAGE_ACCOUNT_URL")) {
        rejects(cp + ".env",
                "AZURE_STORAGE_CONNECTION_STRING or AZURE_STORAGE_ACCOUNT_URL must be set when "
                "STORAGE_BACKEND is AZUREBLOB",
                "add one of them with a value or valueFrom");
      }
    } else if (kind == "ALIYUNOSS") {
      for (std::string_view name : {"OSS_BUCKET", "OSS_ENDPOINT", "OSS_REGION"}) {
        needs(name, "when STORAGE_BACKEND is ALIYUNOSS");
      }
    }
  }
  auto containers = [&](const PodTemplate& t, const std::string& group) {
    for (std::size_t i = 0; i < t.containers.size(); ++i) {
      if (t.containers[i].name == "ray-history-collector") {
        rejects(group + ".template.spec.containers[" + std::to_string(i) + "].name",
                "ray-history-collector is the name of the collector container the operator adds",
                "rename the container");
      }
    }
  };
  containers(rc_->head.pod_template, base + ".headGroupSpec");
  for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
    containers(rc_->worker_groups[i].pod_template, worker_group_field(i));
  }
}

// validateTLSOptions, with tlsOptions.enabled true: the Ray container of the head and of each
// worker group, and the autoscaler, set no TLS env var and mount nothing named ray-tls or at
// /etc/ray/tls; the operator adds all of these.
void Checker::tls_managed(const std::string& base) {
  constexpr std::array<std::string_view, 4> kTlsEnv = {"RAY_USE_TLS", "RAY_TLS_SERVER_CERT",
                                                       "RAY_TLS_SERVER_KEY", "RAY_TLS_CA_CERT"};
  auto mounts = [&](const std::vector<VolumeMount>& list, const std::string& field) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string item = field + "[" + std::to_string(i) + "]";
      if (list[i].name == "ray-tls") {
        rejects(item, "the volume mount name ray-tls is the operator's TLS volume",
                "rename the mount, or remove it (tlsOptions mounts the certificates)");
      } else if (list[i].mount_path == "/etc/ray/tls") {
        rejects(item, "mounted at /etc/ray/tls, where the operator mounts the TLS certificates",
                "mount it elsewhere, or remove it (tlsOptions mounts the certificates)");
      }
    }
  };
  auto scan = [&](const PodTemplate& t, const std::string& group) {
    if (t.containers.empty()) {
      return;
    }
    const std::string container = group + ".template.spec.containers[0]";
    for (std::string_view name : kTlsEnv) {
      if (env_var(t, name) != nullptr) {
        rejects(container + ".env",
                std::string(name) + " is managed by the operator when tlsOptions is set",
                "remove it", remove_items(container + ".env", t.containers.front().env, name));
      }
    }
    mounts(t.containers.front().volume_mounts, container + ".volumeMounts");
  };
  scan(rc_->head.pod_template, base + ".headGroupSpec");
  for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
    scan(rc_->worker_groups[i].pod_template, worker_group_field(i));
  }
  if (!rc_->autoscaler_options) {
    return;
  }
  const std::vector<EnvVar>& env = rc_->autoscaler_options->env;
  for (std::string_view name : kTlsEnv) {
    if (find_env(env, name) != nullptr) {
      rejects(base + ".autoscalerOptions.env",
              std::string(name) + " is managed by the operator when tlsOptions is set",
              "remove it", remove_items(base + ".autoscalerOptions.env", env, name));
    }
  }
  mounts(rc_->autoscaler_options->volume_mounts, base + ".autoscalerOptions.volumeMounts");
}

// validateNetworkPolicy: rule lists only for the direction the mode restricts; every worker group
// name a DNS-1123 label (it is part of the NetworkPolicy's name); workerGroups entries name
// existing groups.
void Checker::network_policy(const std::string& np) {
  const NetworkPolicy& p = rc_->network_policy;
  const std::string mode = p.mode.value_or("DenyAll");
  auto directions = [&](const NetworkPolicyRules& r, const std::string& field) {
    if (mode == "DenyAllEgress" && r.ingress) {
      rejects(field + ".ingressRules", "not allowed with mode DenyAllEgress (ingress is not "
              "restricted)", "remove ingressRules, or use mode DenyAll");
    }
    if (mode == "DenyAllIngress" && r.egress) {
      rejects(field + ".egressRules", "not allowed with mode DenyAllIngress (egress is not "
              "restricted)", "remove egressRules, or use mode DenyAll");
    }
  };
  if (p.head) {
    directions(*p.head, np + ".head");
  }
  if (p.worker) {
    directions(*p.worker, np + ".worker");
  }
  bool names_ok = true;
  for (std::size_t i = 0; i < rc_->worker_groups.size() && names_ok; ++i) {
    const std::string& name = rc_->worker_groups[i].group_name;
    if (name.size() > 63 || !is_dns1123_subdomain(name) || name.find('.') != std::string::npos) {
      rejects(worker_group_field(i) + ".groupName",
              quoted(name) + " is not a DNS-1123 label, which networkPolicy needs (the group name "
              "is part of the NetworkPolicy's name)",
              "use lowercase letters, digits and '-'");
      names_ok = false;  // the operator stops at the first
    }
  }
  if (!names_ok) {
    return;
  }
  for (std::size_t i = 0; i < p.worker_groups.size(); ++i) {
    const auto& [name, rules] = p.worker_groups[i];
    const std::string field = np + ".workerGroups[" + std::to_string(i) + "]";
    directions(rules, field);
    bool found = false;
    for (const WorkerGroup& g : rc_->worker_groups) {
      found = found || g.group_name == name;
    }
    if (!found) {
      rejects(field + ".groupName", quoted(name) + " names no worker group",
              "use the groupName of one of workerGroupSpecs");
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

}  // namespace

bool fixed_to_delete_self(const std::optional<std::string>& policy, const RayJobSpec& spec) {
  const bool selector = spec.cluster_selector && !spec.cluster_selector->empty();
  const RayClusterSpec* rc = spec.ray_cluster_spec ? &*spec.ray_cluster_spec : nullptr;
  return !policy || !is_one_of(*policy, kDeletionPolicies) ||
         (selector && (*policy == "DeleteCluster" || *policy == "DeleteWorkers")) ||
         (*policy == "DeleteWorkers" && is_autoscaling(rc));
}

void check_kuberay_schema(const RuleContext& ctx, Findings& out) { Checker(ctx, out).run(); }

}  // namespace rjg::policy
