// kueue-webhook: a Kueue-managed RayJob passes what Kueue's own webhook checks; and which
// lifecycle mode a RayJob is judged by (policy/kueue.hpp).
#include "policy/kueue.hpp"
#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

// The compliant RayJob labelled for Kueue, in the form kueue.lifecycleMode reaper asks for.
void kueue_form(RayJob& j) {
  j.metadata.kueue_labels[kQueueNameLabel] = "team-a";
  j.spec.shutdown_after_job_finishes = true;
  j.spec.suspend = true;  // Kueue's mutating webhook sets it before ours sees the RayJob
  j.spec.deletion_strategy.reset();
}

void worker_groups(RayJob& j, std::size_t n) {
  auto& groups = j.spec.ray_cluster_spec->worker_groups;
  const WorkerGroup model = groups.front();
  groups.clear();
  for (std::size_t i = 0; i < n; ++i) {
    groups.push_back(model);
    groups.back().group_name = "g" + std::to_string(i);
  }
}

TEST(KueueWebhook, ManagedRayJobs) {
  const std::string elastic = "metadata.annotations[kueue.x-k8s.io/elastic-job]";
  check_rows(
      RuleId::kKueueWebhook,
      {
          {"not Kueue's: nothing is checked",
           [](RayJob& j, PolicyConfig&) {
             j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
             j.spec.ray_cluster_spec->worker_groups[0].group_name = "head";
           },
           {}},
          {"Kueue's, in the form both accept", [](RayJob& j, PolicyConfig&) { kueue_form(j); }, {}},
          {"shutdownAfterJobFinishes false (reported here when reap-self is off)",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             j.spec.shutdown_after_job_finishes = false;
           },
           {{"spec.shutdownAfterJobFinishes", "a kueue managed job should delete the cluster"}}},
          {"manageJobsWithoutQueueName: unlabelled RayJobs are Kueue's too",
           [](RayJob&, PolicyConfig& p) { p.kueue.manage_jobs_without_queue_name = true; },
           {{"spec.shutdownAfterJobFinishes", "set shutdownAfterJobFinishes: true"}}},
          {"in-tree autoscaling without the elastic-job annotation",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
           },
           {{elastic, "add the annotation kueue.x-k8s.io/elastic-job: \"true\""}}},
          {"in-tree autoscaling with elastic-job \"false\"",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
             j.metadata.kueue_annotations[kElasticJobAnnotation] = "false";
           },
           {{elastic, "or set enableInTreeAutoscaling: false"}}},
          {"in-tree autoscaling with elastic-job \"true\"",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
             j.metadata.kueue_annotations[kElasticJobAnnotation] = "true";
           },
           {}},
          {"a worker group named head",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             j.spec.ray_cluster_spec->worker_groups[0].group_name = "head";
           },
           {{"spec.rayClusterSpec.workerGroupSpecs[0].groupName", "rename the worker group"}}},
          {"16 worker groups in K8sJobMode: 18 PodSets",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             worker_groups(j, 16);
           },
           {}},
          {"17 worker groups in K8sJobMode: 19 PodSets",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             worker_groups(j, 17);
           },
           {{"spec.rayClusterSpec.workerGroupSpecs",
             "17 worker groups make 19 Kueue PodSets (the head, one per worker group, the "
             "K8sJobMode submitter), more than a Workload holds (18); use at most 16"}}},
          {"17 worker groups in HTTPMode: 18 PodSets, no submitter pod",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             worker_groups(j, 17);
             j.spec.submission_mode = "HTTPMode";
           },
           {}},
          {"clusterSelector and rayClusterSpec, the policy allowing clusterSelector",
           [](RayJob& j, PolicyConfig& p) {
             kueue_form(j);
             j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "shared"}};
             p.lifecycle.allow_cluster_selector = true;
           },
           {{"spec.clusterSelector", "Kueue refuses a RayJob with both"}}},
          {"clusterSelector only: Kueue leaves it alone",
           [](RayJob& j, PolicyConfig& p) {
             kueue_form(j);
             j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "shared"}};
             j.spec.ray_cluster_spec.reset();
             j.spec.shutdown_after_job_finishes = false;
             p.lifecycle.allow_cluster_selector = true;
           },
           {}},
      });
}

TEST(KueueWebhook, ShutdownIsReapSelfsWhenItRuns) {
  RayJob job = compliant_rayjob();
  kueue_form(job);
  job.spec.shutdown_after_job_finishes = false;
  PolicyConfig policy = default_test_policy();
  const Findings got = run_rules(job, job.metadata.namespace_, policy);
  EXPECT_FALSE(has_rule(got, RuleId::kKueueWebhook)) << describe(got);
  EXPECT_TRUE(has_rule(got, RuleId::kReapSelf)) << describe(got);
}

TEST(KueueWebhook, ClusterSelectorIsClusterSelectorsWhenItRefusesIt) {
  RayJob job = compliant_rayjob();
  kueue_form(job);
  job.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "shared"}};
  const Findings got = run_rules(job, job.metadata.namespace_, default_test_policy());
  EXPECT_FALSE(has_rule(got, RuleId::kKueueWebhook)) << describe(got);
  EXPECT_TRUE(has_rule(got, RuleId::kClusterSelector)) << describe(got);
}

// On UPDATE, Kueue refuses moving a RayJob that is not suspended to another queue.
TEST(KueueWebhook, QueueLabelOnUpdate) {
  const std::string field = "metadata.labels[kueue.x-k8s.io/queue-name]";
  struct Case {
    std::string name;
    std::optional<std::string> before, after;
    bool suspended;
    std::string fragment;  // empty: nothing reported
  };
  const Case cases[] = {
      {"unchanged, running", "team-a", "team-a", false, ""},
      {"changed while suspended", "team-a", "team-b", true, ""},
      {"changed while running", "team-a", "team-b", false,
       "changed from \"team-a\" to \"team-b\" while the RayJob is not suspended"},
      {"removed while running", "team-a", std::nullopt, false,
       "removed while the RayJob is not suspended"},
      {"added while running", std::nullopt, "team-a", false,
       "added while the RayJob is not suspended, which Kueue refuses; leave the RayJob without it"},
      {"added while suspended", std::nullopt, "team-a", true, ""},
      {"neither labelled", std::nullopt, std::nullopt, false, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    RayJob before = compliant_rayjob();
    kueue_form(before);
    RayJob after = before;
    before.metadata.kueue_labels = {};
    after.metadata.kueue_labels = {};
    if (c.before) {
      before.metadata.kueue_labels[kQueueNameLabel] = *c.before;
    }
    if (c.after) {
      after.metadata.kueue_labels[kQueueNameLabel] = *c.after;
    }
    after.spec.suspend = c.suspended;
    const PolicyConfig policy = only_rule(RuleId::kKueueWebhook, default_test_policy());
    const Findings got = run_rules(after, after.metadata.namespace_, policy, &before);
    SCOPED_TRACE(describe(got));
    if (c.fragment.empty()) {
      EXPECT_TRUE(got.empty());
    } else {
      ASSERT_EQ(got.size(), 1U);
      EXPECT_EQ(got[0].field, field);
      EXPECT_NE(got[0].message.find(c.fragment), std::string::npos);
    }
  }
}

TEST(KueueWebhook, WarnAndOffActions) {
  check_actions(RuleId::kKueueWebhook, [](RayJob& j, PolicyConfig&) {
    kueue_form(j);
    j.spec.ray_cluster_spec->worker_groups[0].group_name = "head";
  });
}

// suspend is set by whoever queues the RayJob, and set again: no fix of any rule removes it.
TEST(Kueue, NoFixRemovesSuspend) {
  const std::vector<std::pair<std::string, std::function<void(RayJob&)>>> shapes = {
      {"unlabelled, deletion rules", [](RayJob&) {}},
      {"unlabelled, deletion rules and shutdown",
       [](RayJob& j) { j.spec.shutdown_after_job_finishes = true; }},
      {"Kueue's, deletion rules, no shutdown",
       [](RayJob& j) { j.metadata.kueue_labels[kQueueNameLabel] = "team-a"; }},
      {"Kueue's, deletion rules and shutdown",
       [](RayJob& j) {
         j.metadata.kueue_labels[kQueueNameLabel] = "team-a";
         j.spec.shutdown_after_job_finishes = true;
       }},
      {"clusterSelector", [](RayJob& j) {
         j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "shared"}};
       }},
  };
  for (const auto& [name, shape] : shapes) {
    RayJob job = compliant_rayjob();
    job.spec.suspend = true;
    shape(job);
    const Findings got = run_rules(job, job.metadata.namespace_, default_test_policy());
    SCOPED_TRACE(name + "\n" + describe(got));
    EXPECT_FALSE(got.empty());
    for (const Finding& f : got) {
      for (const Edit& e : f.fix) {
        EXPECT_NE(e.field, "spec.suspend") << rule_id_name(f.rule) << ": " << f.message;
      }
    }
  }
}

TEST(Kueue, LifecycleModeOfARayJob) {
  PolicyConfig policy = default_test_policy();
  RayJob job = compliant_rayjob();
  EXPECT_EQ(lifecycle_mode_of(job, policy), LifecycleMode::kDeletionRules);
  kueue_form(job);
  EXPECT_EQ(lifecycle_mode_of(job, policy), LifecycleMode::kReaper);
  policy.kueue.lifecycle_mode = LifecycleMode::kOperatorDeletesRayJob;
  EXPECT_EQ(lifecycle_mode_of(job, policy), LifecycleMode::kOperatorDeletesRayJob);
  // clusterSelector only: Kueue leaves it alone, so lifecycle.mode applies.
  job.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "shared"}};
  job.spec.ray_cluster_spec.reset();
  EXPECT_EQ(lifecycle_mode_of(job, policy), LifecycleMode::kDeletionRules);
  RayJob unlabelled = compliant_rayjob();
  policy.kueue.manage_jobs_without_queue_name = true;
  EXPECT_EQ(lifecycle_mode_of(unlabelled, policy), LifecycleMode::kOperatorDeletesRayJob);
}

}  // namespace
}  // namespace rjg::policy::testing
