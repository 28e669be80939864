// The deletion fields: deletionPolicy (1.3-1.4), deletionStrategy's onSuccess/onFailure form and
// its deletionRules (1.5+), as ValidateRayJobSpec checks them, with fixes that agree with
// reap-ttl's and reap-self's.
#include <algorithm>
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

#include "policy/kuberay/checker.hpp"

namespace rjg::policy::kuberay {

// What a fix of one deletion rule must know of the others, answered without a scan: the first
// two rules of each (jobStatus, jobDeploymentStatus, policy), and per condition the first rule
// that kuberay-schema's fix makes DeleteSelf. Built once per list, on the first question (only a
// finding asks one, so a valid list costs nothing), so that the fixes of N rules cost N log N,
// not N squared. `rules` and `spec` must outlive it.
class RuleLookup {
 public:
  RuleLookup(const std::vector<DeletionRule>& rules, const RayJobSpec& spec)
      : rules_(rules), spec_(spec) {}

  // Whether a rule other than `i` is exactly (job_status, deployment_status, policy), or, for
  // DeleteSelf, a rule before `i` becomes it by its own fix.
  bool taken(std::size_t i, const std::optional<std::string>& job_status,
             const std::optional<std::string>& deployment_status,
             const std::optional<std::string>& policy) const {
    build();
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

  void build() const {
    if (built_) {
      return;
    }
    built_ = true;
    for (std::size_t i = 0; i < rules_.size(); ++i) {
      const DeletionRule& r = rules_[i];
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
      if (fixed_to_delete_self(r.policy, spec_)) {
        to_self_.try_emplace({r.job_status, r.job_deployment_status}, i);
      }
    }
  }

  const std::vector<DeletionRule>& rules_;
  const RayJobSpec& spec_;
  mutable bool built_ = false;
  mutable std::map<std::tuple<Opt, Opt, Opt>, std::array<std::size_t, 2>> exact_;
  mutable std::map<std::pair<Opt, Opt>, std::size_t> to_self_;
};

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

template <class Field, class Fix>
bool Checker::policy_fits(const Field& field, const std::string& p, bool none_vs_shutdown,
                          const Fix& to_delete_self) {
  // Every fix here is DeleteSelf, which fits all three checks: two findings on one field never
  // ask for different values.
  bool fits = true;
  if (selector_mode() && (p == "DeleteCluster" || p == "DeleteWorkers")) {
    rejects(field(), p + " cannot be used with clusterSelector (the cluster is not the RayJob's)",
            "use DeleteSelf or DeleteNone", to_delete_self());
    fits = false;
  }
  if (p == "DeleteWorkers" && is_autoscaling(rc_)) {
    rejects(field(), "DeleteWorkers does not work with enableInTreeAutoscaling",
            "use DeleteCluster or DeleteSelf", to_delete_self());
    fits = false;
  }
  if (none_vs_shutdown && p == "DeleteNone" && shutdown()) {
    rejects(field(), "DeleteNone contradicts shutdownAfterJobFinishes: true",
            "use DeleteSelf, or set shutdownAfterJobFinishes: false", to_delete_self());
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
  policy_fits([&] { return field; }, value, true, [&] { return fix; });
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
    policy_fits([&] { return field; }, *side.policy, true,
                [&] { return std::vector<Edit>{Edit::set(field, std::string("DeleteSelf"))}; });
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
    auto to_self = [&] {
      std::vector<Edit> edits = {Edit::set(base() + ".policy", std::string("DeleteSelf"))};
      if (p != "DeleteSelf") {
        for (Edit& e : delete_self_ttl_fix(spec_, policy_, mode_, i, staged)) {
          edits.push_back(std::move(e));
        }
      }
      return rule_becomes(lookup, i, r.job_status, r.job_deployment_status, "DeleteSelf",
                          std::move(edits));
    };
    if (!policy_fits([&] { return base() + ".policy"; }, p, false, to_self)) {
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

}  // namespace rjg::policy::kuberay
