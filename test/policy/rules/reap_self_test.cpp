// reap-self: the RayJob deletes itself after success and after failure, by lifecycle mode.
#include "policy/reaper_annotations.hpp"
#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

const std::string kRules = "spec.deletionStrategy.deletionRules";
const std::string kShutdown = "spec.shutdownAfterJobFinishes";
const std::string kSuccessAnn = "metadata.annotations[rayjob-guard.io/ttl-after-success]";
const std::string kFailureAnn = "metadata.annotations[rayjob-guard.io/ttl-after-failure]";

std::vector<DeletionRule>& rules(RayJob& j) { return *j.spec.deletion_strategy->deletion_rules; }

void erase_rule(RayJob& j, std::size_t i) {
  rules(j).erase(rules(j).begin() + static_cast<long>(i));
}

// Switches the compliant job to a mode whose fields are all set correctly.
void deletion_policy_mode(RayJob& j, PolicyConfig& p) {
  p.kuberay.version = {1, 4};
  p.lifecycle.mode = LifecycleMode::kDeletionPolicy;
  j.spec.deletion_strategy.reset();
  j.spec.deletion_policy = "DeleteSelf";
  j.spec.shutdown_after_job_finishes = true;
  j.spec.ttl_seconds_after_finished = 300;
}
void operator_mode(RayJob& j, PolicyConfig& p) {
  p.lifecycle.mode = LifecycleMode::kOperatorDeletesRayJob;
  j.spec.deletion_strategy.reset();
  j.spec.shutdown_after_job_finishes = true;
}
void reaper_mode(RayJob& j, PolicyConfig& p) {
  p.lifecycle.mode = LifecycleMode::kReaper;
  j.spec.deletion_strategy.reset();
  j.spec.shutdown_after_job_finishes = true;
  j.metadata.annotations[std::string(kTtlAfterSuccessKey)] = "300";
  j.metadata.annotations[std::string(kTtlAfterFailureKey)] = "7200";
}

TEST(ReapSelf, DeletionRulesMode) {
  check_rows(
      RuleId::kReapSelf,
      {
          {"compliant: SUCCEEDED, FAILED, deployment Failed", nullptr, {}},
          {"no deletionStrategy",
           [](RayJob& j, PolicyConfig&) { j.spec.deletion_strategy.reset(); },
           {{kRules,
             "deletionStrategy: {deletionRules: [{policy: DeleteSelf, condition: {jobStatus: "
             "SUCCEEDED, ttlSeconds: 600}}, {policy: DeleteSelf, condition: {jobStatus: FAILED, "
             "ttlSeconds: 3600}}, {policy: DeleteSelf, condition: {jobDeploymentStatus: Failed, "
             "ttlSeconds: 3600}}, {policy: DeleteWorkers, condition: {jobDeploymentStatus: "
             "Failed, ttlSeconds: 0}}]}"}}},
          // The remedy frees the workers at failure; the head stays for the logs window.
          {"no worker groups: no DeleteWorkers in the remedy",
           [](RayJob& j, PolicyConfig&) {
             j.spec.deletion_strategy.reset();
             j.spec.ray_cluster_spec->worker_groups.clear();
           },
           {{kRules, "{jobDeploymentStatus: Failed, ttlSeconds: 3600}}]}"}}},
          {"in-tree autoscaling: no DeleteWorkers (the operator refuses it there)",
           [](RayJob& j, PolicyConfig&) {
             j.spec.deletion_strategy.reset();
             j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
           },
           {{kRules, "{jobDeploymentStatus: Failed, ttlSeconds: 3600}}]}"}}},
          {"1.5: no DeleteWorkers (its rules cannot match a deployment failure)",
           [](RayJob& j, PolicyConfig& p) {
             p.kuberay.version = {1, 5};
             j.spec.deletion_strategy.reset();
           },
           {{kRules, "{jobStatus: FAILED, ttlSeconds: 3600}}]}"}}},
          {"empty rules list",
           [](RayJob& j, PolicyConfig&) { rules(j).clear(); },
           {{kRules, "no deletionRules"}}},
          {"legacy onSuccess/onFailure DeleteSelf is not enough",
           [](RayJob& j, PolicyConfig&) {
             DeletionStrategy ds;
             ds.has_on_success = true;
             ds.on_success_policy = "DeleteSelf";
             ds.has_on_failure = true;
             ds.on_failure_policy = "DeleteSelf";
             j.spec.deletion_strategy = ds;
           },
           {{"spec.deletionStrategy",
             "deletes nothing when the deployment fails before the job starts"}}},
          {"missing SUCCEEDED",
           [](RayJob& j, PolicyConfig&) { erase_rule(j, 0); },
           {{kRules,
             "add {policy: DeleteSelf, condition: {jobStatus: SUCCEEDED, ttlSeconds: 600}}"}}},
          {"missing FAILED",
           [](RayJob& j, PolicyConfig&) { erase_rule(j, 1); },
           {{kRules, "no DeleteSelf rule for jobStatus FAILED"}}},
          {"missing deployment Failed on 1.6",
           [](RayJob& j, PolicyConfig&) { erase_rule(j, 2); },
           {{kRules,
             "{policy: DeleteSelf, condition: {jobDeploymentStatus: Failed, ttlSeconds: 3600}}"}}},
          {"deployment Failed not required on 1.5 (it does not exist)",
           [](RayJob& j, PolicyConfig& p) {
             p.kuberay.version = {1, 5};
             erase_rule(j, 2);
           },
           {}},
          {"SUCCEEDED rule is DeleteCluster, not DeleteSelf",
           [](RayJob& j, PolicyConfig&) { rules(j)[0].policy = "DeleteCluster"; },
           {{kRules, "no DeleteSelf rule for jobStatus SUCCEEDED"}}},
          {"extra DeleteWorkers rule is fine",
           [](RayJob& j, PolicyConfig&) {
             DeletionRule r = rules(j)[0];
             r.policy = "DeleteWorkers";
             r.ttl_seconds = 0;
             rules(j).push_back(r);
           },
           {}},
          {"all three missing after keeping only a DeleteNone rule",
           [](RayJob& j, PolicyConfig&) {
             rules(j).resize(1);
             rules(j)[0].policy = "DeleteNone";
           },
           {{kRules, "jobStatus SUCCEEDED"},
            {kRules, "jobStatus FAILED"},
            {kRules, "jobDeploymentStatus Failed"}}},
          // The operator deletes nothing in clusterSelector mode, rules or not: reap-self asks
          // for what cluster-selector asks (remove the selector), never for rules that cannot
          // work there.
          {"clusterSelector mode with cluster-selector off: asks for rayClusterSpec",
           [](RayJob& j, PolicyConfig&) {
             j.spec.ray_cluster_spec.reset();
             j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "c"}};
             erase_rule(j, 0);
           },
           {{"spec.clusterSelector", "remove clusterSelector"}}},
          {"clusterSelector allowed: asks for rayClusterSpec, not for rules",
           [](RayJob& j, PolicyConfig& p) {
             p.lifecycle.allow_cluster_selector = true;
             j.spec.ray_cluster_spec.reset();
             j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "c"}};
             erase_rule(j, 0);
           },
           {{"spec.clusterSelector", "remove clusterSelector and describe the cluster in rayClusterSpec"}}},
          {"clusterSelector mode with complete rules still cannot delete",
           [](RayJob& j, PolicyConfig& p) {
             p.lifecycle.allow_cluster_selector = true;
             j.spec.ray_cluster_spec.reset();
             j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "c"}};
           },
           {{"spec.clusterSelector", "not even with deletion rules"}}},
          {"ttlSecondsAfterFinished is named in the same fix",
           [](RayJob& j, PolicyConfig&) {
             j.spec.deletion_strategy.reset();
             j.spec.shutdown_after_job_finishes = true;
             j.spec.ttl_seconds_after_finished = 10;
           },
           {{kRules, "set shutdownAfterJobFinishes: false, remove ttlSecondsAfterFinished, and "
                     "set deletionStrategy"}}},
      });
}

// With cluster-selector enforcing, its finding is the one remedy for clusterSelector mode:
// reap-self adds nothing (it used to ask for deletion rules, which do not work in that mode).
TEST(ReapSelf, ClusterSelectorModeLeavesTheRemedyToClusterSelector) {
  RayJob job = compliant_rayjob();
  job.spec.ray_cluster_spec.reset();
  job.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "c"}};
  job.spec.deletion_strategy.reset();
  const Findings got = run_rules(job, job.metadata.namespace_, default_test_policy());
  SCOPED_TRACE(describe(got));
  EXPECT_TRUE(has_rule(got, RuleId::kClusterSelector));
  EXPECT_FALSE(has_rule(got, RuleId::kReapSelf));
}

TEST(ReapSelf, DeletionPolicyMode) {
  check_rows(RuleId::kReapSelf,
             {
                 {"DeleteSelf with shutdown", deletion_policy_mode, {}},
                 {"deletionPolicy missing",
                  [](RayJob& j, PolicyConfig& p) {
                    deletion_policy_mode(j, p);
                    j.spec.deletion_policy.reset();
                  },
                  {{"spec.deletionPolicy",
                    "set deletionPolicy: DeleteSelf and shutdownAfterJobFinishes: true"}}},
                 {"DeleteCluster leaves the RayJob",
                  [](RayJob& j, PolicyConfig& p) {
                    deletion_policy_mode(j, p);
                    j.spec.deletion_policy = "DeleteCluster";
                  },
                  {{"spec.deletionPolicy", "\"DeleteCluster\" leaves the RayJob"}}},
                 {"shutdown false",
                  [](RayJob& j, PolicyConfig& p) {
                    deletion_policy_mode(j, p);
                    j.spec.shutdown_after_job_finishes = false;
                  },
                  {{kShutdown, "set shutdownAfterJobFinishes: true"}}},
                 {"shutdown absent",
                  [](RayJob& j, PolicyConfig& p) {
                    deletion_policy_mode(j, p);
                    j.spec.shutdown_after_job_finishes.reset();
                  },
                  {{kShutdown, "must be true"}}},
             });
}

TEST(ReapSelf, OperatorDeletesRayJobMode) {
  check_rows(RuleId::kReapSelf, {
                                    {"shutdown true, no deletion field", operator_mode, {}},
                                    {"shutdown false",
                                     [](RayJob& j, PolicyConfig& p) {
                                       operator_mode(j, p);
                                       j.spec.shutdown_after_job_finishes = false;
                                     },
                                     {{kShutdown, "DELETE_RAYJOB_CR_AFTER_JOB_FINISHES"}}},
                                    {"deletionStrategy takes precedence",
                                     [](RayJob& j, PolicyConfig& p) {
                                       const auto ds = j.spec.deletion_strategy;
                                       operator_mode(j, p);
                                       j.spec.deletion_strategy = ds;
                                     },
                                     {{"spec.deletionStrategy", "remove deletionStrategy"}}},
                                    {"deletionPolicy takes precedence",
                                     [](RayJob& j, PolicyConfig& p) {
                                       operator_mode(j, p);
                                       p.kuberay.version = {1, 4};
                                       j.spec.deletion_policy = "DeleteCluster";
                                     },
                                     {{"spec.deletionPolicy", "remove deletionPolicy"}}},
                                });
}

TEST(ReapSelf, ReaperMode) {
  check_rows(
      RuleId::kReapSelf,
      {
          {"shutdown and both annotations", reaper_mode, {}},
          {"zero is a whole number",
           [](RayJob& j, PolicyConfig& p) {
             reaper_mode(j, p);
             j.metadata.annotations[std::string(kTtlAfterSuccessKey)] = "0";
           },
           {}},
          {"no annotations",
           [](RayJob& j, PolicyConfig& p) {
             reaper_mode(j, p);
             j.metadata.annotations.clear();
           },
           {{kSuccessAnn, "add the annotation rayjob-guard.io/ttl-after-success: \"600\""},
            {kFailureAnn, "add the annotation rayjob-guard.io/ttl-after-failure: \"3600\""}}},
          {"unit suffix is not whole seconds",
           [](RayJob& j, PolicyConfig& p) {
             reaper_mode(j, p);
             j.metadata.annotations[std::string(kTtlAfterFailureKey)] = "2h";
           },
           {{kFailureAnn, "\"2h\" is not a whole number of seconds"}}},
          {"negative",
           [](RayJob& j, PolicyConfig& p) {
             reaper_mode(j, p);
             j.metadata.annotations[std::string(kTtlAfterSuccessKey)] = "-1";
           },
           {{kSuccessAnn, "non-negative integer"}}},
          {"empty, spaces and overflow",
           [](RayJob& j, PolicyConfig& p) {
             reaper_mode(j, p);
             j.metadata.annotations[std::string(kTtlAfterSuccessKey)] = " 60";
             j.metadata.annotations[std::string(kTtlAfterFailureKey)] = "99999999999999999999";
           },
           {{kSuccessAnn, "not a whole number"}, {kFailureAnn, "not a whole number"}}},
          {"shutdown false",
           [](RayJob& j, PolicyConfig& p) {
             reaper_mode(j, p);
             j.spec.shutdown_after_job_finishes = false;
           },
           {{kShutdown, "so the RayCluster is freed when the job ends"}}},
      });
}

TEST(ReapSelf, WarnAndOffActions) {
  check_actions(RuleId::kReapSelf,
                [](RayJob& j, PolicyConfig&) { j.spec.deletion_strategy.reset(); });
}

// When cluster-selector's fix removes clusterSelector (rayClusterSpec describes the cluster), the
// deletion setup the mode asks for comes in the same round (it came in a second one before).
TEST(ReapSelf, SelectorWithItsOwnClusterGetsTheModesSetupInTheSameRound) {
  RayJob job = compliant_rayjob();
  job.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "c"}};
  job.spec.deletion_strategy.reset();
  const Findings got = run_rules(job, job.metadata.namespace_, default_test_policy());
  SCOPED_TRACE(describe(got));
  EXPECT_TRUE(has_rule(got, RuleId::kClusterSelector));
  EXPECT_TRUE(has_rule(got, RuleId::kReapSelf));
}

// Setting shutdownAfterJobFinishes: true also removes what the operator refuses next to it, so
// kuberay-schema has nothing to undo in the next round (in reaper mode it set shutdown back to
// false: a cycle).
TEST(ReapSelf, ShutdownFixRemovesWhatTheOperatorRefusesNextToIt) {
  struct Case {
    const char* name;
    std::function<void(RayJob&, PolicyConfig&)> mutate;
    std::vector<Edit> fix;
  };
  const Edit on = Edit::set(kShutdown, true);
  const Case cases[] = {
      {"reaper, deletion rules",
       [](RayJob& j, PolicyConfig& p) {
         reaper_mode(j, p);
         j.spec.shutdown_after_job_finishes.reset();
         j.spec.deletion_strategy = compliant_rayjob().spec.deletion_strategy;
       },
       {on, Edit::remove("spec.deletionStrategy")}},
      {"reaper, legacy DeleteNone",
       [](RayJob& j, PolicyConfig& p) {
         reaper_mode(j, p);
         j.spec.shutdown_after_job_finishes = false;
         DeletionStrategy ds;
         ds.has_on_success = ds.has_on_failure = true;
         ds.on_success_policy = "DeleteNone";
         ds.on_failure_policy = "DeleteSelf";
         j.spec.deletion_strategy = ds;
       },
       {on, Edit::remove("spec.deletionStrategy")}},
      {"reaper, deletionPolicy DeleteNone",
       [](RayJob& j, PolicyConfig& p) {
         reaper_mode(j, p);
         p.kuberay.version = {1, 4};
         j.spec.shutdown_after_job_finishes.reset();
         j.spec.deletion_policy = "DeleteNone";
       },
       {on, Edit::remove("spec.deletionPolicy")}},
      {"deletionPolicy mode sets DeleteSelf itself: nothing removed",
       [](RayJob& j, PolicyConfig& p) {
         deletion_policy_mode(j, p);
         j.spec.shutdown_after_job_finishes.reset();
         j.spec.deletion_policy = "DeleteNone";
       },
       {on}},
  };
  for (const Case& c : cases) {
    RayJob job = compliant_rayjob();
    PolicyConfig policy = default_test_policy();
    c.mutate(job, policy);
    const Findings got = run_rules(job, job.metadata.namespace_, only_rule(RuleId::kReapSelf, policy));
    const auto it = std::find_if(got.begin(), got.end(),
                                 [](const Finding& f) { return f.field == kShutdown; });
    ASSERT_NE(it, got.end()) << c.name << ": " << describe(got);
    EXPECT_EQ(it->fix, c.fix) << c.name;
  }
}

}  // namespace
}  // namespace rjg::policy::testing
