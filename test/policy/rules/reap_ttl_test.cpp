// reap-ttl: the reap TTLs are within the policy bounds and failures stay longer than successes.
#include "policy/reaper_annotations.hpp"
#include "policy/rules/rules.hpp"
#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

std::string ttl_field(int i) {
  return "spec.deletionStrategy.deletionRules[" + std::to_string(i) + "].condition.ttlSeconds";
}
const std::string kSuccessAnn = "metadata.annotations[rayjob-guard.io/ttl-after-success]";
const std::string kFailureAnn = "metadata.annotations[rayjob-guard.io/ttl-after-failure]";
const std::string kTtl = "spec.ttlSecondsAfterFinished";

void set_ttl(RayJob& j, std::size_t i, std::optional<std::int64_t> ttl) {
  (*j.spec.deletion_strategy->deletion_rules)[i].ttl_seconds = ttl;
}

void reaper(RayJob& j, PolicyConfig& p, std::string success, std::string failure) {
  p.lifecycle.mode = LifecycleMode::kReaper;
  j.spec.deletion_strategy.reset();
  j.spec.shutdown_after_job_finishes = true;
  j.metadata.annotations[std::string(kTtlAfterSuccessKey)] = std::move(success);
  j.metadata.annotations[std::string(kTtlAfterFailureKey)] = std::move(failure);
}

TEST(ReapTtl, DeletionRulesMode) {
  check_rows(RuleId::kReapTtl,
             {
                 {"compliant 60 / 7200 / 7200", nullptr, {}},
                 {"success at the bound", [](RayJob& j, PolicyConfig&) { set_ttl(j, 0, 600); }, {}},
                 {"success over the bound",
                  [](RayJob& j, PolicyConfig&) { set_ttl(j, 0, 601); },
                  {{ttl_field(0), "longer than the policy maximum of 600 seconds"}}},
                 {"failure below the minimum",
                  [](RayJob& j, PolicyConfig&) { set_ttl(j, 1, 3599); },
                  {{ttl_field(1), "the policy keeps failures at least 3600 seconds"}}},
                 {"failure at both bounds",
                  [](RayJob& j, PolicyConfig&) {
                    set_ttl(j, 1, 3600);
                    set_ttl(j, 2, 86400);
                  },
                  {}},
                 {"failure over the maximum",
                  [](RayJob& j, PolicyConfig&) { set_ttl(j, 1, 86401); },
                  {{ttl_field(1), "set ttlSeconds between 3600 and 86400"}}},
                 {"deployment Failed uses the failure bounds",
                  [](RayJob& j, PolicyConfig&) { set_ttl(j, 2, 60); },
                  {{ttl_field(2), "removes a failed RayJob before its logs can be read"}}},
                 {"failure not longer than success (bounds overlapping)",
                  [](RayJob& j, PolicyConfig& p) {
                    p.lifecycle.max_succeeded_ttl_seconds = 5000;
                    set_ttl(j, 0, 4000);
                    set_ttl(j, 1, 4000);
                  },
                  {{ttl_field(1), "is not longer than the success TTL (4000 seconds)"}}},
                 {"order not reported again when the failure TTL is already out of bounds",
                  [](RayJob& j, PolicyConfig&) { set_ttl(j, 1, 30); },
                  {{ttl_field(1), "at least 3600"}}},
                 {"absent TTL is not checked (reap-self / CRD default)",
                  [](RayJob& j, PolicyConfig&) { set_ttl(j, 0, std::nullopt); },
                  {}},
                 {"negative TTL is kuberay-schema's",
                  [](RayJob& j, PolicyConfig&) { set_ttl(j, 1, -1); },
                  {}},
                 {"non-DeleteSelf rules are not reap TTLs",
                  [](RayJob& j, PolicyConfig&) {
                    DeletionRule r = (*j.spec.deletion_strategy->deletion_rules)[0];
                    r.policy = "DeleteCluster";
                    r.ttl_seconds = 100000;
                    j.spec.deletion_strategy->deletion_rules->push_back(r);
                  },
                  {}},
                 {"no deletionStrategy is reap-self's",
                  [](RayJob& j, PolicyConfig&) { j.spec.deletion_strategy.reset(); },
                  {}},
             });
}

TEST(ReapTtl, ReaperMode) {
  check_rows(
      RuleId::kReapTtl,
      {
          {"300 / 7200", [](RayJob& j, PolicyConfig& p) { reaper(j, p, "300", "7200"); }, {}},
          {"success too long",
           [](RayJob& j, PolicyConfig& p) { reaper(j, p, "900", "7200"); },
           {{kSuccessAnn, "set the annotation to 600 or less"}}},
          {"failure too short",
           [](RayJob& j, PolicyConfig& p) { reaper(j, p, "300", "600"); },
           {{kFailureAnn, "at least 3600 seconds"}}},
          {"failure too long",
           [](RayJob& j, PolicyConfig& p) { reaper(j, p, "300", "100000"); },
           {{kFailureAnn, "longer than the policy maximum of 86400"}}},
          {"failure equal to success",
           [](RayJob& j, PolicyConfig& p) {
             p.lifecycle.min_failed_ttl_seconds = 0;
             reaper(j, p, "300", "300");
           },
           {{kFailureAnn, "not longer than the success TTL (300 seconds)"}}},
          {"unparseable annotations are reap-self's",
           [](RayJob& j, PolicyConfig& p) { reaper(j, p, "10m", "x"); },
           {}},
      });
}

TEST(ReapTtl, SingleTtlModesCarryAnAdvisory) {
  const std::string advisory = "the lifecycle modes deletionRules (KubeRay 1.6+) and reaper";
  check_rows(RuleId::kReapTtl,
             {
                 {"deletionPolicy, TTL within the success bound",
                  [](RayJob& j, PolicyConfig& p) {
                    p.lifecycle.mode = LifecycleMode::kDeletionPolicy;
                    j.spec.ttl_seconds_after_finished = 600;
                  },
                  {{kTtl, advisory, Finding::Kind::kAdvisory}}},
                 {"deletionPolicy, TTL too long for success (quota first)",
                  [](RayJob& j, PolicyConfig& p) {
                    p.lifecycle.mode = LifecycleMode::kDeletionPolicy;
                    j.spec.ttl_seconds_after_finished = 3600;
                  },
                  {{kTtl, "set ttlSecondsAfterFinished to 600 or less"},
                   {kTtl, "in lifecycle mode deletionPolicy", Finding::Kind::kAdvisory}}},
                 {"operatorDeletesRayJob, no TTL: advisory only",
                  [](RayJob& j, PolicyConfig& p) {
                    p.lifecycle.mode = LifecycleMode::kOperatorDeletesRayJob;
                    j.spec.ttl_seconds_after_finished.reset();
                  },
                  {{kTtl, "in lifecycle mode operatorDeletesRayJob", Finding::Kind::kAdvisory}}},
                 {"operatorDeletesRayJob, TTL too long",
                  [](RayJob& j, PolicyConfig& p) {
                    p.lifecycle.mode = LifecycleMode::kOperatorDeletesRayJob;
                    j.spec.ttl_seconds_after_finished = 601;
                  },
                  {{kTtl, "601 seconds keeps a succeeded RayJob"},
                   {kTtl, "gets no longer kubectl logs window", Finding::Kind::kAdvisory}}},
             });
}

TEST(ReapTtl, WarnAndOffActions) {
  check_actions(RuleId::kReapTtl, [](RayJob& j, PolicyConfig&) { set_ttl(j, 0, 100000); });
}

TEST(ReapTtl, AdvisoryIsAWarningEvenWhenEnforced) {
  AdmissionRequest request;
  request.namespace_ = "tenant-a";
  RayJob j = compliant_rayjob();
  PolicyConfig p = only_rule(RuleId::kReapTtl, default_test_policy());
  p.lifecycle.mode = LifecycleMode::kOperatorDeletesRayJob;
  request.object = j;
  const Verdict v = evaluate(request, p);
  EXPECT_TRUE(v.allowed);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_EQ(v.warnings[0].kind, Finding::Kind::kAdvisory);
  EXPECT_TRUE(v.denials.empty());
}

// The one fix of a DeleteSelf rule's TTL that reap-ttl and kuberay-schema both give (their fixes
// contradicted, or undid each other, before): inside the policy's bounds and no shorter than the
// DeleteWorkers/DeleteCluster TTL of its condition, lowering those where the bounds demand it.
TEST(ReapTtl, DeleteSelfTtlFixAgreesWithTheOperatorsOrder) {
  const auto rule = [](std::string policy, std::string status, std::int64_t ttl) {
    DeletionRule r;
    r.policy = std::move(policy);
    r.has_condition = true;
    r.job_status = std::move(status);
    r.ttl_seconds = ttl;
    return r;
  };
  struct Case {
    const char* name;
    LifecycleMode mode;
    std::vector<DeletionRule> rules;
    std::size_t index;
    std::vector<Edit> fix;
  };
  const Case cases[] = {
      {"below the policy minimum and the DeleteCluster TTL", LifecycleMode::kDeletionRules,
       {rule("DeleteCluster", "FAILED", 20), rule("DeleteSelf", "FAILED", 10)}, 1,
       {Edit::set(ttl_field(1), 3600LL)}},
      {"a DeleteCluster TTL above the policy maximum is lowered with it",
       LifecycleMode::kDeletionRules,
       {rule("DeleteCluster", "SUCCEEDED", 800), rule("DeleteSelf", "SUCCEEDED", 900),
        rule("DeleteWorkers", "SUCCEEDED", 700), rule("DeleteCluster", "FAILED", 90000)},
       1, {Edit::set(ttl_field(1), 600LL), Edit::set(ttl_field(0), 600LL),
           Edit::set(ttl_field(2), 600LL)}},
      {"raised to the longest before it, within bounds", LifecycleMode::kDeletionRules,
       {rule("DeleteWorkers", "FAILED", 7200), rule("DeleteCluster", "FAILED", 5000),
        rule("DeleteSelf", "FAILED", 4000)}, 2, {Edit::set(ttl_field(2), 7200LL)}},
      {"no policy bounds outside lifecycle mode deletionRules", LifecycleMode::kReaper,
       {rule("DeleteCluster", "FAILED", 20), rule("DeleteSelf", "FAILED", 10)}, 1,
       {Edit::set(ttl_field(1), 20LL)}},
      {"a third DeleteWorkers rule of a condition is a duplicate kuberay-schema removes",
       LifecycleMode::kDeletionRules,
       {rule("DeleteWorkers", "FAILED", 10), rule("DeleteWorkers", "FAILED", 20),
        rule("DeleteWorkers", "FAILED", 9000), rule("DeleteSelf", "FAILED", 4000)},
       3, {Edit::set(ttl_field(3), 4000LL)}},
      {"the rule being fixed into DeleteSelf still sees the next one of its policy",
       LifecycleMode::kDeletionRules,
       {rule("DeleteWorkers", "FAILED", 10), rule("DeleteWorkers", "FAILED", 5000)}, 0,
       {Edit::set(ttl_field(0), 5000LL)}},
      {"the rule itself, about to become DeleteSelf, is not its own floor",
       LifecycleMode::kDeletionRules, {rule("DeleteWorkers", "FAILED", 0)}, 0,
       {Edit::set(ttl_field(0), 3600LL)}},
  };
  for (const Case& c : cases) {
    RayJob job = compliant_rayjob();
    job.spec.deletion_strategy->deletion_rules = c.rules;
    const PolicyConfig policy = default_test_policy();
    EXPECT_EQ(delete_self_ttl_fix(job.spec, policy, c.mode, c.index, StagedRules(c.rules)), c.fix)
        << c.name;
  }
}

}  // namespace
}  // namespace rjg::policy::testing
