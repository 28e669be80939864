// kuberay-schema: the RayJob passes everything the pinned KubeRay version checks after admission
// (ValidateRayJobMetadata, ValidateRayJobSpec, the RayJob-relevant part of ValidateRayClusterSpec,
// and the CRD's own enums and CEL rules), and uses no field that version does not know.
// Whatever the operator rejects never runs, yet the RayJob stays and holds quota: in 1.5+ in
// JobDeploymentStatus ValidationFailed, in 1.1-1.4 as an endless requeue (kuberay-rayjob.md §7).
// Which submissionMode values a version knows is submission-mode's, so it is reported once.
// A field whose value is what the operator does without it (backoffLimit 0, numOfHosts 1) is not
// reported as unknown: a CRD newer than the operator writes exactly those as defaults.
#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/field_paths.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

constexpr std::size_t kMaxRayJobNameLength = 47;  // 53 - 6: the RayCluster name adds a suffix
constexpr std::string_view kClusterNameKey = "ray.io/cluster";

constexpr std::array<std::string_view, 4> kDeletionPolicies = {"DeleteCluster", "DeleteWorkers",
                                                               "DeleteSelf", "DeleteNone"};

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

// A "generic" version as k8s.io/apimachinery ParseGeneric reads it: optional "v", at least two
// dot-separated numbers, then optionally anything not starting with a digit or dot.
std::optional<std::vector<long long>> parse_generic_version(std::string_view s) {
  if (!s.empty() && s.front() == 'v') {
    s.remove_prefix(1);
  }
  std::vector<long long> parts;
  std::size_t i = 0;
  while (true) {
    const std::size_t start = i;
    long long n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 9) {
      n = n * 10 + (s[i] - '0');
      ++i;
    }
    if (i == start) {
      return std::nullopt;
    }
    parts.push_back(n);
    if (i < s.size() && s[i] == '.') {
      ++i;
      continue;
    }
    break;
  }
  if (parts.size() < 2 || (i < s.size() && s[i] >= '0' && s[i] <= '9')) {
    return std::nullopt;
  }
  return parts;
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

bool is_autoscaler_v2(const RayClusterSpec* rc) {
  return is_autoscaling(rc) && rc->autoscaler_options && rc->autoscaler_options->version == "v2";
}

bool restart_policy_ok(const PodTemplate& t) {
  return !t.restart_policy || t.restart_policy->empty() || *t.restart_policy == "Never";
}

// Everything one check needs, and the wording shared by all messages.
class Checker {
 public:
  Checker(const RuleContext& ctx, Findings& out)
      : job_(ctx.job),
        spec_(ctx.job.spec),
        policy_(ctx.policy),
        v_(ctx.policy.kuberay.version),
        ver_(std::to_string(v_.major) + "." + std::to_string(v_.minor)),
        rc_(ctx.job.spec.ray_cluster_spec ? &*ctx.job.spec.ray_cluster_spec : nullptr),
        out_(out) {}

  void run();

 private:
  bool since(int minor) const { return v_ >= KubeRayVersion{1, minor}; }
  bool shutdown() const { return spec_.shutdown_after_job_finishes.value_or(false); }
  bool selector_mode() const { return spec_.cluster_selector && !spec_.cluster_selector->empty(); }

  void add(std::string field, std::string message) {
    out_.push_back(Finding{RuleId::kKuberaySchema, Finding::Kind::kViolation, std::move(field),
                           std::move(message)});
  }
  // "<what is wrong>; <what the operator does>; <what to do>" for an operator-side rejection.
  void rejects(std::string field, std::string_view wrong, std::string_view fix) {
    std::string consequence;
    if (since(5)) {
      consequence = "the KubeRay " + ver_ +
                    " operator rejects this RayJob after admission and it stays in "
                    "ValidationFailed, holding quota";
    } else {
      consequence = "the KubeRay " + ver_ +
                    " operator rejects this RayJob after admission and requeues it forever "
                    "(Warning event InvalidRayJobSpec), so it never runs and holds quota";
    }
    add(std::move(field), std::string(wrong) + "; " + consequence + "; " + std::string(fix));
  }
  // For what the CRD schema (enum, required, CEL) refuses. The apiserver checks these before the
  // webhook, so they show up in `check` or when the installed CRD differs from the operator.
  void crd_rejects(std::string field, std::string_view wrong, std::string_view fix) {
    add(std::move(field), std::string(wrong) + "; the KubeRay " + ver_ +
                              " CRD refuses this RayJob at the apiserver; " + std::string(fix));
  }
  // For a field the pinned version does not know.
  void unknown(std::string field, std::string_view since_version, std::string_view instead) {
    add(std::move(field), "the KubeRay " + ver_ + " API does not know this field (it exists from " +
                              std::string(since_version) +
                              "): the apiserver prunes it or the operator ignores it, so it "
                              "has no effect; " +
                              std::string(instead));
  }

  void metadata();
  void unknown_fields();
  void suspend_and_ttl();
  void deletion_policy();
  void deletion_strategy();
  void legacy_deletion(const DeletionStrategy& ds);
  void deletion_rules(const std::vector<DeletionRule>& rules);
  void cluster_selection();
  void submission_modes();
  void cluster_spec();
  void scalars();
  void crd_fields();

  const RayJob& job_;
  const RayJobSpec& spec_;
  const PolicyConfig& policy_;
  const KubeRayVersion v_;
  const std::string ver_;
  const RayClusterSpec* rc_;
  Findings& out_;
};

void Checker::run() {
  unknown_fields();
  crd_fields();
  metadata();
  // KubeRay 1.0 validates nothing after admission (kuberay-rayjob.md §7.1).
  if (!since(1)) {
    return;
  }
  suspend_and_ttl();
  deletion_policy();
  deletion_strategy();
  cluster_selection();
  submission_modes();
  cluster_spec();
  scalars();
}

void Checker::metadata() {
  const std::string& name = job_.metadata.name;
  // An empty name is a generateName manifest in `check`: the apiserver picks it later.
  if (!since(4) || name.empty()) {
    return;
  }
  auto consequence = [this] {
    return since(5) ? "the KubeRay " + ver_ +
                          " operator rejects this RayJob after admission and it stays in "
                          "ValidationFailed, holding quota"
                    : "the KubeRay " + ver_ +
                          " operator rejects this RayJob after admission and requeues it forever "
                          "(Warning event InvalidRayJobMetadata), holding quota";
  };
  if (name.size() > kMaxRayJobNameLength) {
    add("metadata.name", quoted(name) + " is " + std::to_string(name.size()) +
                             " characters, more than the 47 KubeRay allows (the RayCluster name "
                             "adds a 6-character suffix); " +
                             consequence() + "; use a name of at most 47 characters");
  }
  if (!is_dns1035_label(name)) {
    add("metadata.name",
        quoted(name) + " is not a DNS-1035 label; " + consequence() +
            "; use lowercase letters, digits and '-', starting with a letter and ending with a "
            "letter or digit");
  }
}

void Checker::unknown_fields() {
  if (!since(1)) {
    if (spec_.active_deadline_seconds) {
      unknown("spec.activeDeadlineSeconds", "1.1",
              "KubeRay 1.0 has no run deadline; remove activeDeadlineSeconds");
    }
    if (rc_ != nullptr) {
      for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
        const auto& hosts = rc_->worker_groups[i].num_of_hosts;
        // 1 is what the operator does without the field, and a newer CRD writes it as a default.
        if (hosts && *hosts != 1) {
          unknown(worker_group_field(i) + ".numOfHosts", "1.1",
                  "every replica is one Pod here; remove numOfHosts and scale replicas");
        }
      }
    }
  }
  if (!since(2)) {
    // 0 is both "no retry" and a newer CRD's default, so only a real retry count is reported.
    if (spec_.backoff_limit && *spec_.backoff_limit != 0) {
      unknown("spec.backoffLimit", "1.2",
              "the operator does not retry RayJobs; remove backoffLimit and resubmit on failure");
    }
    if (spec_.has_submitter_config) {
      unknown("spec.submitterConfig", "1.2",
              "the submitter Job's backoffLimit is fixed at 2; remove submitterConfig");
    }
  }
  if (!since(3)) {
    if (spec_.managed_by) {
      unknown("spec.managedBy", "1.3", "remove managedBy");
    }
    if (rc_ != nullptr && rc_->managed_by) {
      unknown("spec.rayClusterSpec.managedBy", "1.3", "remove managedBy");
    }
    if (rc_ != nullptr) {
      for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
        if (rc_->worker_groups[i].suspend.value_or(false)) {
          unknown(worker_group_field(i) + ".suspend", "1.3",
                  "remove suspend and set replicas instead");
        }
      }
    }
  }
  if (!since(6) && spec_.pre_running_deadline_seconds) {
    unknown("spec.preRunningDeadlineSeconds", "1.6",
            since(1) ? "use activeDeadlineSeconds, which also ends a run that never starts"
                     : "remove preRunningDeadlineSeconds");
  }
  if (spec_.deletion_policy && (!since(3) || since(5))) {
    if (since(5)) {
      add("spec.deletionPolicy",
          "the KubeRay " + ver_ +
              " API does not know this field (it existed only in 1.3 and 1.4): the apiserver "
              "prunes it, so it has no effect; use deletionStrategy.deletionRules, e.g. "
              "{policy: DeleteSelf, condition: {jobStatus: SUCCEEDED, ttlSeconds: 60}}");
    } else {
      unknown("spec.deletionPolicy", "1.3",
              "set shutdownAfterJobFinishes: true and remove deletionPolicy");
    }
  }
  if (spec_.deletion_strategy && !since(5)) {
    unknown("spec.deletionStrategy", "1.5",
            since(3) ? "use deletionPolicy: DeleteSelf with shutdownAfterJobFinishes: true"
                     : "set shutdownAfterJobFinishes: true and remove deletionStrategy");
  }
}

void Checker::suspend_and_ttl() {
  if (spec_.suspend.value_or(false) && !shutdown()) {
    rejects("spec.suspend", "suspend is true but shutdownAfterJobFinishes is not",
            "set shutdownAfterJobFinishes: true or remove suspend");
  }
  if (!since(4) || !spec_.ttl_seconds_after_finished) {
    return;
  }
  const std::int64_t ttl = *spec_.ttl_seconds_after_finished;
  if (ttl < 0) {
    rejects("spec.ttlSecondsAfterFinished", std::to_string(ttl) + " is negative",
            "set ttlSecondsAfterFinished to 0 or more");
  } else if (ttl > 0 && !shutdown()) {
    rejects("spec.ttlSecondsAfterFinished",
            std::to_string(ttl) + " is set but shutdownAfterJobFinishes is not true",
            "set shutdownAfterJobFinishes: true, or remove ttlSecondsAfterFinished");
  }
}

void Checker::deletion_policy() {
  if (!spec_.deletion_policy || !since(3) || since(5)) {
    return;
  }
  const std::string field = "spec.deletionPolicy";
  const std::string& value = *spec_.deletion_policy;
  if (!policy_.kuberay.ray_job_deletion_policy_gate) {
    rejects(field, "needs the RayJobDeletionPolicy feature gate, which this operator runs with off",
            "remove deletionPolicy (and ask the platform team if DeleteSelf is needed)");
    return;
  }
  if (!is_one_of(value, kDeletionPolicies)) {
    crd_rejects(field, quoted(value) + " is not a deletion policy",
                "use DeleteSelf (or DeleteCluster, DeleteWorkers, DeleteNone)");
    return;
  }
  if (selector_mode() && (value == "DeleteCluster" || value == "DeleteWorkers")) {
    rejects(field, value + " cannot be used with clusterSelector (the cluster is not the RayJob's)",
            "use DeleteSelf or DeleteNone");
  }
  if (value == "DeleteWorkers" && is_autoscaling(rc_)) {
    rejects(field, "DeleteWorkers does not work with enableInTreeAutoscaling",
            "use DeleteCluster or DeleteSelf");
  }
  if (value == "DeleteNone" && shutdown()) {
    rejects(field, "DeleteNone contradicts shutdownAfterJobFinishes: true",
            "use DeleteSelf, or set shutdownAfterJobFinishes: false");
  }
}

void Checker::deletion_strategy() {
  if (!spec_.deletion_strategy || !since(5)) {
    return;
  }
  const DeletionStrategy& ds = *spec_.deletion_strategy;
  if (!policy_.kuberay.ray_job_deletion_policy_gate) {
    rejects("spec.deletionStrategy",
            "needs the RayJobDeletionPolicy feature gate, which this operator runs with off",
            "remove deletionStrategy (and ask the platform team to enable the gate)");
    return;
  }
  const bool legacy = ds.has_on_success || ds.has_on_failure;
  const bool rules = ds.deletion_rules && !ds.deletion_rules->empty();
  if (ds.deletion_rules && ds.deletion_rules->empty()) {
    crd_rejects("spec.deletionStrategy.deletionRules", "is an empty list (minItems is 1)",
                "add at least one rule, e.g. {policy: DeleteSelf, condition: {jobStatus: "
                "SUCCEEDED, ttlSeconds: 60}}");
  }
  if (rules && shutdown()) {
    rejects("spec.shutdownAfterJobFinishes", "true together with deletionStrategy.deletionRules",
            "set shutdownAfterJobFinishes: false; the rules decide what is deleted and when");
  }
  if (rules && legacy) {
    rejects("spec.deletionStrategy",
            "legacy onSuccess/onFailure and deletionRules cannot be used together",
            "keep only deletionRules");
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
              "add " + std::string(side.name) + ": {policy: DeleteSelf}, or use deletionRules");
      complete = false;
    } else if (!side.policy) {
      rejects(field + ".policy", "missing", "set policy: DeleteSelf");
      complete = false;
    } else if (!is_one_of(*side.policy, kDeletionPolicies)) {
      crd_rejects(field + ".policy", quoted(*side.policy) + " is not a deletion policy",
                  "use DeleteSelf (or DeleteCluster, DeleteWorkers, DeleteNone)");
      complete = false;
    }
  }
  if (!complete) {
    return;
  }
  for (const Side& side : sides) {
    const std::string field = "spec.deletionStrategy." + std::string(side.name) + ".policy";
    const std::string& p = *side.policy;
    if (selector_mode() && (p == "DeleteCluster" || p == "DeleteWorkers")) {
      rejects(field, p + " cannot be used with clusterSelector", "use DeleteSelf or DeleteNone");
    }
    if (p == "DeleteWorkers" && is_autoscaling(rc_)) {
      rejects(field, "DeleteWorkers does not work with enableInTreeAutoscaling",
              "use DeleteCluster or DeleteSelf");
    }
    if (p == "DeleteNone" && shutdown()) {
      rejects(field, "DeleteNone contradicts shutdownAfterJobFinishes: true",
              "use DeleteSelf, or set shutdownAfterJobFinishes: false");
    }
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
  const bool deployment_known = since(6);

  for (std::size_t i = 0; i < rules.size(); ++i) {
    const DeletionRule& r = rules[i];
    // Field paths are built only for findings.
    auto base = [i] { return "spec.deletionStrategy.deletionRules[" + std::to_string(i) + "]"; };
    auto cond = [&base] { return base() + ".condition"; };
    bool valid = true;
    if (!r.policy) {
      crd_rejects(base() + ".policy", "missing", "set policy: DeleteSelf");
      valid = false;
    } else if (!is_one_of(*r.policy, kDeletionPolicies)) {
      crd_rejects(base() + ".policy", quoted(*r.policy) + " is not a deletion policy",
                  "use DeleteSelf (or DeleteCluster, DeleteWorkers, DeleteNone)");
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
              ver_ + " a deployment that fails before the job starts is not deleted)");
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
                  "use jobStatus: SUCCEEDED or FAILED");
      valid = false;
    }
    if (deployment_known && r.job_deployment_status && *r.job_deployment_status != "Failed") {
      crd_rejects(cond() + ".jobDeploymentStatus",
                  quoted(*r.job_deployment_status) + " is not Failed",
                  "use jobDeploymentStatus: Failed");
      valid = false;
    }
    const std::int64_t ttl = r.ttl_seconds.value_or(0);
    if (ttl < 0) {
      rejects(cond() + ".ttlSeconds", std::to_string(ttl) + " is negative",
              "set ttlSeconds to 0 or more");
      valid = false;
    }
    if (!valid) {
      continue;
    }
    const std::string& p = *r.policy;
    if (selector_mode() && (p == "DeleteCluster" || p == "DeleteWorkers")) {
      rejects(base() + ".policy", p + " cannot be used with clusterSelector",
              "use DeleteSelf or DeleteNone");
      continue;
    }
    if (p == "DeleteWorkers" && is_autoscaling(rc_)) {
      rejects(base() + ".policy", "DeleteWorkers does not work with enableInTreeAutoscaling",
              "use DeleteCluster or DeleteSelf");
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
              "keep one rule per condition and policy");
      continue;
    }
    slot = {ttl, i, true};
  }

  // Per condition, TTLs must not decrease along DeleteWorkers -> DeleteCluster -> DeleteSelf.
  constexpr std::array<std::string_view, 3> kOrder = {"DeleteWorkers", "DeleteCluster",
                                                      "DeleteSelf"};
  for (std::size_t c = 0; c < kConditions.size(); ++c) {
    const Seen* prev = nullptr;
    std::string_view prev_name;
    for (std::string_view name : kOrder) {
      const Seen& it = seen[c][policy_index(name)];
      if (!it.set) {
        continue;
      }
      if (prev != nullptr && it.ttl < prev->ttl) {
        rejects("spec.deletionStrategy.deletionRules[" + std::to_string(it.index) +
                    "].condition.ttlSeconds",
                "for " + std::string(kConditions[c]) + ", the " + std::string(name) + " TTL (" +
                    std::to_string(it.ttl) + ") is shorter than the " + std::string(prev_name) +
                    " TTL (" + std::to_string(prev->ttl) + ")",
                "make TTLs non-decreasing in the order DeleteWorkers <= DeleteCluster <= "
                "DeleteSelf");
      }
      prev = &it;
      prev_name = name;
    }
  }
}

void Checker::cluster_selection() {
  const bool selector = selector_mode();
  if (selector && spec_.suspend.value_or(false)) {
    rejects("spec.suspend", "suspend is not supported with clusterSelector",
            "remove suspend, or use rayClusterSpec");
  }
  if (rc_ == nullptr && !selector) {
    rejects("spec.rayClusterSpec", "neither rayClusterSpec nor a non-empty clusterSelector is set",
            "describe the cluster in rayClusterSpec");
  } else if (rc_ != nullptr && selector) {
    add("spec.clusterSelector",
        "set together with rayClusterSpec: the operator uses the existing cluster and ignores "
        "rayClusterSpec; set exactly one of them (rayClusterSpec for a cluster of the RayJob's "
        "own)");
  }
  if (!selector) {
    return;
  }
  if (since(5)) {
    const auto it = spec_.cluster_selector->find(kClusterNameKey);
    if (it == spec_.cluster_selector->end() || it->second.empty()) {
      rejects("spec.clusterSelector[ray.io/cluster]", "the cluster name is missing or empty",
              "set clusterSelector: {ray.io/cluster: <name of the RayCluster>}");
    }
    if (spec_.submission_mode == "SidecarMode") {
      rejects("spec.submissionMode", "SidecarMode cannot be used with clusterSelector",
              "use K8sJobMode or HTTPMode");
    }
  }
  if (since(6) && spec_.backoff_limit.value_or(0) > 0) {
    rejects("spec.backoffLimit", "retries are not supported with clusterSelector",
            "set backoffLimit: 0 or remove it");
  }
}

void Checker::submission_modes() {
  const std::string mode = spec_.submission_mode.value_or("K8sJobMode");
  if (since(4) && mode == "InteractiveMode" && spec_.backoff_limit.value_or(0) > 0) {
    rejects("spec.backoffLimit", "retries are not supported in InteractiveMode",
            "set backoffLimit: 0 or remove it");
  }
  if (!since(5) || mode != "SidecarMode") {
    return;
  }
  if (spec_.submitter_pod_template) {
    rejects("spec.submitterPodTemplate", "not supported in SidecarMode",
            "remove submitterPodTemplate (the submitter runs in the head Pod)");
  }
  if (spec_.has_submitter_config) {
    rejects("spec.submitterConfig", "not supported in SidecarMode", "remove submitterConfig");
  }
  if (rc_ != nullptr && !restart_policy_ok(rc_->head.pod_template)) {
    rejects("spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy",
            quoted(*rc_->head.pod_template.restart_policy) + " is not allowed in SidecarMode",
            "set restartPolicy: Never or remove it");
  }
}

void Checker::cluster_spec() {
  if (rc_ == nullptr) {
    return;
  }
  const std::string base = "spec.rayClusterSpec";
  if (since(6) && rc_->enable_k8s_token_auth.value_or(false)) {
    rejects(base + ".authOptions.enableK8sTokenAuth",
            "Kubernetes token auth is not supported for RayJob", "remove enableK8sTokenAuth");
  }
  // ValidateRayClusterSpec runs on a RayJob's cluster from 1.4 (kuberay-rayjob.md §7.3).
  if (!since(4)) {
    return;
  }
  const bool autoscaling = is_autoscaling(rc_);
  const std::string head = base + ".headGroupSpec";
  if (rc_->head.pod_template.containers.empty()) {
    rejects(head + ".template.spec.containers", "the head Pod has no container",
            "add the Ray head container");
  }
  if (rc_->head.ray_start_params_sets_resources && rc_->head.has_group_resources) {
    rejects(head + ".resources", "resources are set both here and in rayStartParams",
            "use only one of them");
  }
  for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
    const WorkerGroup& g = rc_->worker_groups[i];
    const std::string wg = base + ".workerGroupSpecs[" + std::to_string(i) + "]";
    if (g.pod_template.containers.empty()) {
      rejects(wg + ".template.spec.containers", "the worker Pod has no container",
              "add the Ray worker container");
    }
    if (g.ray_start_params_sets_resources && g.has_group_resources) {
      rejects(wg + ".resources", "resources are set both here and in rayStartParams",
              "use only one of them");
    }
    if (g.suspend.value_or(false)) {
      if (!policy_.kuberay.ray_job_deletion_policy_gate) {
        rejects(wg + ".suspend",
                "a suspended worker group needs the RayJobDeletionPolicy feature gate, which this "
                "operator runs with off",
                "remove suspend");
      } else if (autoscaling) {
        rejects(wg + ".suspend", "a worker group cannot be suspended with autoscaling",
                "remove suspend");
      }
    }
    if (!since(6)) {
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
  if (is_autoscaler_v2(rc_)) {
    if (!restart_policy_ok(rc_->head.pod_template)) {
      rejects(
          head + ".template.spec.restartPolicy",
          quoted(*rc_->head.pod_template.restart_policy) + " is not allowed with the v2 autoscaler",
          "set restartPolicy: Never or remove it");
    }
    for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
      const PodTemplate& t = rc_->worker_groups[i].pod_template;
      if (!restart_policy_ok(t)) {
        rejects(base + ".workerGroupSpecs[" + std::to_string(i) + "].template.spec.restartPolicy",
                quoted(*t.restart_policy) + " is not allowed with the v2 autoscaler",
                "set restartPolicy: Never or remove it");
      }
    }
  }
  if (since(6) && rc_->auth_mode == "token") {
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
  if (env.parse == RuntimeEnv::Parse::kNotMapping || env.parse == RuntimeEnv::Parse::kInvalid) {
    const std::string why = env.parse == RuntimeEnv::Parse::kInvalid
                                ? "is not valid YAML"
                                : "is valid YAML but not a mapping";
    rejects("spec.runtimeEnvYAML",
            why + (env.parse_error.empty() ? "" : " (" + env.parse_error + ")"),
            "write runtimeEnvYAML as a YAML mapping, e.g. \"pip: [boto3>=1.34.41]\"");
  }
  if (spec_.active_deadline_seconds && *spec_.active_deadline_seconds <= 0) {
    rejects("spec.activeDeadlineSeconds",
            std::to_string(*spec_.active_deadline_seconds) + " is not positive",
            "set activeDeadlineSeconds to a positive number of seconds");
  }
  if (since(6) && spec_.pre_running_deadline_seconds && *spec_.pre_running_deadline_seconds <= 0) {
    rejects("spec.preRunningDeadlineSeconds",
            std::to_string(*spec_.pre_running_deadline_seconds) + " is not positive",
            "set preRunningDeadlineSeconds to a positive number of seconds or remove it");
  }
  if (since(2) && spec_.backoff_limit && *spec_.backoff_limit < 0) {
    rejects("spec.backoffLimit", std::to_string(*spec_.backoff_limit) + " is negative",
            "set backoffLimit to 0 or more");
  }
}

// Required fields and CEL enums of the CRD that the model can see.
void Checker::crd_fields() {
  if (!since(3) && !spec_.entrypoint) {
    crd_rejects("spec.entrypoint", "missing (required before KubeRay 1.3)",
                "set entrypoint to the command that runs the job");
  }
  if (since(3)) {
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

void check_kuberay_schema(const RuleContext& ctx, Findings& out) { Checker(ctx, out).run(); }

}  // namespace rjg::policy
