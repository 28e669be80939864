// reap-ttl: the reap TTLs are within the policy bounds and failures stay longer than successes.
#include "policy/reaper_annotations.hpp"
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

}  // namespace
}  // namespace rjg::policy::testing
