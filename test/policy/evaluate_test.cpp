// evaluate(): rule order, CREATE vs UPDATE ratcheting, what is not evaluated, actions, and
// determinism.
#include "policy/evaluate.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

// The default test policy with the quota and image rules off, so these tests are about the
// engine and the lifecycle rules only (those rules have their own suites).
PolicyConfig engine_policy() {
  PolicyConfig p = default_test_policy();
  for (RuleId id : {RuleId::kResourcesDeclared, RuleId::kQuotaFit, RuleId::kImageContract,
                    RuleId::kImagePinned}) {
    p.rule_actions[static_cast<std::size_t>(id)] = RuleAction::kOff;
  }
  return p;
}

AdmissionRequest create(const RayJob& job) {
  AdmissionRequest r;
  r.operation = Operation::kCreate;
  r.namespace_ = "tenant-a";
  r.object = job;
  return r;
}

AdmissionRequest update(const RayJob& old_job, const RayJob& new_job) {
  AdmissionRequest r = create(new_job);
  r.operation = Operation::kUpdate;
  r.old_object = old_job;
  return r;
}

std::vector<RuleId> rules_of(const Findings& findings) {
  std::vector<RuleId> ids;
  for (const Finding& f : findings) {
    ids.push_back(f.rule);
  }
  return ids;
}

std::string dump(const Verdict& v) {
  return std::string("allowed=") + (v.allowed ? "true" : "false") + "\ndenials:\n" +
         describe(v.denials) + "warnings:\n" + describe(v.warnings);
}

// Breaks kuberay-schema (twice), reap-self, active-deadline, backoff-limit and cluster-selector.
RayJob many_violations() {
  RayJob j = compliant_rayjob();
  j.metadata.name = "Bad_Name";            // kuberay-schema: not DNS-1035
  j.spec.deletion_strategy.reset();        // reap-self
  j.spec.active_deadline_seconds.reset();  // active-deadline
  j.spec.backoff_limit = 9;                // backoff-limit, and kuberay-schema with clusterSelector
  j.spec.ray_cluster_spec.reset();         // cluster-selector
  j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "shared"}};
  return j;
}

TEST(Evaluate, CompliantRayJobHasNoFindingsFromTheLifecycleRules) {
  for (int minor : {6, 7}) {
    PolicyConfig p = engine_policy();
    p.kuberay.version = {1, minor};
    EXPECT_TRUE(run_rules(compliant_rayjob(), "tenant-a", p).empty())
        << describe(run_rules(compliant_rayjob(), "tenant-a", p));
  }
  const Verdict v = evaluate(create(compliant_rayjob()), engine_policy());
  EXPECT_TRUE(v.allowed);
  EXPECT_TRUE(v.denials.empty());
  EXPECT_TRUE(v.warnings.empty()) << dump(v);
}

TEST(Evaluate, CompliantRayJobIsAdmittedByEveryRule) {
  const Verdict v = evaluate(create(compliant_rayjob()), default_test_policy());
  EXPECT_TRUE(v.allowed) << dump(v);
  EXPECT_TRUE(v.denials.empty()) << dump(v);
}

TEST(Evaluate, FindingsFollowRuleOrder) {
  const Verdict v = evaluate(create(many_violations()), engine_policy());
  SCOPED_TRACE(dump(v));
  EXPECT_FALSE(v.allowed);
  // No reap-self: in clusterSelector mode cluster-selector's finding is the one remedy.
  const std::vector<RuleId> expected = {RuleId::kKuberaySchema, RuleId::kKuberaySchema,
                                        RuleId::kActiveDeadline, RuleId::kBackoffLimit,
                                        RuleId::kClusterSelector};
  EXPECT_EQ(rules_of(v.denials), expected);
  EXPECT_EQ(v.denials[0].field, "metadata.name");
  EXPECT_EQ(v.denials[1].field, "spec.backoffLimit");
  EXPECT_TRUE(v.warnings.empty());
  // run_rules gives the same list in the same order.
  EXPECT_EQ(run_rules(many_violations(), "tenant-a", engine_policy()), v.denials);
}

TEST(Evaluate, OffRulesAreNotEvaluatedAndWarnRulesOnlyWarn) {
  PolicyConfig p = engine_policy();
  p.rule_actions[static_cast<std::size_t>(RuleId::kKuberaySchema)] = RuleAction::kOff;
  p.rule_actions[static_cast<std::size_t>(RuleId::kReapSelf)] = RuleAction::kWarn;
  p.rule_actions[static_cast<std::size_t>(RuleId::kActiveDeadline)] = RuleAction::kWarn;
  const Verdict v = evaluate(create(many_violations()), p);
  SCOPED_TRACE(dump(v));
  EXPECT_FALSE(v.allowed);
  EXPECT_EQ(rules_of(v.denials),
            (std::vector<RuleId>{RuleId::kBackoffLimit, RuleId::kClusterSelector}));
  EXPECT_EQ(rules_of(v.warnings), (std::vector<RuleId>{RuleId::kActiveDeadline}));

  // Everything at warn: admitted, every finding a warning.
  for (RuleId id : kAllRules) {
    if (p.action(id) != RuleAction::kOff) {
      p.rule_actions[static_cast<std::size_t>(id)] = RuleAction::kWarn;
    }
  }
  const Verdict all_warn = evaluate(create(many_violations()), p);
  EXPECT_TRUE(all_warn.allowed);
  EXPECT_TRUE(all_warn.denials.empty());
  EXPECT_EQ(all_warn.warnings.size(), 3u) << dump(all_warn);
}

TEST(Evaluate, AdvisoriesAreWarningsUnderEnforce) {
  PolicyConfig p = engine_policy();
  p.lifecycle.mode = LifecycleMode::kOperatorDeletesRayJob;
  RayJob j = compliant_rayjob();
  j.spec.deletion_strategy.reset();
  j.spec.shutdown_after_job_finishes = true;
  const Verdict v = evaluate(create(j), p);
  SCOPED_TRACE(dump(v));
  EXPECT_TRUE(v.allowed);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_EQ(v.warnings[0].rule, RuleId::kReapTtl);
  EXPECT_EQ(v.warnings[0].kind, Finding::Kind::kAdvisory);
}

TEST(Evaluate, NothingIsEvaluatedForOtherResourcesOperationsOrNoObject) {
  const RayJob bad = many_violations();
  AdmissionRequest not_rayjob = create(bad);
  not_rayjob.is_rayjob = false;
  AdmissionRequest del = create(bad);
  del.operation = Operation::kDelete;
  del.old_object = bad;
  AdmissionRequest del_no_object = del;
  del_no_object.object.reset();
  AdmissionRequest connect = create(bad);
  connect.operation = Operation::kConnect;
  AdmissionRequest create_no_object = create(bad);
  create_no_object.object.reset();
  for (const AdmissionRequest& r : {not_rayjob, del, del_no_object, connect, create_no_object}) {
    const Verdict v = evaluate(r, engine_policy());
    EXPECT_TRUE(v.allowed) << dump(v);
    EXPECT_TRUE(v.denials.empty());
    EXPECT_TRUE(v.warnings.empty());
  }
}

TEST(Evaluate, UpdateRatchetsFindingsTheOldObjectAlreadyHad) {
  const RayJob old_job = many_violations();

  // Metadata-only edits of a RayJob that became non-compliant (e.g. after a policy change).
  RayJob annotated = old_job;
  annotated.metadata.annotations["rayjob-guard.io/owner"] = "team-a";
  RayJob finalized = old_job;
  finalized.metadata.finalizers.clear();
  finalized.metadata.finalizers.push_back("ray.io/rayjob-finalizer");
  for (const RayJob& new_job : {annotated, finalized, old_job}) {
    const Verdict v = evaluate(update(old_job, new_job), engine_policy());
    SCOPED_TRACE(dump(v));
    EXPECT_TRUE(v.allowed);
    EXPECT_TRUE(v.denials.empty());
    EXPECT_EQ(v.warnings, run_rules(new_job, "tenant-a", engine_policy()));
  }
}

TEST(Evaluate, UpdateDeniesNewViolations) {
  RayJob old_job = compliant_rayjob();
  old_job.spec.active_deadline_seconds.reset();  // already non-compliant
  RayJob new_job = old_job;
  new_job.spec.backoff_limit = 7;  // new violation
  const Verdict v = evaluate(update(old_job, new_job), engine_policy());
  SCOPED_TRACE(dump(v));
  EXPECT_FALSE(v.allowed);
  EXPECT_EQ(rules_of(v.denials), std::vector<RuleId>{RuleId::kBackoffLimit});
  EXPECT_EQ(rules_of(v.warnings), std::vector<RuleId>{RuleId::kActiveDeadline});
}

TEST(Evaluate, UpdateDeniesAChangedValueOfAnAlreadyInvalidField) {
  RayJob old_job = compliant_rayjob();
  old_job.spec.backoff_limit = 5;
  RayJob new_job = old_job;
  new_job.spec.backoff_limit = 6;
  const Verdict v = evaluate(update(old_job, new_job), engine_policy());
  SCOPED_TRACE(dump(v));
  EXPECT_FALSE(v.allowed);
  ASSERT_EQ(v.denials.size(), 1u);
  EXPECT_EQ(v.denials[0].field, "spec.backoffLimit");
  EXPECT_NE(v.denials[0].message.find("6 exceeds"), std::string::npos);
  EXPECT_TRUE(v.warnings.empty());
}

TEST(Evaluate, UpdateWithoutOldObjectIsJudgedLikeCreate) {
  AdmissionRequest r = update(compliant_rayjob(), many_violations());
  r.old_object.reset();
  EXPECT_EQ(evaluate(r, engine_policy()).denials,
            evaluate(create(many_violations()), engine_policy()).denials);
}

TEST(Evaluate, SameInputSameVerdict) {
  const PolicyConfig p = engine_policy();
  const Verdict a = evaluate(create(many_violations()), p);
  const Verdict b = evaluate(create(many_violations()), p);
  EXPECT_EQ(a.allowed, b.allowed);
  EXPECT_EQ(a.denials, b.denials);
  EXPECT_EQ(a.warnings, b.warnings);
}

TEST(Evaluate, IdenticalObjectsGetIdenticalVerdictsWhateverElseTheRequestCarries) {
  // The request has no identity field at all (admission_request.hpp); what else it carries (an
  // old object on CREATE, a stale old object on DELETE) must not change the verdict on CREATE.
  const PolicyConfig p = engine_policy();
  const Verdict plain = evaluate(create(many_violations()), p);
  AdmissionRequest with_old = create(many_violations());
  with_old.old_object = compliant_rayjob();
  AdmissionRequest with_bad_old = create(many_violations());
  with_bad_old.old_object = many_violations();
  for (const AdmissionRequest& r : {with_old, with_bad_old}) {
    const Verdict v = evaluate(r, p);
    EXPECT_EQ(v.allowed, plain.allowed);
    EXPECT_EQ(v.denials, plain.denials);
    EXPECT_EQ(v.warnings, plain.warnings);
  }
}

// The request's ResourceQuotas reach quota-fit (quota.source cluster), for the object and, on
// UPDATE, for the old one: a RayJob already over the quota is not blocked by it again.
TEST(Evaluate, PassesTheClusterQuotasToTheRules) {
  PolicyConfig p = default_test_policy();
  p.quota.source = QuotaConfig::Source::kCluster;
  p.quota.namespaces.erase("tenant-a");
  auto cluster = std::make_shared<ClusterQuotas>();
  cluster->namespaces["tenant-a"] = {
      ResourceQuotaSpec{"compute", {{"requests.cpu", Quantity::from_units(5)}}, {}, {}}};
  AdmissionRequest r = create(compliant_rayjob());
  r.cluster_quotas = cluster;
  const Verdict v = evaluate(r, p);
  ASSERT_EQ(v.denials.size(), 1u) << dump(v);
  EXPECT_EQ(v.denials[0].rule, RuleId::kQuotaFit);
  EXPECT_NE(v.denials[0].message.find("over the ResourceQuota \"tenant-a/compute\" of 5"),
            std::string::npos)
      << dump(v);

  AdmissionRequest u = update(compliant_rayjob(), compliant_rayjob());
  u.cluster_quotas = cluster;
  const Verdict ratcheted = evaluate(u, p);
  EXPECT_TRUE(ratcheted.allowed) << dump(ratcheted);
  EXPECT_EQ(ratcheted.warnings, v.denials);

  // Without the cluster (check offline) the policy decides: tenant-a has no entry left.
  const Verdict offline = evaluate(create(compliant_rayjob()), p);
  ASSERT_EQ(offline.denials.size(), 1u) << dump(offline);
  EXPECT_EQ(offline.denials[0].field, "metadata.namespace");
}

TEST(Evaluate, TotalOnOddInput) {
  // An empty RayJob, an absurd version and zeroed bounds: findings, never a crash.
  RayJob empty;
  PolicyConfig p = default_test_policy();
  p.kuberay.version = {1, 99};
  p.lifecycle = LifecycleConfig{LifecycleMode::kReaper, 0, 0, 0, 0, 0, false};
  const Verdict v = evaluate(create(empty), p);
  EXPECT_FALSE(v.allowed) << dump(v);
  RayJob odd = compliant_rayjob();
  odd.spec.ray_cluster_spec->worker_groups.clear();
  odd.spec.deletion_strategy->deletion_rules->push_back(DeletionRule{});
  odd.metadata.name = std::string(300, '-');
  EXPECT_FALSE(evaluate(create(odd), p).allowed);
}

}  // namespace
}  // namespace rjg::policy::testing
