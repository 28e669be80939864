// kuberay-schema: the RayJob passes what the pinned KubeRay version checks after admission, and
// uses no field that version does not know.
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
          {"suspend without shutdown, deletion rules (no fix: the choice is the tenant's)",
           [](RayJob& j, PolicyConfig&) { j.spec.suspend = true; },
           {{"spec.suspend",
             "set shutdownAfterJobFinishes: true (not with deletion rules) or remove suspend"}}},
          {"suspend without shutdown, Kueue's (judged by kueue.lifecycleMode reaper)",
           [](RayJob& j, PolicyConfig&) {
             j.metadata.kueue_labels["kueue.x-k8s.io/queue-name"] = "team-a";
             j.spec.deletion_strategy.reset();
             j.spec.suspend = true;
           },
           {{"spec.suspend", "is not; the KubeRay 1.6 operator rejects"}}},
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

// KubeRay 1.7's checks of tlsOptions, historyServerOptions.collectorOptions and the rocksdb GCS
// backend, beyond the upstream rows (kuberay_validation_port_test.cpp): Go's case folding and
// trimming, the last env entry of a name winning, each finding reported, and the 1.6 operator not
// checking any of it.
const std::string kRc = "spec.rayClusterSpec";
const std::string kHeadC0 = kRc + ".headGroupSpec.template.spec.containers[0]";
const std::string kCollectorEnv = kRc + ".historyServerOptions.collectorOptions.env";

void v17(PolicyConfig& p, std::initializer_list<std::string_view> gates) {
  version(p, 7);
  for (std::string_view g : gates) {
    p.kuberay.feature_gates[std::string(g)] = true;
  }
}
void collector(RayJob& j, std::vector<EnvVar> env) {
  rc(j).has_history_server_options = true;
  rc(j).has_collector_options = true;
  rc(j).collector_image = "quay.io/kuberay/collector:v1.7.0";
  rc(j).collector_env = std::move(env);
}
EnvVar var(std::string name, std::string value) {
  return EnvVar{std::move(name), std::move(value)};
}
void rocksdb(RayJob& j) {
  rc(j).has_gcs_fault_tolerance_options = true;
  rc(j).gcs_ft_backend = "rocksdb";
}

TEST(KuberaySchema, CollectorOptions17) {
  const M on = [](RayJob&, PolicyConfig& p) { v17(p, {"RayClusterHistoryServer"}); };
  auto with = [on](std::vector<EnvVar> env) -> M {
    return [on, env](RayJob& j, PolicyConfig& p) {
      on(j, p);
      collector(j, env);
    };
  };
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"lower-case gcs is GCS (strings.ToUpper)", with({var("STORAGE_BACKEND", "gcs")}),
           {{kCollectorEnv, "GCS_BUCKET must be set when STORAGE_BACKEND is GCS"}}},
          {"U+017F upper-cases to S: \u017F3 is S3", with({var("STORAGE_BACKEND", "\u017F3")}),
           {{kCollectorEnv, "S3_REGION must be set when STORAGE_BACKEND is S3"}}},
          {"U+0131 upper-cases to I: AL\u0131YUNOSS is ALIYUNOSS, each missing setting reported",
           with({var("STORAGE_BACKEND", "AL\u0131YUNOSS")}),
           {{kCollectorEnv, "OSS_BUCKET must be set"},
            {kCollectorEnv, "OSS_ENDPOINT must be set"},
            {kCollectorEnv, "OSS_REGION must be set"}}},
          {"the last STORAGE_BACKEND wins",
           with({var("STORAGE_BACKEND", "GCS"), var("GCS_BUCKET", "b"),
                 var("STORAGE_BACKEND", "")}),
           {{kCollectorEnv, "STORAGE_BACKEND must be set with a literal value"}}},
          {"STORAGE_BACKEND from valueFrom is not a literal",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             EnvVar from;
             from.name = "STORAGE_BACKEND";
             from.value_from = true;
             collector(j, {from});
           },
           {{kCollectorEnv, "STORAGE_BACKEND must be set with a literal value"}}},
          {"an empty GCS_BUCKET is not set",
           with({var("STORAGE_BACKEND", "GCS"), var("GCS_BUCKET", "")}),
           {{kCollectorEnv, "GCS_BUCKET must be set"}}},
          {"auth mode trimmed and lower-cased (İ lower-cases to i)",
           with({var("STORAGE_BACKEND", "AZUREBLOB"),
                 var("AZURE_STORAGE_AUTH_MODE", "\u3000Workload_\u0130dentity \t"),
                 var("AZURE_STORAGE_CONNECTION_STRING", "c")}),
           {{kCollectorEnv,
             "AZURE_STORAGE_ACCOUNT_URL must be set when STORAGE_BACKEND is AZUREBLOB and "
             "AZURE_STORAGE_AUTH_MODE is workload_identity"}}},
          {"auth mode default needs the account URL",
           with({var("STORAGE_BACKEND", "AZUREBLOB"), var("AZURE_STORAGE_AUTH_MODE", "DEFAULT"),
                 var("AZURE_STORAGE_CONNECTION_STRING", "c")}),
           {{kCollectorEnv, "AZURE_STORAGE_AUTH_MODE is default"}}},
          {"an unknown auth mode accepts either credential",
           with({var("STORAGE_BACKEND", "AZUREBLOB"), var("AZURE_STORAGE_AUTH_MODE", "sas"),
                 var("AZURE_STORAGE_ACCOUNT_URL", "https://a.blob.core.windows.net")}),
           {}},
          {"every injected name is reported, and the backend too",
           with({var("RAY_ROLE", "head"), var("OWNER_NAME", "x")}),
           {{kCollectorEnv, "RAY_ROLE is injected by KubeRay"},
            {kCollectorEnv, "OWNER_NAME is injected by KubeRay"},
            {kCollectorEnv, "STORAGE_BACKEND must be set"}}},
          {"image missing and env checked too",
           [with](RayJob& j, PolicyConfig& p) {
             with({})(j, p);
             rc(j).collector_image.reset();
           },
           {{kRc + ".historyServerOptions.collectorOptions.image", "must be set"},
            {kCollectorEnv, "STORAGE_BACKEND must be set"}}},
          {"a second container named ray-history-collector",
           [with](RayJob& j, PolicyConfig& p) {
             with({var("STORAGE_BACKEND", "CUSTOM")})(j, p);
             worker(j).pod_template.containers.push_back(
                 Container{"ray-history-collector", "img", {}, {}});
           },
           {{kRc + ".workerGroupSpecs[0].template.spec.containers[1].name",
             "the collector container the operator adds"}}},
          {"1.6 does not check collectorOptions: it does not know historyServerOptions",
           [](RayJob& j, PolicyConfig&) { collector(j, {var("POD_IP", "1")}); },
           {{"spec.rayClusterSpec.historyServerOptions", "API does not know this field"}}},
      });
}

TEST(KuberaySchema, TlsOptions17) {
  const M on = [](RayJob& j, PolicyConfig& p) {
    v17(p, {"RayClusterMTLS"});
    rc(j).has_tls_options = true;
    rc(j).tls_enabled = true;
  };
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"enabled unset: the operator manages nothing",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             rc(j).tls_enabled.reset();
             rc(j).head.pod_template.containers[0].env = {var("RAY_USE_TLS", "1")};
           },
           {}},
          {"gate off: only the gate is reported",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             p.kuberay.feature_gates["RayClusterMTLS"] = false;
             rc(j).head.pod_template.containers[0].env = {var("RAY_USE_TLS", "1")};
           },
           {{kRc + ".tlsOptions", "needs the RayClusterMTLS feature gate"}}},
          {"autoscaler env and a mount both named and at the path",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             rc(j).autoscaler_options = AutoscalerOptions{};
             rc(j).autoscaler_options->env = {var("RAY_TLS_CA_CERT", ""), var("RAY_USE_TLS", "")};
             rc(j).autoscaler_options->volume_mounts = {{"ray-tls", "/etc/ray/tls"}};
           },
           {{kRc + ".autoscalerOptions.env", "RAY_USE_TLS is managed by the operator"},
            {kRc + ".autoscalerOptions.env", "RAY_TLS_CA_CERT is managed by the operator"},
            {kRc + ".autoscalerOptions.volumeMounts[0]", "ray-tls is the operator's TLS volume"}}},
          {"only the Ray container (containers[0]) is checked",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             Container sidecar{"sidecar", "img", {}, {}};
             sidecar.env = {var("RAY_USE_TLS", "1")};
             sidecar.volume_mounts = {{"ray-tls", "/etc/ray/tls"}};
             worker(j).pod_template.containers.push_back(sidecar);
           },
           {}},
          {"1.6 knows no tlsOptions",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             version(p, 6);
             rc(j).head.pod_template.containers[0].env = {var("RAY_USE_TLS", "1")};
           },
           {{"spec.rayClusterSpec.tlsOptions", "API does not know this field"}}},
      });
}

TEST(KuberaySchema, RocksdbBackend17) {
  const M on = [](RayJob& j, PolicyConfig& p) {
    v17(p, {"GCSFaultToleranceEmbeddedStorage"});
    rocksdb(j);
    rc(j).gcs_ft_has_storage = true;
  };
  const std::string claim = kRc + ".gcsFaultToleranceOptions.storage.claimName";
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"claimName alone",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             rc(j).gcs_ft_storage_claim_name = "gcs";
           },
           {}},
          {"claimName with storageClassName and accessModes",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             rc(j).gcs_ft_storage_claim_name = "gcs";
             rc(j).gcs_ft_storage_pvc_fields = {"storageClassName", "accessModes"};
           },
           {{claim, "cannot be combined with storageClassName, accessModes"}}},
          {"size without claimName",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             rc(j).gcs_ft_storage_pvc_fields = {"size"};
           },
           {}},
          {"reserved mount, volume and env together",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             PodTemplate& head = rc(j).head.pod_template;
             head.containers[0].env = {var("RAY_gcs_storage_path", "/x")};
             head.containers[0].volume_mounts = {{"data", "/data"}, {"gcs-storage", "/data/gcs"}};
             head.volume_names = {"data", "gcs-storage"};
           },
           {{kHeadC0 + ".env", "RAY_gcs_storage_path is managed by KubeRay"},
            {kHeadC0 + ".volumeMounts[1]", "the operator uses for the rocksdb store"},
            {kRc + ".headGroupSpec.template.spec.volumes[1].name", "the volume name gcs-storage"}}},
          {"the redis backend may use the names",
           [on](RayJob& j, PolicyConfig& p) {
             on(j, p);
             rc(j).gcs_ft_backend = "redis";
             rc(j).gcs_ft_has_storage = false;
             rc(j).head.pod_template.volume_names = {"gcs-storage"};
           },
           {}},
      });
}

// Fixes: removing what the operator manages (env vars, a gated option) is the literal fix;
// mounts, volumes, storage and backend settings are the tenant's choice.
TEST(KuberaySchema, Fixes17) {
  RayJob j = compliant_rayjob();
  PolicyConfig p = default_test_policy();
  v17(p, {"RayClusterMTLS", "RayClusterHistoryServer", "GCSFaultToleranceEmbeddedStorage"});
  rc(j).has_tls_options = true;
  rc(j).tls_enabled = true;
  rc(j).head.pod_template.containers[0].env = {var("RAY_USE_TLS", "1"), var("A", "a"),
                                               var("RAY_USE_TLS", "0"),
                                               var("RAY_gcs_storage", "rocksdb")};
  rc(j).head.pod_template.containers[0].volume_mounts = {{"ray-tls", "/x"}};
  rc(j).autoscaler_options = AutoscalerOptions{};
  rc(j).autoscaler_options->env = {var("KUBERAY_GEN_AUTOSCALER_START_CMD", ""),
                                   var("RAY_TLS_CA_CERT", "")};
  collector(j, {var("STORAGE_BACKEND", "GCS"), var("GCS_BUCKET", "b"), var("EVENTS_PORT", "1")});
  rocksdb(j);
  rc(j).gcs_ft_has_storage = true;
  rc(j).gcs_ft_storage_claim_name = "c";
  rc(j).gcs_ft_storage_pvc_fields = {"size"};
  const Findings got = run_rules(j, j.metadata.namespace_, only_rule(RuleId::kKuberaySchema, p));
  SCOPED_TRACE(describe(got));
  const std::string head_env = kHeadC0 + ".env";
  const std::string as_env = kRc + ".autoscalerOptions.env";
  const std::vector<std::pair<std::string, std::vector<Edit>>> want = {
      {as_env, {Edit::remove(as_env + "[0]")}},
      {kRc + ".gcsFaultToleranceOptions.storage.claimName", {}},
      {head_env, {Edit::remove(head_env + "[3]")}},
      {kCollectorEnv, {Edit::remove(kCollectorEnv + "[2]")}},
      {head_env, {Edit::remove(head_env + "[0]"), Edit::remove(head_env + "[2]")}},
      {kHeadC0 + ".volumeMounts[0]", {}},
      {as_env, {Edit::remove(as_env + "[1]")}},
  };
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].field, want[i].first) << i;
    EXPECT_EQ(got[i].fix, want[i].second) << i;
  }

  // Without the gates, each option's fix removes it.
  PolicyConfig off = default_test_policy();
  version(off, 7);
  const Findings gated =
      run_rules(j, j.metadata.namespace_, only_rule(RuleId::kKuberaySchema, off));
  SCOPED_TRACE(describe(gated));
  std::vector<std::pair<std::string, std::vector<Edit>>> removals;
  for (const Finding& f : gated) {
    if (f.field == kRc + ".historyServerOptions" || f.field == kRc + ".tlsOptions") {
      removals.emplace_back(f.field, f.fix);
    }
  }
  EXPECT_EQ(removals, (std::vector<std::pair<std::string, std::vector<Edit>>>{
                          {kRc + ".historyServerOptions",
                           {Edit::remove(kRc + ".historyServerOptions")}},
                          {kRc + ".tlsOptions", {Edit::remove(kRc + ".tlsOptions")}}}));
}

TEST(KuberaySchema, ClusterFieldsOf17) {
  const std::string unknown = "API does not know this field (it exists from 1.7)";
  const std::string gcs = "spec.rayClusterSpec.gcsFaultToleranceOptions";
  check_rows(RuleId::kKuberaySchema,
             {
                 {"networkPolicy, tlsOptions, historyServerOptions on 1.6",
                  [](RayJob& j, PolicyConfig&) {
                    rc(j).has_network_policy = true;
                    rc(j).has_tls_options = true;
                    rc(j).has_history_server_options = true;
                  },
                  {{"spec.rayClusterSpec.networkPolicy", unknown},
                   {"spec.rayClusterSpec.tlsOptions", unknown},
                   {"spec.rayClusterSpec.historyServerOptions", unknown}}},
                 {"a worker group priority on 1.6",
                  [](RayJob& j, PolicyConfig&) { worker(j).priority = 5; },
                  {{"spec.rayClusterSpec.workerGroupSpecs[0].priority", unknown}}},
                 {"the GCS backend and storage on 1.6",
                  [](RayJob& j, PolicyConfig&) {
                    rc(j).has_gcs_fault_tolerance_options = true;
                    rc(j).gcs_ft_backend = "redis";
                    rc(j).gcs_ft_has_storage = true;
                  },
                  {{gcs + ".backend", unknown}, {gcs + ".storage", unknown}}},
                 {"backend outside the 1.7 enum",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 7);
                    rc(j).has_gcs_fault_tolerance_options = true;
                    rc(j).gcs_ft_backend = "Redis";
                  },
                  {{gcs + ".backend", "\"Redis\" is not redis or rocksdb; the KubeRay 1.7 CRD refuses"}}},
                 {"storage.deletionPolicy outside the 1.7 enum",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 7);
                    p.kuberay.feature_gates["GCSFaultToleranceEmbeddedStorage"] = true;
                    rc(j).has_gcs_fault_tolerance_options = true;
                    rc(j).gcs_ft_backend = "rocksdb";
                    rc(j).gcs_ft_has_storage = true;
                    rc(j).gcs_ft_storage_deletion_policy = "Delete";
                  },
                  {{gcs + ".storage.deletionPolicy", "\"Delete\" is not DeleteWithCluster or Retain"}}},
                 {"networkPolicy.mode outside the 1.7 enum",
                  [](RayJob& j, PolicyConfig& p) {
                    version(p, 7);
                    p.kuberay.feature_gates["RayClusterNetworkPolicy"] = true;
                    rc(j).has_network_policy = true;
                    rc(j).network_policy.mode = "AllowAll";
                  },
                  {{"spec.rayClusterSpec.networkPolicy.mode",
                    "\"AllowAll\" is not a network policy mode"}}},
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

// What passes the operator's validation and fails later (found by the 1.6 conformance oracle,
// which runs the operator's code past validation): the RayCluster it creates, and the submitter.
TEST(KuberaySchema, AfterValidation16) {
  const std::string rv = "spec.rayClusterSpec.rayVersion";
  const std::string later = "cannot build the submitter and retries forever";
  const auto with_metadata = [](std::optional<std::string> version) {
    return [version](RayJob& j, PolicyConfig&) {
      j.spec.has_metadata = true;
      rc(j).ray_version = version;
    };
  };
  check_rows(
      RuleId::kKuberaySchema,
      {
          {"upgradeStrategy is refused when the operator creates the RayCluster",
           [](RayJob& j, PolicyConfig&) { rc(j).upgrade_strategy_type = "Recreate"; },
           {{"spec.rayClusterSpec.upgradeStrategy.type", "cannot set an upgrade strategy"}}},
          {"upgradeStrategy in clusterSelector mode: no RayCluster is created",
           [](RayJob& j, PolicyConfig&) {
             rc(j).upgrade_strategy_type = "Recreate";
             selector(j, {{"ray.io/cluster", "shared"}});
             j.spec.deletion_strategy.reset();
             j.spec.backoff_limit.reset();
           },
           {}},
          {"metadata with rayVersion 2.46.0", with_metadata("2.46.0"), {}},
          {"metadata with rayVersion 2.6", with_metadata("2.6"), {}},
          {"metadata with rayVersion v2.6.0+build.1", with_metadata("v2.6.0+build.1"), {}},
          {"metadata with a zero-prefixed 02.46.0 (semver coerces it)", with_metadata("02.46.0"),
           {}},
          {"metadata with rayVersion 2.5.99", with_metadata("2.5.99"),
           {{rv, "\"2.5.99\" is older than 2.6.0"}}},
          {"metadata with rayVersion 2", with_metadata("2"), {{rv, "older than 2.6.0"}}},
          {"metadata with a pre-release", with_metadata("2.46.0-rc1"),
           {{rv, "is a pre-release, which never satisfies >= 2.6.0"}}},
          {"metadata with a pre-release part zero-prefixed", with_metadata("2.46.0-rc.01"),
           {{rv, "is not a semantic version"}}},
          {"metadata with leading white space", with_metadata(" 2.46.0"),
           {{rv, "\" 2.46.0\" is not a semantic version (spec.metadata needs"}}},
          {"metadata with four numbers", with_metadata("2.46.0.1"), {{rv, "not a semantic version"}}},
          {"metadata with latest", with_metadata("latest"), {{rv, later}}},
          {"metadata with an overflowing number", with_metadata("99999999999999999999.0.0"),
           {{rv, "overflows"}}},
          {"metadata without rayVersion", with_metadata(std::nullopt),
           {{rv, "needs rayVersion 2.6.0 or later, which is not set"}}},
          {"metadata with an old rayVersion in SidecarMode",
           [](RayJob& j, PolicyConfig&) {
             j.spec.has_metadata = true;
             rc(j).ray_version = "2.5.0";
             j.spec.submission_mode = "SidecarMode";
           },
           {{rv, later}}},
          {"metadata with an old rayVersion in HTTPMode: no submitter is built",
           [](RayJob& j, PolicyConfig&) {
             j.spec.has_metadata = true;
             rc(j).ray_version = "2.5.0";
             j.spec.submission_mode = "HTTPMode";
           },
           {}},
          {"metadata with an old rayVersion on 1.5: not proven there, not refused",
           [](RayJob& j, PolicyConfig& p) {
             version(p, 5);
             rules(j).pop_back();
             j.spec.has_metadata = true;
             rc(j).ray_version = "2.5.0";
           },
           {}},
          {"a submitterPodTemplate without containers",
           [](RayJob& j, PolicyConfig&) { j.spec.submitter_pod_template = PodTemplate{}; },
           {{"spec.submitterPodTemplate.spec.containers", later}}},
          {"a submitterPodTemplate with a container",
           [](RayJob& j, PolicyConfig&) {
             PodTemplate t;
             t.containers.push_back(Container{"submit", "rayproject/ray:2.46.0", {}, {}});
             j.spec.submitter_pod_template = t;
           },
           {}},
          {"auth token with rayVersion after leading white space (ParseGeneric trims it)",
           [](RayJob& j, PolicyConfig&) {
             rc(j).auth_mode = "token";
             rc(j).ray_version = " \t2.52.0";
           },
           {}},
          {"auth token with rayVersion 02.52.0 (ParseGeneric refuses a zero-prefixed first number)",
           [](RayJob& j, PolicyConfig&) {
             rc(j).auth_mode = "token";
             rc(j).ray_version = "02.52.0";
           },
           {{rv, "\"02.52.0\" is not a version"}}},
          {"auth token with a line break after the version",
           [](RayJob& j, PolicyConfig&) {
             rc(j).auth_mode = "token";
             rc(j).ray_version = "2.52.0\n";
           },
           {{rv, "is not a version"}}},
      });
}

// KubeRay 1.7: SidecarSubmitterRestart reads submitterConfig.backoffLimit, but the operator's
// validation still refuses SidecarMode with submitterConfig (validation.go at v1.7.0, with or
// without the gate), so the RayJob ends in ValidationFailed.
TEST(KuberaySchema, SidecarSubmitterConfig17) {
  const auto sidecar_with_config = [](bool gate) {
    return [gate](RayJob& j, PolicyConfig& p) {
      version(p, 7);
      if (gate) {
        p.kuberay.feature_gates["SidecarSubmitterRestart"] = true;
      }
      j.spec.submission_mode = "SidecarMode";
      j.spec.has_submitter_config = true;
      j.spec.submitter_backoff_limit = 2;
    };
  };
  check_rows(RuleId::kKuberaySchema,
             {
                 {"gate off", sidecar_with_config(false),
                  {{"spec.submitterConfig", "not supported in SidecarMode"}}},
                 {"SidecarSubmitterRestart on", sidecar_with_config(true),
                  {{"spec.submitterConfig",
                    "not supported in SidecarMode; the KubeRay 1.7 operator rejects this RayJob "
                    "after admission and it stays in ValidationFailed"}}},
             });
}

TEST(KuberaySchema, WarnAndOffActions) {
  check_actions(RuleId::kKuberaySchema, [](RayJob& j, PolicyConfig&) { j.spec.suspend = true; });
}

}  // namespace
}  // namespace rjg::policy::testing
