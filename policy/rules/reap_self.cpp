// reap-self: the RayJob deletes itself after success and after failure, so
// count/rayjobs.ray.io and count/jobs.batch return to zero, by the policy's lifecycle mode
// (docs/lifecycle.md says which mode is leak-free on which operator). Only presence and shape are checked here; the TTL values are
// reap-ttl's, and the validity of the deletion fields for the operator is kuberay-schema's.
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "policy/kuberay/catalogue.hpp"
#include "policy/reaper_annotations.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

void add(Findings& out, std::string field, std::string message, std::vector<Edit> fix) {
  out.push_back(Finding{RuleId::kReapSelf, Finding::Kind::kViolation, std::move(field),
                        std::move(message), std::move(fix)});
}

bool shutdown_set(const RayJobSpec& spec) {
  return spec.shutdown_after_job_finishes.value_or(false);
}

// `sets_policy`: the mode's own finding sets deletionPolicy (DeleteSelf), so it is not removed.
void require_shutdown(const RayJobSpec& spec, std::string_view why, Findings& out,
                      bool sets_policy = false) {
  if (shutdown_set(spec)) {
    return;
  }
  // What the operator refuses next to shutdownAfterJobFinishes: true goes in the same round
  // (kuberay-schema would ask for it in the next one): deletion rules, and a DeleteNone policy.
  std::vector<Edit> fix = {Edit::set("spec.shutdownAfterJobFinishes", true)};
  std::string also;
  const auto& ds = spec.deletion_strategy;
  if (ds && ((ds->deletion_rules && !ds->deletion_rules->empty()) ||
             ds->on_success_policy == "DeleteNone" || ds->on_failure_policy == "DeleteNone")) {
    fix.push_back(Edit::remove("spec.deletionStrategy"));
    also += " and remove deletionStrategy (the operator refuses its deletion rules or DeleteNone "
            "next to shutdownAfterJobFinishes)";
  }
  if (spec.deletion_policy == "DeleteNone" && !sets_policy) {
    fix.push_back(Edit::remove("spec.deletionPolicy"));
    also += " and remove deletionPolicy: DeleteNone (the operator refuses it next to "
            "shutdownAfterJobFinishes)";
  }
  add(out, "spec.shutdownAfterJobFinishes",
      "must be true " + std::string(why) + "; set shutdownAfterJobFinishes: true" + also,
      std::move(fix));
}

// One deletion rule in flow-style YAML, ready to paste into the deletionRules list.
std::string rule_yaml(std::string_view policy, std::string_view condition_key,
                      std::string_view value, long long ttl) {
  return "{policy: " + std::string(policy) + ", condition: {" + std::string(condition_key) + ": " +
         std::string(value) + ", ttlSeconds: " + std::to_string(ttl) + "}}";
}

// Whether the operator can suspend the RayJob's worker groups (DeleteWorkers): it has some, and
// the operator refuses DeleteWorkers with in-tree autoscaling.
bool workers_deletable(const RayJobSpec& spec) {
  return spec.ray_cluster_spec && !spec.ray_cluster_spec->worker_groups.empty() &&
         !spec.ray_cluster_spec->enable_in_tree_autoscaling.value_or(false);
}

// Whether a DeleteSelf rule for `value` is there, or will be once kuberay-schema's fixes are in:
// appending one more would make a duplicate that the next round removes.
bool has_delete_self(const std::vector<DeletionRule>& rules, const RayJobSpec& spec,
                     bool deployment, std::string_view value) {
  for (const DeletionRule& r : rules) {
    const auto& cond = deployment ? r.job_deployment_status : r.job_status;
    if ((r.policy == "DeleteSelf" || fixed_to_delete_self(r.policy, spec)) && r.has_condition &&
        cond == value) {
      return true;
    }
  }
  return false;
}

void check_deletion_rules(const RuleContext& ctx, Findings& out) {
  const RayJobSpec& spec = ctx.job.spec;
  const LifecycleConfig& lc = ctx.policy.lifecycle;
  const bool deployment_rule =
      kuberay::runs(kuberay::Op::kDeploymentCondition, ctx.policy.kuberay.version);

  struct Needed {
    std::string_view key;
    std::string_view value;
    bool deployment;
    long long ttl;
    std::string_view when;
    std::string_view policy = "DeleteSelf";
  };
  std::vector<Needed> needed = {
      {"jobStatus", "SUCCEEDED", false, lc.max_succeeded_ttl_seconds, "after the job succeeds"},
      {"jobStatus", "FAILED", false, lc.min_failed_ttl_seconds, "after the job fails"},
  };
  if (deployment_rule) {
    needed.push_back({"jobDeploymentStatus", "Failed", true, lc.min_failed_ttl_seconds,
                      "when the deployment fails before the job starts (submission failure, "
                      "deadline exceeded)"});
  }
  // The remedy also frees the workers the moment a run fails (1.6 acts on one outcome in steps):
  // the logs window then holds only the head, not the workers' GPUs, while the diagnostics are
  // already in the tenant's bucket. A RayJob without it is not refused: DeleteSelf still returns
  // all of its quota within the failure TTL bound.
  const bool suggest_workers = deployment_rule && workers_deletable(spec);

  // The literal edits of one rule at `index` of the list.
  const auto rule_edits = [](std::size_t index, const Needed& n, std::vector<Edit>& fix) {
    const std::string at = "spec.deletionStrategy.deletionRules[" + std::to_string(index) + "]";
    fix.push_back(Edit::set(at + ".policy", std::string(n.policy)));
    fix.push_back(Edit::set(at + ".condition." + std::string(n.key), std::string(n.value)));
    fix.push_back(Edit::set(at + ".condition.ttlSeconds", n.ttl));
  };

  const DeletionStrategy* ds = spec.deletion_strategy ? &*spec.deletion_strategy : nullptr;
  if (ds == nullptr || !ds->deletion_rules || ds->deletion_rules->empty()) {
    if (suggest_workers) {
      needed.push_back({"jobDeploymentStatus", "Failed", true, 0, "", "DeleteWorkers"});
    }
    std::string all;
    for (const Needed& n : needed) {
      all += all.empty() ? "" : ", ";
      all += rule_yaml(n.policy, n.key, n.value, n.ttl);
    }
    std::string wrong = "no deletionRules, so nothing deletes the RayJob when it ends";
    std::string field = "spec.deletionStrategy.deletionRules";
    if (ds != nullptr && (ds->has_on_success || ds->has_on_failure)) {
      // The legacy form only acts on jobStatus SUCCEEDED/FAILED: a deployment that fails before
      // the Ray job starts has neither, and nothing is deleted.
      wrong =
          "the legacy onSuccess/onFailure form is not enough: it deletes nothing when the "
          "deployment fails before the job starts (submission failure, deadline exceeded), and "
          "the RayJob then holds quota forever";
      field = "spec.deletionStrategy";
    }
    // Every line to change at once: the rules forbid shutdownAfterJobFinishes, and without it a
    // ttlSecondsAfterFinished above 0 is refused (the rules carry their own ttlSeconds).
    // suspend needs shutdownAfterJobFinishes as well, but a fix never removes it (whoever queues
    // the RayJob sets it again): with suspend the message names every line and the choice is the
    // tenant's, so there is no fix.
    const bool ttl = spec.ttl_seconds_after_finished.value_or(0) > 0;
    const bool suspend = spec.suspend.value_or(false);
    std::vector<Edit> fix = {Edit::set("spec.shutdownAfterJobFinishes", false)};
    if (ttl) {
      fix.push_back(Edit::remove("spec.ttlSecondsAfterFinished"));
    }
    fix.push_back(Edit::remove("spec.deletionStrategy"));
    for (std::size_t i = 0; i < needed.size(); ++i) {
      rule_edits(i, needed[i], fix);
    }
    if (suspend) {
      fix.clear();
    }
    std::string remove;
    remove += ttl ? ", remove ttlSecondsAfterFinished" : "";
    remove += suspend ? ", remove suspend (the operator refuses it without shutdownAfterJobFinishes; " +
                            std::string(kKueueQueuedHint) + " instead)"
                      : "";
    add(out, field,
        wrong +
            (remove.empty() ? "; set shutdownAfterJobFinishes: false and deletionStrategy: {"
                              "deletionRules: ["
                            : "; set shutdownAfterJobFinishes: false" + remove +
                                  ", and set deletionStrategy: {deletionRules: [") +
            all + "]}",
        std::move(fix));
    return;
  }
  // Each missing rule is appended after the existing ones, in the order reported.
  std::size_t next = ds->deletion_rules->size();
  for (const Needed& n : needed) {
    if (has_delete_self(*ds->deletion_rules, spec, n.deployment, n.value)) {
      continue;
    }
    std::vector<Edit> fix;
    rule_edits(next++, n, fix);
    add(out, "spec.deletionStrategy.deletionRules",
        "no DeleteSelf rule for " + std::string(n.key) + " " + std::string(n.value) +
            ", so the RayJob is never deleted " + std::string(n.when) + " and holds quota; add " +
            rule_yaml(n.policy, n.key, n.value, n.ttl),
        std::move(fix));
  }
}

void check_deletion_policy(const RuleContext& ctx, Findings& out) {
  const RayJobSpec& spec = ctx.job.spec;
  if (!spec.deletion_policy) {
    add(out, "spec.deletionPolicy",
        "not set, so nothing deletes the RayJob when it ends and it holds quota; set "
        "deletionPolicy: DeleteSelf and shutdownAfterJobFinishes: true",
        {Edit::set("spec.deletionPolicy", std::string("DeleteSelf")),
         Edit::set("spec.shutdownAfterJobFinishes", true)});
  } else if (*spec.deletion_policy != "DeleteSelf") {
    add(out, "spec.deletionPolicy",
        "\"" + *spec.deletion_policy +
            "\" leaves the RayJob (and its submitter Job) behind, holding quota; set "
            "deletionPolicy: DeleteSelf",
        {Edit::set("spec.deletionPolicy", std::string("DeleteSelf"))});
  }
  require_shutdown(spec, "with deletionPolicy: DeleteSelf (a TTL needs it)", out, true);
}

void check_operator_deletes(const RuleContext& ctx, Findings& out) {
  const RayJobSpec& spec = ctx.job.spec;
  require_shutdown(spec,
                   "for the operator (DELETE_RAYJOB_CR_AFTER_JOB_FINISHES=true) to delete the "
                   "RayJob when it ends",
                   out);
  // A deletion field takes the operator off the shutdown path, and then the environment switch
  // that deletes the RayJob never applies.
  if (spec.deletion_strategy) {
    add(out, "spec.deletionStrategy",
        "takes precedence over shutdownAfterJobFinishes, so the operator's "
        "DELETE_RAYJOB_CR_AFTER_JOB_FINISHES never deletes this RayJob; remove deletionStrategy",
        {Edit::remove("spec.deletionStrategy")});
  }
  if (spec.deletion_policy) {
    add(out, "spec.deletionPolicy",
        "takes precedence over shutdownAfterJobFinishes, so the operator's "
        "DELETE_RAYJOB_CR_AFTER_JOB_FINISHES never deletes this RayJob; remove deletionPolicy",
        {Edit::remove("spec.deletionPolicy")});
  }
}

void check_reaper(const RuleContext& ctx, Findings& out) {
  const RayJob& job = ctx.job;
  const LifecycleConfig& lc = ctx.policy.lifecycle;
  require_shutdown(job.spec,
                   "so the RayCluster is freed when the job ends (the reaper then "
                   "deletes the RayJob)",
                   out);
  struct Wanted {
    std::string_view key;
    long long example;
    std::string_view outcome;
  };
  const Wanted wanted[] = {{kTtlAfterSuccessKey, lc.max_succeeded_ttl_seconds, "success"},
                           {kTtlAfterFailureKey, lc.min_failed_ttl_seconds, "failure"}};
  for (const Wanted& w : wanted) {
    const std::string field = "metadata.annotations[" + std::string(w.key) + "]";
    const auto it = job.metadata.annotations.find(w.key);
    if (it == job.metadata.annotations.end()) {
      add(out, field,
          "missing, so the reaper does not know when to delete the RayJob after " +
              std::string(w.outcome) + "; add the annotation " + std::string(w.key) + ": \"" +
              std::to_string(w.example) + "\"",
          {Edit::set(field, std::to_string(w.example))});
    } else if (!parse_ttl_annotation(it->second)) {
      add(out, field,
          "\"" + it->second +
              "\" is not a whole number of seconds; write a non-negative integer without unit, "
              "e.g. \"" +
              std::to_string(w.example) + "\"",
          {Edit::set(field, std::to_string(w.example))});
    }
  }
}

}  // namespace

void check_reap_self(const RuleContext& ctx, Findings& out) {
  // In clusterSelector mode the operator deletes nothing when the job ends, whatever the deletion
  // fields say: asking for them would contradict cluster-selector, whose fix is the same as this
  // one. Only the reaper (annotations) works in that mode.
  // When cluster-selector refuses the mode anyway, its finding is the one remedy.
  // When that fix removes clusterSelector (rayClusterSpec already describes a cluster), what the
  // mode asks of a RayJob with its own cluster is reported too, so that one round of fixes is
  // enough; when the cluster is the tenant's to describe, it waits.
  const auto& selector = ctx.job.spec.cluster_selector;
  if (selector && !selector->empty() && ctx.mode() != LifecycleMode::kReaper) {
    std::vector<Edit> leave = cluster_selector_fix(ctx.job.spec);
    const bool waits = leave.empty();
    if (!cluster_selector_refuses(ctx.policy)) {
      add(out, "spec.clusterSelector",
          "in clusterSelector mode the operator deletes nothing when the job ends (not even with "
          "deletion rules), so the RayJob holds quota; remove clusterSelector and describe the "
          "cluster in rayClusterSpec",
          std::move(leave));
    }
    if (waits) {
      return;
    }
  }
  switch (ctx.mode()) {
    case LifecycleMode::kDeletionRules:
      check_deletion_rules(ctx, out);
      return;
    case LifecycleMode::kDeletionPolicy:
      check_deletion_policy(ctx, out);
      return;
    case LifecycleMode::kOperatorDeletesRayJob:
      check_operator_deletes(ctx, out);
      return;
    case LifecycleMode::kReaper:
      check_reaper(ctx, out);
      return;
  }
}

}  // namespace rjg::policy
