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

void named_groups(RayJob& j, const std::vector<std::string>& names) {
  worker_groups(j, names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    j.spec.ray_cluster_spec->worker_groups[i].group_name = names[i];
  }
}

const std::string kQueueField = "metadata.labels[kueue.x-k8s.io/queue-name]";
const std::string kMaxExecField = "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]";
const std::string kPriorityField = "metadata.labels[kueue.x-k8s.io/priority-class]";
const std::string kElasticField = "metadata.annotations[kueue.x-k8s.io/elastic-job]";

std::string group_field(std::size_t i, const std::string& leaf) {
  return "spec.rayClusterSpec.workerGroupSpecs[" + std::to_string(i) + "]." + leaf;
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
          {"clusterSelector only with a queue name that names no LocalQueue: still left alone",
           [](RayJob& j, PolicyConfig& p) {
             kueue_form(j);
             j.metadata.kueue_labels[kQueueNameLabel] = "Team_A";
             j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "shared"}};
             j.spec.ray_cluster_spec.reset();
             p.lifecycle.allow_cluster_selector = true;
           },
           {}},
      });
}

// Kueue checks its labels on every RayJob that carries them: a queue name must be able to name a
// LocalQueue (a DNS-1123 subdomain), max-exec-time-seconds a positive whole number (strconv.Atoi).
TEST(KueueWebhook, LabelValues) {
  const auto queue = [](std::string name) {
    return [name](RayJob& j, PolicyConfig&) {
      kueue_form(j);
      j.metadata.kueue_labels[kQueueNameLabel] = name;
    };
  };
  const auto max_exec = [](std::string value) {
    return [value](RayJob& j, PolicyConfig&) {
      kueue_form(j);
      j.metadata.kueue_labels[kMaxExecTimeLabel] = value;
    };
  };
  check_rows(
      RuleId::kKueueWebhook,
      {
          {"queue name team.a is a subdomain", queue("team.a"), {}},
          {"queue name Team_A",
           queue("Team_A"),
           {{kQueueField, "\"Team_A\" cannot name a LocalQueue (a DNS-1123 subdomain"}}},
          {"queue name team-: the name must end with a letter or digit",
           queue("team-"),
           {{kQueueField, "write the LocalQueue's name as it is (perhaps \"team\")"}}},
          {"an empty queue name: not Kueue's, and still refused",
           [](RayJob& j, PolicyConfig&) {
             j.metadata.kueue_labels[kQueueNameLabel] = "";
             j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
           },
           {{kQueueField, "\"\" cannot name a LocalQueue"}}},
          {"max-exec-time 3600", max_exec("3600"), {}},
          {"max-exec-time 007: Atoi reads 7", max_exec("007"), {}},
          {"max-exec-time at the top of int64", max_exec("9223372036854775807"), {}},
          {"max-exec-time above int64",
           max_exec("9223372036854775808"),
           {{kMaxExecField, "is not a whole number of seconds that Kueue can read"}}},
          {"max-exec-time 600s",
           max_exec("600s"),
           {{kMaxExecField, "\"600s\" is not a whole number of seconds"}}},
          {"max-exec-time empty", max_exec(""), {{kMaxExecField, "not a whole number"}}},
          {"max-exec-time 0", max_exec("0"), {{kMaxExecField, "\"0\" is not more than 0 seconds"}}},
          {"max-exec-time on a RayJob Kueue does not manage: still read",
           [](RayJob& j, PolicyConfig&) { j.metadata.kueue_labels[kMaxExecTimeLabel] = "1.5"; },
           {{kMaxExecField, "\"1.5\" is not a whole number"}}},
      });
}

// Kueue's Workload names its PodSets head, each worker group's name lowercased, and submitter
// (K8sJobMode): unique DNS-1123 labels, or Kueue never creates it; counts not negative.
TEST(KueueWebhook, WorkloadPodSets) {
  const auto groups = [](std::vector<std::string> names, std::string mode = "K8sJobMode") {
    return [names, mode](RayJob& j, PolicyConfig&) {
      kueue_form(j);
      named_groups(j, names);
      j.spec.submission_mode = mode;
    };
  };
  const std::string no_workload = "so Kueue never creates the RayJob's Workload";
  check_rows(
      RuleId::kKueueWebhook,
      {
          {"distinct lowercase names", groups({"cpu", "gpu-a100", "Big"}), {}},
          {"Head: the head's PodSet name",
           groups({"Head"}),
           {{group_field(0, "groupName"),
             "\"Head\" becomes Kueue's PodSet name \"head\", which the head's PodSet already "
             "has"}}},
          {"submitter in K8sJobMode",
           groups({"Submitter"}),
           {{group_field(0, "groupName"), "which the K8sJobMode submitter's PodSet already has"}}},
          {"submitter in HTTPMode: no submitter PodSet", groups({"submitter"}, "HTTPMode"), {}},
          {"a and A",
           groups({"a", "A"}),
           {{group_field(1, "groupName"), "which workerGroupSpecs[0]'s PodSet already has"}}},
          {"two empty names: both main",
           groups({"", ""}),
           {{group_field(1, "groupName"),
             "an empty groupName becomes Kueue's PodSet name \"main\", which "
             "workerGroupSpecs[0]'s PodSet"}}},
          {"an underscore",
           groups({"cpu_workers"}),
           {{group_field(0, "groupName"), "rename the worker group (e.g. \"cpu-workers\")"}}},
          {"a dot", groups({"g.1"}), {{group_field(0, "groupName"), no_workload}}},
          {"64 characters",
           groups({std::string(64, 'a')}),
           {{group_field(0, "groupName"), "at most 63 characters"}}},
          {"63 characters", groups({std::string(63, 'a')}), {}},
          {"negative replicas",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             j.spec.ray_cluster_spec->worker_groups[0].replicas = -1;
           },
           {{group_field(0, "replicas"), "-1 is negative"}}},
          {"replicas times numOfHosts wraps around",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             j.spec.ray_cluster_spec->worker_groups[0].replicas = 1073741824;
             j.spec.ray_cluster_spec->worker_groups[0].num_of_hosts = 2;
           },
           {{group_field(0, "replicas"), "replicas times numOfHosts exceeds 2147483647"}}},
          {"replicas times numOfHosts wraps to 0: a count Kueue takes",
           [](RayJob& j, PolicyConfig&) {
             kueue_form(j);
             j.spec.ray_cluster_spec->worker_groups[0].replicas = 65536;
             j.spec.ray_cluster_spec->worker_groups[0].num_of_hosts = 65536;
           },
           {}},
          {"not Kueue's: nothing is checked",
           [](RayJob& j, PolicyConfig&) {
             named_groups(j, {"Head", "g_1"});
             j.spec.ray_cluster_spec->worker_groups[0].replicas = -1;
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

// An UPDATE of one RayJob: `before` is the stored object, `edit` makes the new one from it.
Findings update(const std::function<void(RayJob&)>& before,
                const std::function<void(RayJob&)>& edit) {
  RayJob old = compliant_rayjob();
  kueue_form(old);
  before(old);
  RayJob now = old;
  edit(now);
  const PolicyConfig policy = only_rule(RuleId::kKueueWebhook, default_test_policy());
  return run_rules(now, now.metadata.namespace_, policy, &old);
}

// A label of Kueue's set to `value`; std::nullopt removes it.
void set_label(RayJob& j, std::string_view key, const std::optional<std::string>& value) {
  if (value) {
    j.metadata.kueue_labels[key] = *value;
  } else {
    j.metadata.kueue_labels.erase(key);
  }
}

// Kueue validates the UPDATE of a RayJob it takes now or took before, clusterSelector-only ones
// included: moving one to another queue while it runs is refused.
TEST(KueueWebhook, QueueChangeOfAClusterSelectorRayJob) {
  const Findings got = update(
      [](RayJob& j) {
        j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "shared"}};
        j.spec.ray_cluster_spec.reset();
      },
      [](RayJob& j) {
        j.metadata.kueue_labels[kQueueNameLabel] = "team-b";
        j.spec.suspend = false;
      });
  SCOPED_TRACE(describe(got));
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].field, kQueueField);
}

// On UPDATE, Kueue refuses giving a running RayJob a priority class, and taking one away at all.
TEST(KueueWebhook, PriorityClassOnUpdate) {
  struct Case {
    std::string name;
    std::optional<std::string> before, after;
    bool suspended;
    std::string fragment;  // empty: nothing reported
    std::vector<Edit> fix;
  };
  const Case cases[] = {
      {"unchanged, running", "high", "high", false, "", {}},
      {"changed while running: Kueue lets the class change", "high", "low", false, "", {}},
      {"added while suspended", std::nullopt, "high", true, "", {}},
      {"added while running",
       std::nullopt,
       "high",
       false,
       "added (\"high\") while the RayJob is not suspended, which Kueue refuses",
       {Edit::remove(kPriorityField)}},
      {"set to empty while running counts as none", std::nullopt, "", false, "", {}},
      {"removed while running",
       "high",
       std::nullopt,
       false,
       "removed, which Kueue refuses, suspended or not",
       {Edit::set(kPriorityField, std::string("high"))}},
      {"removed while suspended",
       "high",
       std::nullopt,
       true,
       "keep kueue.x-k8s.io/priority-class: \"high\"",
       {Edit::set(kPriorityField, std::string("high"))}},
      {"emptied while suspended",
       "high",
       "",
       true,
       "removed",
       {Edit::set(kPriorityField, std::string("high"))}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Findings got = update([&](RayJob& j) { set_label(j, kPriorityClassLabel, c.before); },
                                [&](RayJob& j) {
                                  set_label(j, kPriorityClassLabel, c.after);
                                  j.spec.suspend = c.suspended;
                                });
    SCOPED_TRACE(describe(got));
    if (c.fragment.empty()) {
      EXPECT_TRUE(got.empty());
      continue;
    }
    ASSERT_EQ(got.size(), 1U);
    EXPECT_EQ(got[0].field, kPriorityField);
    EXPECT_NE(got[0].message.find(c.fragment), std::string::npos);
    EXPECT_EQ(got[0].fix, c.fix);
  }
}

// On UPDATE, Kueue refuses changing max-exec-time-seconds unless the RayJob was and stays
// suspended.
TEST(KueueWebhook, MaxExecTimeOnUpdate) {
  struct Case {
    std::string name;
    std::optional<std::string> before, after;
    bool was_suspended, suspended;
    std::string fragment;  // empty: nothing reported
  };
  const Case cases[] = {
      {"unchanged, running", "600", "600", false, false, ""},
      {"changed while suspended throughout", "600", "1200", true, true, ""},
      {"changed while running", "600", "1200", false, false,
       "changed from \"600\" to \"1200\" while the RayJob is or was not suspended"},
      {"changed as Kueue suspends it", "600", "1200", false, true, "keep"},
      {"changed as Kueue unsuspends it", "600", "1200", true, false, "keep"},
      {"added while running", std::nullopt, "600", false, false, "leave the RayJob without it"},
      {"removed while running", "600", std::nullopt, false, false, "removed"},
      {"absent and empty read alike", std::nullopt, "", false, false, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Findings got = update(
        [&](RayJob& j) {
          set_label(j, kMaxExecTimeLabel, c.before);
          j.spec.suspend = c.was_suspended;
        },
        [&](RayJob& j) {
          set_label(j, kMaxExecTimeLabel, c.after);
          j.spec.suspend = c.suspended;
        });
    SCOPED_TRACE(describe(got));
    // An empty label is also a value Kueue cannot read: that finding is the create check's.
    Findings changes;
    for (const Finding& f : got) {
      if (f.message.find("not a whole number") == std::string::npos) {
        changes.push_back(f);
      }
    }
    if (c.fragment.empty()) {
      EXPECT_TRUE(changes.empty());
      continue;
    }
    ASSERT_EQ(changes.size(), 1U);
    EXPECT_EQ(changes[0].field, kMaxExecField);
    EXPECT_NE(changes[0].message.find(c.fragment), std::string::npos);
  }
}

// On UPDATE, Kueue refuses turning elastic scaling (elastic-job "true") on or off, suspended or
// not; only "true" counts.
TEST(KueueWebhook, ElasticJobOnUpdate) {
  struct Case {
    std::string name;
    std::optional<std::string> before, after;
    std::string fragment;  // empty: nothing reported
    std::vector<Edit> fix;
  };
  const Case cases[] = {
      {"true throughout", "true", "true", "", {}},
      {"false to absent: never elastic", "false", std::nullopt, "", {}},
      {"turned on",
       std::nullopt,
       "true",
       "now \"true\", which turns elastic scaling on",
       {Edit::remove(kElasticField)}},
      {"turned on from false",
       "false",
       "true",
       "keep kueue.x-k8s.io/elastic-job: \"false\"",
       {Edit::set(kElasticField, std::string("false"))}},
      {"turned off",
       "true",
       "false",
       "no longer \"true\", which turns elastic scaling off",
       {Edit::set(kElasticField, std::string("true"))}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto set = [](RayJob& j, const std::optional<std::string>& v) {
      if (v) {
        j.metadata.kueue_annotations[kElasticJobAnnotation] = *v;
      } else {
        j.metadata.kueue_annotations.erase(kElasticJobAnnotation);
      }
    };
    const Findings got =
        update([&](RayJob& j) { set(j, c.before); }, [&](RayJob& j) { set(j, c.after); });
    SCOPED_TRACE(describe(got));
    if (c.fragment.empty()) {
      EXPECT_TRUE(got.empty());
      continue;
    }
    ASSERT_EQ(got.size(), 1U);
    EXPECT_EQ(got[0].field, kElasticField);
    EXPECT_NE(got[0].message.find(c.fragment), std::string::npos);
    EXPECT_EQ(got[0].fix, c.fix);
  }
}

// An UPDATE of a RayJob Kueue neither takes nor took is not Kueue's to judge.
TEST(KueueWebhook, UpdateOfARayJobKueueNeverTook) {
  const Findings got = update(
      [](RayJob& j) {
        j.metadata.kueue_labels.erase(kQueueNameLabel);
        j.metadata.kueue_labels[kPriorityClassLabel] = "high";
        j.metadata.kueue_labels[kMaxExecTimeLabel] = "600";
      },
      [](RayJob& j) {
        j.metadata.kueue_labels = {};
        j.spec.suspend = false;
        j.metadata.kueue_annotations[kElasticJobAnnotation] = "true";
      });
  EXPECT_TRUE(got.empty()) << describe(got);
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
  // An empty queue name is none, for Kueue too.
  RayJob empty = compliant_rayjob();
  empty.metadata.kueue_labels[kQueueNameLabel] = "";
  EXPECT_EQ(lifecycle_mode_of(empty, policy), LifecycleMode::kDeletionRules);
  RayJob unlabelled = compliant_rayjob();
  policy.kueue.manage_jobs_without_queue_name = true;
  EXPECT_EQ(lifecycle_mode_of(unlabelled, policy), LifecycleMode::kOperatorDeletesRayJob);
}

}  // namespace
}  // namespace rjg::policy::testing
