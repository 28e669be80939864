// kuberay-schema: the RayJob passes what the pinned KubeRay version checks after admission, and
// uses no field that version does not know.
#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

using M = std::function<void(RayJob&, PolicyConfig&)>;

void version(PolicyConfig& p, int minor) { p.kuberay.version = {1, minor}; }
std::vector<DeletionRule>& rules(RayJob& j) { return *j.spec.deletion_strategy->deletion_rules; }
RayClusterSpec& rc(RayJob& j) { return *j.spec.ray_cluster_spec; }
WorkerGroup& worker(RayJob& j) { return rc(j).worker_groups[0]; }
void selector(RayJob& j, FlatMap<std::string> s) { j.spec.cluster_selector = std::move(s); }
void selector_mode(RayJob& j) {
  j.spec.ray_cluster_spec.reset();
  selector(j, {{"ray.io/cluster", "shared"}});
}
void legacy(RayJob& j, std::optional<std::string> on_success,
            std::optional<std::string> on_failure) {
  DeletionStrategy ds;
  ds.has_on_success = on_success.has_value();
  ds.on_success_policy = on_success;
  ds.has_on_failure = on_failure.has_value();
  ds.on_failure_policy = on_failure;
  j.spec.deletion_strategy = ds;
}

const std::string kRejects16 =
    "the KubeRay 1.6 operator rejects this RayJob after admission and it stays in "
    "ValidationFailed, holding quota";

TEST(KuberaySchema, CompliantAcrossVersions) {
  check_rows(RuleId::kKuberaySchema,
             {
                 {"1.6 compliant", nullptr, {}},
                 {"1.7 compliant", [](RayJob&, PolicyConfig& p) { version(p, 7); }, {}},
                 {"1.5 compliant without the deployment rule",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 5);
                    rules(j).pop_back();
                  },
                  {}},
                 {"1.4 with deletionPolicy",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 4);
                    j.spec.deletion_strategy.reset();
                    j.spec.deletion_policy = "DeleteSelf";
                    j.spec.shutdown_after_job_finishes = true;
                  },
                  {}},
                 {"1.0 with only what 1.0 knows",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 0);
                    j.spec.deletion_strategy.reset();
                    j.spec.active_deadline_seconds.reset();
                    j.spec.backoff_limit.reset();
                    j.spec.submission_mode.reset();
                  },
                  {}},
             });
}

TEST(KuberaySchema, Metadata) {
  const std::string f = "metadata.name";
  check_rows(RuleId::kKuberaySchema,
             {
                 {"47 characters",
                  [](RayJob& j, PolicyConfig&) { j.metadata.name = std::string(47, 'j'); },
                  {}},
                 {"48 characters",
                  [](RayJob& j, PolicyConfig&) { j.metadata.name = std::string(48, 'j'); },
                  {{f, "is 48 characters, more than the 47 KubeRay allows"}}},
                 {"digits only is not DNS-1035",
                  [](RayJob& j, PolicyConfig&) { j.metadata.name = std::string(47, '1'); },
                  {{f, "is not a DNS-1035 label; " + kRejects16}}},
                 {"dots are not DNS-1035",
                  [](RayJob& j, PolicyConfig&) { j.metadata.name = "my.job"; },
                  {{f, "use lowercase letters, digits and '-'"}}},
                 {"trailing dash",
                  [](RayJob& j, PolicyConfig&) { j.metadata.name = "job-"; },
                  {{f, "DNS-1035"}}},
                 {"upper case",
                  [](RayJob& j, PolicyConfig&) { j.metadata.name = "Job"; },
                  {{f, "DNS-1035"}}},
                 {"empty name (generateName in check) is skipped",
                  [](RayJob& j, PolicyConfig&) {
                    j.metadata.name.clear();
                    j.metadata.generate_name = "job-";
                  },
                  {}},
                 {"1.4 checks, with the requeue wording",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 4);
                    j.spec.deletion_strategy.reset();
                    j.metadata.name = std::string(48, 'a');
                  },
                  {{f, "InvalidRayJobMetadata"}}},
                 {"1.3 does not check names",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 3);
                    j.spec.deletion_strategy.reset();
                    j.metadata.name = std::string(48, 'a');
                  },
                  {}},
             });
}

TEST(KuberaySchema, SuspendAndTtl) {
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"suspend without shutdown",
           [](RayJob& j, PolicyConfig&) { j.spec.suspend = true; },
           {{"spec.suspend", "set shutdownAfterJobFinishes: true or remove suspend"}}},
          {"suspend with shutdown (no rules, which forbid shutdown)",
           [](RayJob& j, PolicyConfig&) {
             j.spec.deletion_strategy.reset();
             j.spec.suspend = true;
             j.spec.shutdown_after_job_finishes = true;
           },
           {}},
          {"suspend with shutdown on 1.1",
           [](RayJob& j, PolicyConfig& p) {
             version(p, 1);
             j.spec.deletion_strategy.reset();
             j.spec.suspend = true;
           },
           {{"spec.suspend", "requeues it forever (Warning event InvalidRayJobSpec)"}}},
          {"TTL negative",
           [](RayJob& j, PolicyConfig&) { j.spec.ttl_seconds_after_finished = -5; },
           {{"spec.ttlSecondsAfterFinished", "-5 is negative"}}},
          {"TTL without shutdown",
           [](RayJob& j, PolicyConfig&) { j.spec.ttl_seconds_after_finished = 5; },
           {{"spec.ttlSecondsAfterFinished", "5 is set but shutdownAfterJobFinishes is not true"}}},
          {"TTL with shutdown",
           [](RayJob& j, PolicyConfig&) {
             j.spec.deletion_strategy.reset();
             j.spec.shutdown_after_job_finishes = true;
             j.spec.ttl_seconds_after_finished = 5;
           },
           {}},
          {"TTL without shutdown on 1.3 is not checked yet",
           [](RayJob& j, PolicyConfig& p) {
             version(p, 3);
             j.spec.deletion_strategy.reset();
             j.spec.ttl_seconds_after_finished = 5;
           },
           {}},
      });
}

TEST(KuberaySchema, DeletionStrategyForm) {
  const std::string ds = "spec.deletionStrategy";
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"gate off",
           [](RayJob&, PolicyConfig& p) { p.kuberay.ray_job_deletion_policy_gate = false; },
           {{ds, "needs the RayJobDeletionPolicy feature gate"}}},
          {"rules with shutdown",
           [](RayJob& j, PolicyConfig&) { j.spec.shutdown_after_job_finishes = true; },
           {{"spec.shutdownAfterJobFinishes",
             "true together with deletionStrategy.deletionRules"}}},
          {"rules with onSuccess",
           [](RayJob& j, PolicyConfig&) {
             j.spec.deletion_strategy->has_on_success = true;
             j.spec.deletion_strategy->on_success_policy = "DeleteSelf";
           },
           {{ds, "cannot be used together"},
            {ds + ".onFailure", "the legacy form needs both onSuccess and onFailure"}}},
          {"empty deletionStrategy",
           [](RayJob& j, PolicyConfig&) { j.spec.deletion_strategy = DeletionStrategy{}; },
           {{ds, "needs either both onSuccess and onFailure, or a non-empty deletionRules list"}}},
          {"empty rules list",
           [](RayJob& j, PolicyConfig&) { rules(j).clear(); },
           {{ds + ".deletionRules", "is an empty list"}, {ds, "needs either both"}}},
          {"legacy DeleteCluster/DeleteCluster with shutdown",
           [](RayJob& j, PolicyConfig&) {
             legacy(j, "DeleteCluster", "DeleteCluster");
             j.spec.shutdown_after_job_finishes = true;
           },
           {}},
          {"legacy only onFailure",
           [](RayJob& j, PolicyConfig&) { legacy(j, std::nullopt, "DeleteCluster"); },
           {{ds + ".onSuccess", "missing: the legacy form needs both"}}},
          {"legacy only onSuccess",
           [](RayJob& j, PolicyConfig&) { legacy(j, "DeleteSelf", std::nullopt); },
           {{ds + ".onFailure", "missing"}}},
          {"legacy onFailure without policy",
           [](RayJob& j, PolicyConfig&) {
             legacy(j, "DeleteSelf", std::nullopt);
             j.spec.deletion_strategy->has_on_failure = true;
           },
           {{ds + ".onFailure.policy", "missing"}}},
          {"legacy unknown policy",
           [](RayJob& j, PolicyConfig&) { legacy(j, "DeleteAll", "DeleteSelf"); },
           {{ds + ".onSuccess.policy", "CRD refuses this RayJob at the apiserver"}}},
          {"legacy DeleteWorkers with clusterSelector",
           [](RayJob& j, PolicyConfig&) {
             legacy(j, "DeleteWorkers", "DeleteWorkers");
             selector_mode(j);
           },
           {{ds + ".onSuccess.policy", "cannot be used with clusterSelector"},
            {ds + ".onFailure.policy", "cannot be used with clusterSelector"}}},
          {"legacy DeleteWorkers with autoscaling",
           [](RayJob& j, PolicyConfig&) {
             legacy(j, "DeleteSelf", "DeleteWorkers");
             rc(j).enable_in_tree_autoscaling = true;
           },
           {{ds + ".onFailure.policy", "enableInTreeAutoscaling"}}},
          {"legacy DeleteNone with shutdown",
           [](RayJob& j, PolicyConfig&) {
             legacy(j, "DeleteNone", "DeleteNone");
             j.spec.shutdown_after_job_finishes = true;
           },
           {{ds + ".onSuccess.policy", "DeleteNone contradicts shutdownAfterJobFinishes"},
            {ds + ".onFailure.policy", "DeleteNone contradicts"}}},
          {"no deletionStrategy with shutdown",
           [](RayJob& j, PolicyConfig&) {
             j.spec.deletion_strategy.reset();
             j.spec.shutdown_after_job_finishes = true;
           },
           {}},
      });
}

TEST(KuberaySchema, DeletionRules) {
  auto r = [](int i) { return "spec.deletionStrategy.deletionRules[" + std::to_string(i) + "]"; };
  auto set = [](std::vector<DeletionRule> list) -> M {
    return [list](RayJob& j, PolicyConfig&) { rules(j) = list; };
  };
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"single SUCCEEDED DeleteSelf", set({rule("DeleteSelf", "SUCCEEDED", 10)}), {}},
          {"workers 10 / cluster 20 / self 30, self 0 on FAILED",
           set({rule("DeleteWorkers", "SUCCEEDED", 10), rule("DeleteCluster", "SUCCEEDED", 20),
                rule("DeleteSelf", "SUCCEEDED", 30), rule("DeleteSelf", "FAILED", 0)}),
           {}},
          {"deployment Failed: cluster 10 / self 20",
           set({rule("DeleteCluster", "Failed", 10, true), rule("DeleteSelf", "Failed", 20, true)}),
           {}},
          {"FAILED workers 10 + deployment Failed cluster 20",
           set({rule("DeleteWorkers", "FAILED", 10), rule("DeleteCluster", "Failed", 20, true)}),
           {}},
          {"duplicate SUCCEEDED DeleteSelf",
           set({rule("DeleteSelf", "SUCCEEDED", 10), rule("DeleteSelf", "SUCCEEDED", 20)}),
           {{r(1), "duplicates deletionRules[0] (DeleteSelf for jobStatus SUCCEEDED)"}}},
          {"duplicate deployment Failed DeleteCluster",
           set({rule("DeleteCluster", "Failed", 10, true),
                rule("DeleteCluster", "Failed", 10, true)}),
           {{r(1), "duplicates deletionRules[0]"}}},
          {"negative ttlSeconds",
           set({rule("DeleteSelf", "SUCCEEDED", -10)}),
           {{r(0) + ".condition.ttlSeconds", "-10 is negative"}}},
          {"DeleteWorkers with clusterSelector",
           [](RayJob& j, PolicyConfig&) {
             rules(j) = {rule("DeleteWorkers", "SUCCEEDED", 10)};
             selector_mode(j);
           },
           {{r(0) + ".policy", "DeleteWorkers cannot be used with clusterSelector"}}},
          {"DeleteCluster with clusterSelector",
           [](RayJob& j, PolicyConfig&) {
             rules(j) = {rule("DeleteCluster", "SUCCEEDED", 10)};
             selector_mode(j);
           },
           {{r(0) + ".policy", "DeleteCluster cannot be used with clusterSelector"}}},
          {"DeleteSelf with clusterSelector is accepted by the operator",
           [](RayJob& j, PolicyConfig&) { selector_mode(j); },
           {}},
          {"DeleteWorkers with autoscaling",
           [](RayJob& j, PolicyConfig&) {
             rules(j).push_back(rule("DeleteWorkers", "FAILED", 10));
             rc(j).enable_in_tree_autoscaling = true;
           },
           {{r(3) + ".policy", "DeleteWorkers does not work with enableInTreeAutoscaling"}}},
          {"workers 20 > cluster 10",
           set({rule("DeleteWorkers", "SUCCEEDED", 20), rule("DeleteCluster", "SUCCEEDED", 10)}),
           {{r(1) + ".condition.ttlSeconds",
             "for jobStatus SUCCEEDED, the DeleteCluster TTL (10) is shorter than the "
             "DeleteWorkers "
             "TTL (20)"}}},
          {"cluster 20 > self 10",
           set({rule("DeleteCluster", "SUCCEEDED", 20), rule("DeleteSelf", "SUCCEEDED", 10)}),
           {{r(1) + ".condition.ttlSeconds",
             "DeleteSelf TTL (10) is shorter than the DeleteCluster"}}},
          {"workers 20 > cluster 10 under deployment Failed",
           set({rule("DeleteWorkers", "Failed", 20, true),
                rule("DeleteCluster", "Failed", 10, true)}),
           {{r(1) + ".condition.ttlSeconds", "for jobDeploymentStatus Failed"}}},
          {"order is per condition: FAILED self 0 does not conflict with SUCCEEDED workers 10",
           set({rule("DeleteWorkers", "SUCCEEDED", 10), rule("DeleteSelf", "FAILED", 0)}),
           {}},
          {"both jobStatus and jobDeploymentStatus",
           [](RayJob& j, PolicyConfig&) { rules(j)[0].job_deployment_status = "Failed"; },
           {{r(0) + ".condition", "sets both jobStatus and jobDeploymentStatus"}}},
          {"neither",
           [](RayJob& j, PolicyConfig&) { rules(j)[0].job_status.reset(); },
           {{r(0) + ".condition", "sets neither"}}},
          {"no condition",
           [](RayJob& j, PolicyConfig&) {
             rules(j)[0].has_condition = false;
             rules(j)[0].job_status.reset();
           },
           {{r(0) + ".condition", "missing"}}},
          {"no policy",
           [](RayJob& j, PolicyConfig&) { rules(j)[0].policy.reset(); },
           {{r(0) + ".policy", "missing"}}},
          {"unknown policy and statuses",
           [](RayJob& j, PolicyConfig&) {
             rules(j)[0].policy = "Delete";
             rules(j)[1].job_status = "STOPPED";
             rules(j)[2].job_deployment_status = "Complete";
           },
           {{r(0) + ".policy", "\"Delete\" is not a deletion policy"},
            {r(1) + ".condition.jobStatus", "\"STOPPED\" is not SUCCEEDED or FAILED"},
            {r(2) + ".condition.jobDeploymentStatus", "\"Complete\" is not Failed"}}},
          {"1.5: jobDeploymentStatus unknown, jobStatus required",
           [](RayJob&, PolicyConfig& p) { version(p, 5); },
           {{r(2) + ".condition.jobDeploymentStatus",
             "the KubeRay 1.5 API does not know this field"},
            {r(2) + ".condition.jobStatus", "missing (required in KubeRay 1.5)"}}},
      });
}

TEST(KuberaySchema, DeletionPolicy13To14) {
  auto dp = [](int minor, std::string value, bool shutdown = true) -> M {
    return [=](RayJob& j, PolicyConfig& p) {
      version(p, minor);
      j.spec.deletion_strategy.reset();
      j.spec.deletion_policy = value;
      j.spec.shutdown_after_job_finishes = shutdown;
    };
  };
  const std::string f = "spec.deletionPolicy";
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"1.3 DeleteSelf", dp(3, "DeleteSelf"), {}},
          {"1.4 DeleteCluster", dp(4, "DeleteCluster"), {}},
          {"1.4 gate off",
           [=](RayJob& j, PolicyConfig& p) {
             dp(4, "DeleteSelf")(j, p);
             p.kuberay.ray_job_deletion_policy_gate = false;
           },
           {{f, "needs the RayJobDeletionPolicy feature gate"}}},
          {"1.4 unknown value", dp(4, "Delete"), {{f, "\"Delete\" is not a deletion policy"}}},
          {"1.4 DeleteNone with shutdown", dp(4, "DeleteNone"), {{f, "DeleteNone contradicts"}}},
          {"1.4 DeleteNone without shutdown", dp(4, "DeleteNone", false), {}},
          {"1.4 DeleteWorkers with clusterSelector",
           [=](RayJob& j, PolicyConfig& p) {
             dp(4, "DeleteWorkers")(j, p);
             selector_mode(j);
           },
           {{f, "DeleteWorkers cannot be used with clusterSelector"}}},
          {"1.4 DeleteWorkers with autoscaling",
           [=](RayJob& j, PolicyConfig& p) {
             dp(4, "DeleteWorkers")(j, p);
             rc(j).enable_in_tree_autoscaling = true;
           },
           {{f, "enableInTreeAutoscaling"}}},
          {"1.5 no longer knows deletionPolicy; its remedy is the reaper or the operator",
           dp(5, "DeleteSelf"),
           {{f, "it existed only in 1.3 and 1.4): the apiserver prunes it, so it has no effect; "
                "remove deletionPolicy: on KubeRay 1.5 the reaper or the operator deletes finished "
                "RayJobs (lifecycle mode reaper or operatorDeletesRayJob)"}}},
          {"1.6 no longer knows deletionPolicy; its remedy is deletionRules",
           dp(6, "DeleteSelf"),
           {{f, "prunes it, so it has no effect; use deletionStrategy.deletionRules"}}},
          {"1.2 does not know it yet",
           dp(2, "DeleteSelf"),
           {{f, "the KubeRay 1.2 API does not know this field (it exists from 1.3)"}}},
      });
}

TEST(KuberaySchema, UnknownFieldsByVersion) {
  check_rows(RuleId::kKuberaySchema,
             {
                 {"deletionStrategy on 1.4",
                  [](RayJob&, PolicyConfig& p) { version(p, 4); },
                  {{"spec.deletionStrategy", "use deletionPolicy: DeleteSelf"}}},
                 {"deletionStrategy on 1.2",
                  [](RayJob&, PolicyConfig& p) { version(p, 2); },
                  {{"spec.deletionStrategy",
                    "the KubeRay 1.2 API does not know this field (it exists from 1.5)"}}},
                 {"preRunningDeadlineSeconds on 1.5",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 5);
                    rules(j).pop_back();
                    j.spec.pre_running_deadline_seconds = 600;
                  },
                  {{"spec.preRunningDeadlineSeconds", "use activeDeadlineSeconds"}}},
                 {"preRunningDeadlineSeconds on 1.6",
                  [](RayJob& j, PolicyConfig&) { j.spec.pre_running_deadline_seconds = 600; },
                  {}},
                 {"managedBy on 1.2",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 2);
                    j.spec.deletion_strategy.reset();
                    j.spec.managed_by = "ray.io/kuberay-operator";
                    rc(j).managed_by = "ray.io/kuberay-operator";
                  },
                  {{"spec.managedBy", "(it exists from 1.3)"},
                   {"spec.rayClusterSpec.managedBy", "exists from 1.3"}}},
                 {"managedBy on 1.3 with a known value",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 3);
                    j.spec.deletion_strategy.reset();
                    j.spec.managed_by = "kueue.x-k8s.io/multikueue";
                  },
                  {}},
                 {"managedBy with an unknown value",
                  [](RayJob& j, PolicyConfig&) { j.spec.managed_by = "me"; },
                  {{"spec.managedBy", "is not a known manager"}}},
                 {"backoffLimit 1 and submitterConfig on 1.1",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 1);
                    j.spec.deletion_strategy.reset();
                    j.spec.backoff_limit = 1;
                    j.spec.has_submitter_config = true;
                  },
                  {{"spec.backoffLimit", "the operator does not retry RayJobs"},
                   {"spec.submitterConfig", "fixed at 2"}}},
                 {"backoffLimit 0 on 1.1 is what a newer CRD defaults: not reported",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 1);
                    j.spec.deletion_strategy.reset();
                  },
                  {}},
                 {"activeDeadlineSeconds and numOfHosts 4 on 1.0",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 0);
                    j.spec.deletion_strategy.reset();
                    j.spec.backoff_limit.reset();
                    worker(j).num_of_hosts = 4;
                  },
                  {{"spec.activeDeadlineSeconds", "KubeRay 1.0 has no run deadline"},
                   {"spec.rayClusterSpec.workerGroupSpecs[0].numOfHosts", "exists from 1.1"}}},
                 {"worker suspend on 1.2",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 2);
                    j.spec.deletion_strategy.reset();
                    worker(j).suspend = true;
                  },
                  {{"spec.rayClusterSpec.workerGroupSpecs[0].suspend", "exists from 1.3"}}},
                 {"entrypoint required before 1.3",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 2);
                    j.spec.deletion_strategy.reset();
                    j.spec.entrypoint.reset();
                  },
                  {{"spec.entrypoint", "required before KubeRay 1.3"}}},
                 {"entrypoint optional from 1.3",
                  [](RayJob& j, PolicyConfig&) { j.spec.entrypoint.reset(); },
                  {}},
             });
}

TEST(KuberaySchema, ClusterSelectorAndModes) {
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"selector mode", [](RayJob& j, PolicyConfig&) { selector_mode(j); }, {}},
          {"neither rayClusterSpec nor clusterSelector",
           [](RayJob& j, PolicyConfig&) { j.spec.ray_cluster_spec.reset(); },
           {{"spec.rayClusterSpec", "neither rayClusterSpec nor a non-empty clusterSelector"}}},
          {"empty clusterSelector",
           [](RayJob& j, PolicyConfig&) {
             j.spec.ray_cluster_spec.reset();
             selector(j, {});
           },
           {{"spec.rayClusterSpec", "neither"}}},
          // Every operator version accepts both (it uses the existing cluster and still
          // validates rayClusterSpec); KubeRay's 1.7 tables have this case as valid.
          {"both is accepted",
           [](RayJob& j, PolicyConfig&) {
             selector(j, {{"ray.io/cluster", "c"}});
           },
           {}},
          {"both: rayClusterSpec is still validated",
           [](RayJob& j, PolicyConfig&) {
             selector(j, {{"ray.io/cluster", "c"}});
             rc(j).head.pod_template.containers.clear();
           },
           {{"spec.rayClusterSpec.headGroupSpec.template.spec.containers", "no container"}}},
          {"ray.io/cluster empty",
           [](RayJob& j, PolicyConfig&) {
             selector_mode(j);
             selector(j, {{"ray.io/cluster", ""}});
           },
           {{"spec.clusterSelector[ray.io/cluster]", "missing or empty"}}},
          {"other key only",
           [](RayJob& j, PolicyConfig&) {
             selector_mode(j);
             selector(j, {{"key", "value"}});
           },
           {{"spec.clusterSelector[ray.io/cluster]", "missing or empty"}}},
          {"other key only on 1.4 is not checked",
           [](RayJob& j, PolicyConfig& p) {
             version(p, 4);
             j.spec.deletion_strategy.reset();
             selector_mode(j);
             selector(j, {{"key", "value"}});
           },
           {}},
          {"suspend with clusterSelector",
           [](RayJob& j, PolicyConfig&) {
             selector_mode(j);
             j.spec.deletion_strategy.reset();
             j.spec.shutdown_after_job_finishes = true;
             j.spec.suspend = true;
           },
           {{"spec.suspend", "not supported with clusterSelector"}}},
          {"SidecarMode with clusterSelector",
           [](RayJob& j, PolicyConfig&) {
             selector_mode(j);
             j.spec.submission_mode = "SidecarMode";
           },
           {{"spec.submissionMode", "SidecarMode cannot be used with clusterSelector"}}},
          {"backoffLimit 1 with clusterSelector",
           [](RayJob& j, PolicyConfig&) {
             selector_mode(j);
             j.spec.backoff_limit = 1;
           },
           {{"spec.backoffLimit", "retries are not supported with clusterSelector"}}},
          {"backoffLimit 1 with clusterSelector on 1.5 is accepted",
           [](RayJob& j, PolicyConfig& p) {
             version(p, 5);
             rules(j).pop_back();
             selector_mode(j);
             j.spec.backoff_limit = 1;
           },
           {}},
          {"InteractiveMode backoffLimit 1",
           [](RayJob& j, PolicyConfig&) {
             j.spec.submission_mode = "InteractiveMode";
             j.spec.backoff_limit = 1;
           },
           {{"spec.backoffLimit", "not supported in InteractiveMode"}}},
          {"InteractiveMode backoffLimit 0 or nil",
           [](RayJob& j, PolicyConfig&) {
             j.spec.submission_mode = "InteractiveMode";
             j.spec.backoff_limit.reset();
           },
           {}},
          {"SidecarMode with submitter template, config and head restartPolicy Always",
           [](RayJob& j, PolicyConfig&) {
             j.spec.submission_mode = "SidecarMode";
             j.spec.submitter_pod_template = PodTemplate{};
             j.spec.has_submitter_config = true;
             rc(j).head.pod_template.restart_policy = "Always";
           },
           {{"spec.submitterPodTemplate", "not supported in SidecarMode"},
            {"spec.submitterConfig", "not supported in SidecarMode"},
            {"spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy", "\"Always\""}}},
          {"SidecarMode, head restartPolicy Never",
           [](RayJob& j, PolicyConfig&) {
             j.spec.submission_mode = "SidecarMode";
             rc(j).head.pod_template.restart_policy = "Never";
           },
           {}},
      });
}

TEST(KuberaySchema, ClusterSpec) {
  const std::string w0 = "spec.rayClusterSpec.workerGroupSpecs[0]";
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"K8s token auth",
           [](RayJob& j, PolicyConfig&) { rc(j).enable_k8s_token_auth = true; },
           {{"spec.rayClusterSpec.authOptions.enableK8sTokenAuth", "not supported for RayJob"}}},
          {"head without container",
           [](RayJob& j, PolicyConfig&) { rc(j).head.pod_template.containers.clear(); },
           {{"spec.rayClusterSpec.headGroupSpec.template.spec.containers", "no container"}}},
          {"worker without container",
           [](RayJob& j, PolicyConfig&) { worker(j).pod_template.containers.clear(); },
           {{w0 + ".template.spec.containers", "no container"}}},
          {"head without container on 1.3 (cluster spec not validated)",
           [](RayJob& j, PolicyConfig& p) {
             version(p, 3);
             j.spec.deletion_strategy.reset();
             rc(j).head.pod_template.containers.clear();
           },
           {}},
          {"group resources and rayStartParams resources",
           [](RayJob& j, PolicyConfig&) {
             rc(j).head.has_group_resources = true;
             rc(j).head.ray_start_params_sets_resources = true;
             worker(j).has_group_resources = true;
             worker(j).ray_start_params_sets_resources = true;
           },
           {{"spec.rayClusterSpec.headGroupSpec.resources", "use only one of them"},
            {w0 + ".resources", "both here and in rayStartParams"}}},
          {"only group resources",
           [](RayJob& j, PolicyConfig&) { worker(j).has_group_resources = true; },
           {}},
          {"min/max missing without autoscaling",
           [](RayJob& j, PolicyConfig&) { worker(j).max_replicas.reset(); },
           {{w0 + ".maxReplicas", "both minReplicas and maxReplicas must be set"}}},
          {"min/max missing with autoscaling",
           [](RayJob& j, PolicyConfig&) {
             worker(j).max_replicas.reset();
             worker(j).min_replicas.reset();
             rc(j).enable_in_tree_autoscaling = true;
           },
           {}},
          {"min/max missing on 1.5 is not checked",
           [](RayJob& j, PolicyConfig& p) {
             version(p, 5);
             rules(j).pop_back();
             worker(j).min_replicas.reset();
           },
           {}},
          {"negative minReplicas",
           [](RayJob& j, PolicyConfig&) { worker(j).min_replicas = -1; },
           {{w0 + ".minReplicas", "-1 is negative"}}},
          {"min greater than max",
           [](RayJob& j, PolicyConfig&) { worker(j).min_replicas = 3; },
           {{w0 + ".minReplicas", "minReplicas 3 is greater than maxReplicas 2"}}},
          {"replicas out of range is clamped, not rejected",
           [](RayJob& j, PolicyConfig&) { worker(j).replicas = 50; },
           {}},
          {"worker suspend with the gate",
           [](RayJob& j, PolicyConfig&) { worker(j).suspend = true; },
           {}},
          {"worker suspend without the gate",
           [](RayJob& j, PolicyConfig& p) {
             worker(j).suspend = true;
             j.spec.deletion_strategy.reset();
             p.kuberay.ray_job_deletion_policy_gate = false;
           },
           {{w0 + ".suspend", "needs the RayJobDeletionPolicy feature gate"}}},
          {"worker suspend with autoscaling",
           [](RayJob& j, PolicyConfig&) {
             worker(j).suspend = true;
             rc(j).enable_in_tree_autoscaling = true;
           },
           {{w0 + ".suspend", "cannot be suspended with autoscaling"}}},
          {"v2 autoscaler with restartPolicy Always",
           [](RayJob& j, PolicyConfig&) {
             rc(j).enable_in_tree_autoscaling = true;
             rc(j).autoscaler_options = AutoscalerOptions{};
             rc(j).autoscaler_options->version = "v2";
             rc(j).head.pod_template.restart_policy = "Always";
             worker(j).pod_template.restart_policy = "OnFailure";
           },
           {{"spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy", "v2 autoscaler"},
            {w0 + ".template.spec.restartPolicy",
             "\"OnFailure\" is not allowed with the v2 autoscaler"}}},
          {"v1 autoscaler with restartPolicy Always",
           [](RayJob& j, PolicyConfig&) {
             rc(j).enable_in_tree_autoscaling = true;
             rc(j).head.pod_template.restart_policy = "Always";
           },
           {}},
          {"auth token with rayVersion 2.52.0",
           [](RayJob& j, PolicyConfig&) { rc(j).auth_mode = "token"; },
           {}},
          {"auth token with rayVersion 2.46.0",
           [](RayJob& j, PolicyConfig&) {
             rc(j).auth_mode = "token";
             rc(j).ray_version = "2.46.0";
           },
           {{"spec.rayClusterSpec.rayVersion", "older than 2.52.0"}}},
          {"auth token without rayVersion",
           [](RayJob& j, PolicyConfig&) {
             rc(j).auth_mode = "token";
             rc(j).ray_version.reset();
           },
           {{"spec.rayClusterSpec.rayVersion", "needs rayVersion, which is not set"}}},
          {"auth token with a bad rayVersion",
           [](RayJob& j, PolicyConfig&) {
             rc(j).auth_mode = "token";
             rc(j).ray_version = "latest";
           },
           {{"spec.rayClusterSpec.rayVersion", "\"latest\" is not a version"}}},
          {"auth token with rayVersion 2.53",
           [](RayJob& j, PolicyConfig&) {
             rc(j).auth_mode = "token";
             rc(j).ray_version = "2.53";
           },
           {}},
          {"auth disabled with an old rayVersion",
           [](RayJob& j, PolicyConfig&) {
             rc(j).auth_mode = "disabled";
             rc(j).ray_version = "2.9.0";
           },
           {}},
      });
}

TEST(KuberaySchema, Scalars) {
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"runtimeEnvYAML mapping",
           [](RayJob& j, PolicyConfig&) { j.spec.runtime_env.parse = RuntimeEnv::Parse::kMapping; },
           {}},
          {"runtimeEnvYAML scalar",
           [](RayJob& j, PolicyConfig&) {
             j.spec.runtime_env_yaml = "invalid_yaml_str";
             j.spec.runtime_env.parse = RuntimeEnv::Parse::kNotMapping;
           },
           {{"spec.runtimeEnvYAML", "is valid YAML but not a mapping"}}},
          {"runtimeEnvYAML invalid",
           [](RayJob& j, PolicyConfig&) {
             j.spec.runtime_env.parse = RuntimeEnv::Parse::kInvalid;
             j.spec.runtime_env.parse_error = "bad indentation at line 2";
           },
           {{"spec.runtimeEnvYAML", "is not valid YAML (bad indentation at line 2)"}}},
          {"activeDeadlineSeconds 0",
           [](RayJob& j, PolicyConfig&) { j.spec.active_deadline_seconds = 0; },
           {{"spec.activeDeadlineSeconds", "0 is not positive"}}},
          {"preRunningDeadlineSeconds 0",
           [](RayJob& j, PolicyConfig&) { j.spec.pre_running_deadline_seconds = 0; },
           {{"spec.preRunningDeadlineSeconds", "0 is not positive"}}},
          {"backoffLimit -1",
           [](RayJob& j, PolicyConfig&) { j.spec.backoff_limit = -1; },
           {{"spec.backoffLimit", "-1 is negative; " + kRejects16}}},
      });
}

TEST(KuberaySchema, WarnAndOffActions) {
  check_actions(RuleId::kKuberaySchema, [](RayJob& j, PolicyConfig&) { j.spec.suspend = true; });
}

}  // namespace
}  // namespace rjg::policy::testing
