// The RayJob cases of KubeRay's own validation tests (ray-operator/controllers/ray/utils/
// validation_test.go at v1.6.x and v1.7.0; the cases ported, not the code), replayed against the
// kuberay-schema rule at each version from the first table that has the case to 1.7, with the
// compiled-default feature gates unless a case sets one. Every case asserts the exact list of
// kuberay-schema finding field paths (empty: the operator accepts it). Upstream stops at the first
// error; the rule reports every one, so a case lists each. TestValidateRayJobStatus is not
// ported: status is not part of what a RayJob's admission decides.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "policy/evaluate.hpp"
#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

// One upstream case: `expect` is the exact list of kuberay-schema finding field paths, in the
// rule's order (empty: the operator accepts it). `since` is the first upstream table (1.6 or
// 1.7) that has the case; it runs at every version from there to 1.7.
struct PortCase {
  std::string name;
  std::vector<std::string> expect;
  std::function<void(RayJob&)> build;  // applied to an empty RayJob named "rayjob"
  int since = 6;
  std::function<void(PolicyConfig&)> gates = nullptr;  // feature gates other than the default
};

// "Basic spec": a head group with one container, nothing else.
void basic(RayJob& j) {
  RayClusterSpec rc;
  rc.head.pod_template.containers.push_back(Container{"ray-head", "rayproject/ray:2.52.0", {}, {}});
  j.spec.ray_cluster_spec = rc;
}
void selector(RayJob& j, FlatMap<std::string> s) { j.spec.cluster_selector = std::move(s); }
void strategy_legacy(RayJob& j, std::optional<std::string> s, std::optional<std::string> f) {
  DeletionStrategy ds;
  ds.has_on_success = s.has_value();
  ds.on_success_policy = s;
  ds.has_on_failure = f.has_value();
  ds.on_failure_policy = f;
  j.spec.deletion_strategy = ds;
}
void strategy_rules(RayJob& j, std::vector<DeletionRule> rules) {
  DeletionStrategy ds;
  ds.deletion_rules = std::move(rules);
  j.spec.deletion_strategy = ds;
}


RayClusterSpec& rcs(RayJob& j) { return *j.spec.ray_cluster_spec; }
void head_env(RayJob& j, std::string name, std::string value) {
  rcs(j).head.pod_template.containers.at(0).env.push_back(
      EnvVar{std::move(name), std::move(value)});
}
void annotate(RayJob& j, const std::string& key, std::string value) {
  j.metadata.ray_annotations[key] = std::move(value);
}
// basic() plus one worker group with both bounds, as upstream's worker cases.
void with_worker(RayJob& j) {
  basic(j);
  WorkerGroup g;
  g.group_name = "small";
  g.min_replicas = 0;
  g.max_replicas = 1;
  g.pod_template.containers.push_back(Container{"ray-worker", "rayproject/ray:2.52.0", {}, {}});
  rcs(j).worker_groups.push_back(g);
}
WorkerGroup& wg0(RayJob& j) { return rcs(j).worker_groups.at(0); }
void autoscale_v2(RayJob& j) {
  rcs(j).enable_in_tree_autoscaling = true;
  rcs(j).autoscaler_options = AutoscalerOptions{};
  rcs(j).autoscaler_options->version = "v2";
}
void gate_on(PolicyConfig& p, const std::string& gate) { p.kuberay.feature_gates[gate] = true; }

const std::string kRc = "spec.rayClusterSpec";
const std::string kHead = kRc + ".headGroupSpec";
const std::string kHeadEnv = kHead + ".template.spec.containers[0].env";
const std::string kW0 = kRc + ".workerGroupSpecs[0]";

Findings schema_findings(const RayJob& job, int minor, const PortCase& c) {
  PolicyConfig policy = only_rule(RuleId::kKuberaySchema, default_test_policy());
  policy.kuberay.version = {1, minor};
  policy.kuberay.ray_job_deletion_policy_gate = true;  // the compiled default from 1.6
  if (c.gates) {
    c.gates(policy);
  }
  return run_rules(job, job.metadata.namespace_, policy);
}

void run_cases(const std::vector<PortCase>& cases) {
  for (const PortCase& c : cases) {
    for (int minor = c.since; minor <= 7; ++minor) {
      RayJob job;
      job.api_version = "ray.io/v1";
      job.metadata.name = "rayjob";
      c.build(job);
      const Findings got = schema_findings(job, minor, c);
      SCOPED_TRACE("case: " + c.name + " at 1." + std::to_string(minor) + "\nfindings:\n" +
                   describe(got));
      std::vector<std::string> fields;
      for (const Finding& f : got) {
        EXPECT_EQ(f.rule, RuleId::kKuberaySchema);
        EXPECT_EQ(f.kind, Finding::Kind::kViolation);
        fields.push_back(f.field);
      }
      EXPECT_EQ(fields, c.expect);
    }
  }
}

TEST(KubeRayValidationPort, ValidateRayJobSpec) {
  run_cases({
      {"empty spec", {"spec.rayClusterSpec"}, [](RayJob&) {}},
      {"suspend without shutdown", {"spec.suspend"},
       [](RayJob& j) {
         basic(j);
         j.spec.suspend = true;
         j.spec.shutdown_after_job_finishes = false;
       }},
      {"suspend with clusterSelector", {"spec.suspend", "spec.clusterSelector[ray.io/cluster]"},
       [](RayJob& j) {
         j.spec.suspend = true;
         j.spec.shutdown_after_job_finishes = true;
         selector(j, {{"key", "value"}});
       }},
      {"runtimeEnvYAML invalid_yaml_str (a scalar)", {"spec.runtimeEnvYAML"},
       [](RayJob& j) {
         basic(j);
         j.spec.runtime_env_yaml = "invalid_yaml_str";
         j.spec.runtime_env.parse = RuntimeEnv::Parse::kNotMapping;
       }},
      {"backoffLimit -1", {"spec.backoffLimit"},
       [](RayJob& j) {
         basic(j);
         j.spec.backoff_limit = -1;
       }},
      {"backoffLimit 1 in InteractiveMode", {"spec.backoffLimit"},
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "InteractiveMode";
         j.spec.backoff_limit = 1;
       }},
      {"shutdown false with TTL 5", {"spec.ttlSecondsAfterFinished"},
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = false;
         j.spec.ttl_seconds_after_finished = 5;
       }},
      {"shutdown true with TTL -5", {"spec.ttlSecondsAfterFinished"},
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
         j.spec.ttl_seconds_after_finished = -5;
       }},
      {"SidecarMode with submitterPodTemplate", {"spec.submitterPodTemplate"},
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "SidecarMode";
         j.spec.submitter_pod_template = PodTemplate{};
       }},
      {"SidecarMode with submitterConfig", {"spec.submitterConfig"},
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "SidecarMode";
         j.spec.has_submitter_config = true;
       }},
      {"SidecarMode with head restartPolicy Always",
       {"spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy"},
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "SidecarMode";
         j.spec.ray_cluster_spec->head.pod_template.restart_policy = "Always";
       }},
      {"SidecarMode with clusterSelector", {"spec.submissionMode"},
       [](RayJob& j) {
         j.spec.submission_mode = "SidecarMode";
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
       }},
      {"empty clusterSelector", {"spec.rayClusterSpec"}, [](RayJob& j) { selector(j, {}); }},
      {"clusterSelector ray.io/cluster empty", {"spec.clusterSelector[ray.io/cluster]"},
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", ""}});
       }},
      {"clusterSelector with backoffLimit 1", {"spec.backoffLimit"},
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
         j.spec.backoff_limit = 1;
       }},
      {"K8s token auth", {"spec.rayClusterSpec.authOptions.enableK8sTokenAuth"},
       [](RayJob& j) {
         basic(j);
         j.spec.ray_cluster_spec->enable_k8s_token_auth = true;
       }},
      {"suspend with shutdown, basic spec", {},
       [](RayJob& j) {
         basic(j);
         j.spec.suspend = true;
         j.spec.shutdown_after_job_finishes = true;
       }},
      {"backoffLimit 0 in InteractiveMode", {},
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "InteractiveMode";
         j.spec.backoff_limit = 0;
       }},
      {"backoffLimit nil in InteractiveMode", {},
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "InteractiveMode";
       }},
      {"shutdown true with TTL 5", {},
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
         j.spec.ttl_seconds_after_finished = 5;
       }},
      {"SidecarMode with basic spec", {},
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "SidecarMode";
       }},
      {"clusterSelector ray.io/cluster=ray-cluster", {},
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
       }},
  });
}

TEST(KubeRayValidationPort, ValidateRayJobSpecWithFeatureGateLegacy) {
  run_cases({
      {"DeleteCluster/DeleteCluster with clusterSelector",
       {"spec.deletionStrategy.onSuccess.policy", "spec.deletionStrategy.onFailure.policy"},
       [](RayJob& j) {
         strategy_legacy(j, "DeleteCluster", "DeleteCluster");
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
       }},
      {"DeleteWorkers/DeleteWorkers with clusterSelector",
       {"spec.deletionStrategy.onSuccess.policy", "spec.deletionStrategy.onFailure.policy"},
       [](RayJob& j) {
         strategy_legacy(j, "DeleteWorkers", "DeleteWorkers");
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
       }},
      {"DeleteWorkers with enableInTreeAutoscaling",
       {"spec.deletionStrategy.onSuccess.policy", "spec.deletionStrategy.onFailure.policy"},
       [](RayJob& j) {
         basic(j);
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         strategy_legacy(j, "DeleteWorkers", "DeleteWorkers");
       }},
      {"DeleteNone/DeleteNone with shutdown",
       {"spec.deletionStrategy.onSuccess.policy", "spec.deletionStrategy.onFailure.policy"},
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
         strategy_legacy(j, "DeleteNone", "DeleteNone");
       }},
      {"only onFailure (DeleteCluster)", {"spec.deletionStrategy.onSuccess"},
       [](RayJob& j) {
         basic(j);
         strategy_legacy(j, std::nullopt, "DeleteCluster");
       }},
      {"only onFailure (DeleteSelf)", {"spec.deletionStrategy.onSuccess"},
       [](RayJob& j) {
         basic(j);
         strategy_legacy(j, std::nullopt, "DeleteSelf");
       }},
      {"only onSuccess", {"spec.deletionStrategy.onFailure"},
       [](RayJob& j) {
         basic(j);
         strategy_legacy(j, "DeleteCluster", std::nullopt);
       }},
      {"onFailure without policy", {"spec.deletionStrategy.onFailure.policy"},
       [](RayJob& j) {
         basic(j);
         strategy_legacy(j, "DeleteCluster", std::nullopt);
         j.spec.deletion_strategy->has_on_failure = true;
       }},
      {"head without container", {"spec.rayClusterSpec.headGroupSpec.template.spec.containers"},
       [](RayJob& j) {
         basic(j);
         j.spec.ray_cluster_spec->head.pod_template.containers.clear();
         strategy_legacy(j, "DeleteCluster", "DeleteCluster");
       }},
      {"DeleteCluster/DeleteCluster with shutdown", {},
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
         strategy_legacy(j, "DeleteCluster", "DeleteCluster");
       }},
      {"no deletionStrategy with shutdown", {},
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
       }},
  });
}

TEST(KubeRayValidationPort, ValidateRayJobSpecWithFeatureGateRules) {
  run_cases({
      {"rules with shutdown", {"spec.shutdownAfterJobFinishes"},
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", 10)});
       }},
      {"rules with onSuccess", {"spec.deletionStrategy", "spec.deletionStrategy.onFailure"},
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", 10)});
         j.spec.deletion_strategy->has_on_success = true;
         j.spec.deletion_strategy->on_success_policy = "DeleteCluster";
       }},
      {"deletionStrategy {}", {"spec.deletionStrategy"},
       [](RayJob& j) {
         basic(j);
         j.spec.deletion_strategy = DeletionStrategy{};
       }},
      {"empty rules list", {"spec.deletionStrategy.deletionRules", "spec.deletionStrategy"},
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {});
       }},
      {"duplicate (SUCCEEDED, DeleteSelf)", {"spec.deletionStrategy.deletionRules[1]"},
       [](RayJob& j) {
         basic(j);
         strategy_rules(j,
                        {rule("DeleteSelf", "SUCCEEDED", 10), rule("DeleteSelf", "SUCCEEDED", 20)});
       }},
      {"ttlSeconds -10", {"spec.deletionStrategy.deletionRules[0].condition.ttlSeconds"},
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", -10)});
       }},
      {"DeleteWorkers with clusterSelector", {"spec.deletionStrategy.deletionRules[0].policy"},
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
         strategy_rules(j, {rule("DeleteWorkers", "SUCCEEDED", 10)});
       }},
      {"DeleteCluster with clusterSelector", {"spec.deletionStrategy.deletionRules[0].policy"},
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
         strategy_rules(j, {rule("DeleteCluster", "SUCCEEDED", 10)});
       }},
      {"DeleteWorkers with autoscaling", {"spec.deletionStrategy.deletionRules[0].policy"},
       [](RayJob& j) {
         basic(j);
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         strategy_rules(j, {rule("DeleteWorkers", "SUCCEEDED", 10)});
       }},
      {"Workers 20 > Cluster 10", {"spec.deletionStrategy.deletionRules[1].condition.ttlSeconds"},
       [](RayJob& j) {
         basic(j);
         strategy_rules(
             j, {rule("DeleteWorkers", "SUCCEEDED", 20), rule("DeleteCluster", "SUCCEEDED", 10)});
       }},
      {"Cluster 20 > Self 10", {"spec.deletionStrategy.deletionRules[1].condition.ttlSeconds"},
       [](RayJob& j) {
         basic(j);
         strategy_rules(
             j, {rule("DeleteCluster", "SUCCEEDED", 20), rule("DeleteSelf", "SUCCEEDED", 10)});
       }},
      {"both jobStatus and jobDeploymentStatus",
       {"spec.deletionStrategy.deletionRules[0].condition"},
       [](RayJob& j) {
         basic(j);
         DeletionRule r = rule("DeleteSelf", "SUCCEEDED", 10);
         r.job_deployment_status = "Failed";
         strategy_rules(j, {r});
       }},
      {"neither jobStatus nor jobDeploymentStatus",
       {"spec.deletionStrategy.deletionRules[0].condition"},
       [](RayJob& j) {
         basic(j);
         DeletionRule r = rule("DeleteSelf", "SUCCEEDED", 10);
         r.job_status.reset();
         strategy_rules(j, {r});
       }},
      {"duplicate (Failed, DeleteCluster)", {"spec.deletionStrategy.deletionRules[1]"},
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteCluster", "Failed", 10, true),
                            rule("DeleteCluster", "Failed", 20, true)});
       }},
      {"Workers 20 > Cluster 10 under jobDeploymentStatus",
       {"spec.deletionStrategy.deletionRules[1].condition.ttlSeconds"},
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteWorkers", "Failed", 20, true),
                            rule("DeleteCluster", "Failed", 10, true)});
       }},
      {"single (SUCCEEDED, DeleteSelf, 10)", {},
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", 10)});
       }},
      {"Workers 10 / Cluster 20 / Self 30 on SUCCEEDED, Self 0 on FAILED", {},
       [](RayJob& j) {
         basic(j);
         strategy_rules(
             j, {rule("DeleteWorkers", "SUCCEEDED", 10), rule("DeleteCluster", "SUCCEEDED", 20),
                 rule("DeleteSelf", "SUCCEEDED", 30), rule("DeleteSelf", "FAILED", 0)});
       }},
      {"jobDeploymentStatus Failed: Cluster 10 / Self 20", {},
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteCluster", "Failed", 10, true),
                            rule("DeleteSelf", "Failed", 20, true)});
       }},
      {"FAILED/Workers 10 + Failed deployment/Cluster 20", {},
       [](RayJob& j) {
         basic(j);
         strategy_rules(
             j, {rule("DeleteWorkers", "FAILED", 10), rule("DeleteCluster", "Failed", 20, true)});
       }},
  });
}

// TestValidateRayClusterSpec* (the cluster-spec checks a RayJob's rayClusterSpec goes through).
TEST(KubeRayValidationPort, ClusterSpecGcsFaultTolerance) {
  const std::string ft = "metadata.annotations[ray.io/ft-enabled]";
  run_cases({
      {"ft-enabled false and gcsFaultToleranceOptions", {ft},
       [](RayJob& j) {
         basic(j);
         annotate(j, "ray.io/ft-enabled", "false");
         rcs(j).has_gcs_fault_tolerance_options = true;
       }},
      {"ft-enabled true and gcsFaultToleranceOptions", {ft},
       [](RayJob& j) {
         basic(j);
         annotate(j, "ray.io/ft-enabled", "true");
         rcs(j).has_gcs_fault_tolerance_options = true;
       }},
      {"only gcsFaultToleranceOptions", {},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
       }},
      {"neither", {}, [](RayJob& j) { basic(j); }},
      {"ft-enabled false and RAY_REDIS_ADDRESS", {kHeadEnv},
       [](RayJob& j) {
         basic(j);
         annotate(j, "ray.io/ft-enabled", "false");
         head_env(j, "RAY_REDIS_ADDRESS", "redis:6379");
       }},
      {"gcsFaultToleranceOptions and RAY_REDIS_ADDRESS", {kHeadEnv},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
         head_env(j, "RAY_REDIS_ADDRESS", "redis:6379");
       }},
      {"FT disabled and RAY_REDIS_ADDRESS", {kHeadEnv},
       [](RayJob& j) {
         basic(j);
         head_env(j, "RAY_REDIS_ADDRESS", "redis:6379");
       }},
      {"ft-enabled true and RAY_REDIS_ADDRESS", {},
       [](RayJob& j) {
         basic(j);
         annotate(j, "ray.io/ft-enabled", "true");
         head_env(j, "RAY_REDIS_ADDRESS", "redis:6379");
       }},
      {"gcsFaultToleranceOptions and ray.io/external-storage-namespace",
       {"metadata.annotations[ray.io/external-storage-namespace]"},
       [](RayJob& j) {
         basic(j);
         annotate(j, "ray.io/external-storage-namespace", "myns");
         rcs(j).has_gcs_fault_tolerance_options = true;
       }},
      {"redis backend without redisAddress", {},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
         rcs(j).gcs_ft_backend = "redis";
       },
       7},
      {"redis backend with rocksdb-only storage", {kRc + ".gcsFaultToleranceOptions.storage"},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
         rcs(j).gcs_ft_backend = "redis";
         rcs(j).gcs_ft_has_storage = true;
       },
       7},
      {"rocksdb backend with the gate", {},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
         rcs(j).gcs_ft_backend = "rocksdb";
         rcs(j).gcs_ft_has_storage = true;
       },
       7, [](PolicyConfig& p) { gate_on(p, "GCSFaultToleranceEmbeddedStorage"); }},
      {"rocksdb backend with redisAddress", {kRc + ".gcsFaultToleranceOptions.redisAddress"},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
         rcs(j).gcs_ft_backend = "rocksdb";
         rcs(j).gcs_ft_redis_fields = {"redisAddress"};
       },
       7, [](PolicyConfig& p) { gate_on(p, "GCSFaultToleranceEmbeddedStorage"); }},
      {"rocksdb backend with externalStorageNamespace",
       {kRc + ".gcsFaultToleranceOptions.externalStorageNamespace"},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
         rcs(j).gcs_ft_backend = "rocksdb";
         rcs(j).gcs_ft_redis_fields = {"externalStorageNamespace"};
       },
       7, [](PolicyConfig& p) { gate_on(p, "GCSFaultToleranceEmbeddedStorage"); }},
      {"rocksdb backend with a user RAY_gcs_storage env", {kHeadEnv},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
         rcs(j).gcs_ft_backend = "rocksdb";
         head_env(j, "RAY_gcs_storage", "rocksdb");
       },
       7, [](PolicyConfig& p) { gate_on(p, "GCSFaultToleranceEmbeddedStorage"); }},
      {"rocksdb backend without the gate", {kRc + ".gcsFaultToleranceOptions.backend"},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
         rcs(j).gcs_ft_backend = "rocksdb";
       },
       7},
  });
}

TEST(KubeRayValidationPort, ClusterSpecRedisPasswordAndUsername) {
  run_cases({
      {"redis-password in rayStartParams with gcsFaultToleranceOptions",
       {kHead + ".rayStartParams.redis-password"},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
         rcs(j).head.ray_start_params["redis-password"] = "p";
       }},
      {"REDIS_PASSWORD env with gcsFaultToleranceOptions", {kHeadEnv},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_gcs_fault_tolerance_options = true;
         head_env(j, "REDIS_PASSWORD", "p");
       }},
      {"redis-password without gcsFaultToleranceOptions", {},
       [](RayJob& j) {
         basic(j);
         rcs(j).head.ray_start_params["redis-password"] = "p";
       }},
      {"redis-username in rayStartParams", {kHead + ".rayStartParams.redis-username"},
       [](RayJob& j) {
         basic(j);
         rcs(j).head.ray_start_params["redis-username"] = "u";
       }},
      {"REDIS_USERNAME env", {kHeadEnv},
       [](RayJob& j) {
         basic(j);
         head_env(j, "REDIS_USERNAME", "u");
       }},
  });
}

TEST(KubeRayValidationPort, ClusterSpecContainersAndSuspend) {
  run_cases({
      {"head without container", {kHead + ".template.spec.containers"},
       [](RayJob& j) {
         basic(j);
         rcs(j).head.pod_template.containers.clear();
       }},
      {"worker without container", {kW0 + ".template.spec.containers"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).pod_template.containers.clear();
       }},
      {"suspended worker group, gate off", {kW0 + ".suspend"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).suspend = true;
       },
       6, [](PolicyConfig& p) { p.kuberay.ray_job_deletion_policy_gate = false; }},
      {"suspended worker group with autoscaling", {kW0 + ".suspend"},
       [](RayJob& j) {
         with_worker(j);
         rcs(j).enable_in_tree_autoscaling = true;
         wg0(j).suspend = true;
       }},
      {"suspended worker group, gate on, no autoscaling", {},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).suspend = true;
       }},
  });
}

TEST(KubeRayValidationPort, ClusterSpecAutoscaler) {
  run_cases({
      {"RAY_enable_autoscaler_v2=1 without autoscaling", {kHeadEnv},
       [](RayJob& j) {
         basic(j);
         head_env(j, "RAY_enable_autoscaler_v2", "1");
       }},
      {"RAY_enable_autoscaler_v2=true without autoscaling", {kHeadEnv},
       [](RayJob& j) {
         basic(j);
         head_env(j, "RAY_enable_autoscaler_v2", "true");
       }},
      {"RAY_enable_autoscaler_v2=0 without autoscaling", {},
       [](RayJob& j) {
         basic(j);
         head_env(j, "RAY_enable_autoscaler_v2", "0");
       }},
      {"autoscalerOptions.version and the env var", {kHeadEnv},
       [](RayJob& j) {
         basic(j);
         autoscale_v2(j);
         head_env(j, "RAY_enable_autoscaler_v2", "1");
       }},
      {"v2 with head restartPolicy Always", {kHead + ".template.spec.restartPolicy"},
       [](RayJob& j) {
         basic(j);
         autoscale_v2(j);
         rcs(j).head.pod_template.restart_policy = "Always";
       }},
      {"v2 with worker restartPolicy OnFailure", {kW0 + ".template.spec.restartPolicy"},
       [](RayJob& j) {
         with_worker(j);
         autoscale_v2(j);
         wg0(j).pod_template.restart_policy = "OnFailure";
       }},
      {"v2 with restartPolicy Never", {},
       [](RayJob& j) {
         with_worker(j);
         autoscale_v2(j);
         wg0(j).pod_template.restart_policy = "Never";
       }},
  });
}

TEST(KubeRayValidationPort, ClusterSpecResourcesAndLabels) {
  run_cases({
      {"head num-cpus in rayStartParams and resources", {kHead + ".resources"},
       [](RayJob& j) {
         basic(j);
         rcs(j).head.ray_start_params_sets_resources = true;
         rcs(j).head.has_group_resources = true;
       }},
      {"worker memory in rayStartParams and resources", {kW0 + ".resources"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).ray_start_params_sets_resources = true;
         wg0(j).has_group_resources = true;
       }},
      {"only resources", {},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).has_group_resources = true;
       }},
      {"labels in rayStartParams", {kHead + ".rayStartParams.labels"},
       [](RayJob& j) {
         basic(j);
         rcs(j).head.ray_start_params["labels"] = "a=b";
       }},
      {"invalid label key", {kW0 + ".labels[bad key]"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).labels = FlatMap<std::string>{{"bad key", "v"}};
       }},
      {"invalid label value", {kW0 + ".labels[k]"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).labels = FlatMap<std::string>{{"k", "bad value!"}};
       }},
      {"prefixed key and empty value", {},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).labels = FlatMap<std::string>{{"ray.io/market-type", ""}, {"zone", "us-1a"}};
       }},
  });
}

TEST(KubeRayValidationPort, ClusterSpecAuthAndReplicas) {
  run_cases({
      {"auth token without rayVersion", {kRc + ".rayVersion"},
       [](RayJob& j) {
         basic(j);
         rcs(j).auth_mode = "token";
       }},
      {"auth token with rayVersion 2.51.0", {kRc + ".rayVersion"},
       [](RayJob& j) {
         basic(j);
         rcs(j).auth_mode = "token";
         rcs(j).ray_version = "2.51.0";
       }},
      {"auth token with rayVersion invalid", {kRc + ".rayVersion"},
       [](RayJob& j) {
         basic(j);
         rcs(j).auth_mode = "token";
         rcs(j).ray_version = "invalid";
       }},
      {"auth token with rayVersion 2.52.0", {},
       [](RayJob& j) {
         basic(j);
         rcs(j).auth_mode = "token";
         rcs(j).ray_version = "2.52.0";
       }},
      {"no autoscaling, minReplicas unset", {kW0 + ".minReplicas"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).min_replicas.reset();
       }},
      {"no autoscaling, maxReplicas unset", {kW0 + ".maxReplicas"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).max_replicas.reset();
       }},
      {"autoscaling, bounds unset", {},
       [](RayJob& j) {
         with_worker(j);
         rcs(j).enable_in_tree_autoscaling = true;
         wg0(j).min_replicas.reset();
         wg0(j).max_replicas.reset();
       }},
      {"negative minReplicas", {kW0 + ".minReplicas"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).min_replicas = -1;
       }},
      {"negative maxReplicas", {kW0 + ".maxReplicas"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).max_replicas = -1;
       }},
      {"minReplicas greater than maxReplicas", {kW0 + ".minReplicas"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).min_replicas = 3;
         wg0(j).max_replicas = 2;
       }},
  });
}

TEST(KubeRayValidationPort, ClusterSpecIdleTimeoutsAndPriority) {
  run_cases({
      {"worker idleTimeoutSeconds with v2", {},
       [](RayJob& j) {
         with_worker(j);
         autoscale_v2(j);
         wg0(j).idle_timeout_seconds = 60;
       }},
      {"worker idleTimeoutSeconds with the v2 env var", {},
       [](RayJob& j) {
         with_worker(j);
         rcs(j).enable_in_tree_autoscaling = true;
         head_env(j, "RAY_enable_autoscaler_v2", "true");
         wg0(j).idle_timeout_seconds = 60;
       }},
      {"worker idleTimeoutSeconds without v2", {kW0 + ".idleTimeoutSeconds"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).idle_timeout_seconds = 60;
       }},
      {"worker idleTimeoutSeconds negative", {kW0 + ".idleTimeoutSeconds"},
       [](RayJob& j) {
         with_worker(j);
         autoscale_v2(j);
         wg0(j).idle_timeout_seconds = -10;
       }},
      {"autoscalerOptions.idleTimeoutSeconds negative",
       {kRc + ".autoscalerOptions.idleTimeoutSeconds"},
       [](RayJob& j) {
         basic(j);
         autoscale_v2(j);
         rcs(j).autoscaler_options->idle_timeout_seconds = -1;
       }},
      {"priority with v2 and Ray 2.56.0", {},
       [](RayJob& j) {
         with_worker(j);
         autoscale_v2(j);
         rcs(j).ray_version = "2.56.0";
         wg0(j).priority = 5;
       },
       7},
      {"priority 0 is unset", {},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).priority = 0;
       },
       7},
      {"priority without rayVersion", {kW0 + ".priority"},
       [](RayJob& j) {
         with_worker(j);
         autoscale_v2(j);
         wg0(j).priority = 5;
       },
       7},
      {"priority with Ray 2.55.0", {kW0 + ".priority"},
       [](RayJob& j) {
         with_worker(j);
         autoscale_v2(j);
         rcs(j).ray_version = "2.55.0";
         wg0(j).priority = 5;
       },
       7},
      {"priority without v2", {kW0 + ".priority"},
       [](RayJob& j) {
         with_worker(j);
         rcs(j).ray_version = "2.56.0";
         wg0(j).priority = 5;
       },
       7},
  });
}

TEST(KubeRayValidationPort, ClusterSpecGatedOptions) {
  run_cases({
      {"networkPolicy without its gate", {kRc + ".networkPolicy"},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_network_policy = true;
       },
       7},
      {"networkPolicy with its gate", {},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_network_policy = true;
       },
       7, [](PolicyConfig& p) { gate_on(p, "RayClusterNetworkPolicy"); }},
      // TestValidateNetworkPolicy.
      {"networkPolicy DenyAllEgress with head ingressRules", {kRc + ".networkPolicy.head.ingressRules"},
       [](RayJob& j) {
         with_worker(j);
         rcs(j).has_network_policy = true;
         rcs(j).network_policy.mode = "DenyAllEgress";
         rcs(j).network_policy.head = NetworkPolicyRules{true, false};
       },
       7, [](PolicyConfig& p) { gate_on(p, "RayClusterNetworkPolicy"); }},
      {"networkPolicy DenyAllIngress with worker egressRules",
       {kRc + ".networkPolicy.worker.egressRules"},
       [](RayJob& j) {
         with_worker(j);
         rcs(j).has_network_policy = true;
         rcs(j).network_policy.mode = "DenyAllIngress";
         rcs(j).network_policy.worker = NetworkPolicyRules{false, true};
       },
       7, [](PolicyConfig& p) { gate_on(p, "RayClusterNetworkPolicy"); }},
      {"networkPolicy DenyAll with both directions", {},
       [](RayJob& j) {
         with_worker(j);
         rcs(j).has_network_policy = true;
         rcs(j).network_policy.head = NetworkPolicyRules{true, true};
         rcs(j).network_policy.worker_groups.push_back({"small", NetworkPolicyRules{true, true}});
       },
       7, [](PolicyConfig& p) { gate_on(p, "RayClusterNetworkPolicy"); }},
      {"networkPolicy workerGroups entry for no group",
       {kRc + ".networkPolicy.workerGroups[0].groupName"},
       [](RayJob& j) {
         with_worker(j);
         rcs(j).has_network_policy = true;
         rcs(j).network_policy.worker_groups.push_back({"other", NetworkPolicyRules{}});
       },
       7, [](PolicyConfig& p) { gate_on(p, "RayClusterNetworkPolicy"); }},
      {"networkPolicy with an upper-case group name", {kW0 + ".groupName"},
       [](RayJob& j) {
         with_worker(j);
         wg0(j).group_name = "Small";
         rcs(j).has_network_policy = true;
       },
       7, [](PolicyConfig& p) { gate_on(p, "RayClusterNetworkPolicy"); }},
      {"tlsOptions without its gate", {kRc + ".tlsOptions"},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_tls_options = true;
       },
       7},
      {"tlsOptions with RAY_USE_TLS in the head", {kHeadEnv},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_tls_options = true;
         rcs(j).tls_enabled = true;  // the operator manages TLS only when enabled
         head_env(j, "RAY_USE_TLS", "1");
       },
       7, [](PolicyConfig& p) { gate_on(p, "RayClusterMTLS"); }},
      {"historyServerOptions without its gate", {kRc + ".historyServerOptions"},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_history_server_options = true;
       },
       7},
      {"historyServerOptions without collectorOptions",
       {kRc + ".historyServerOptions.collectorOptions"},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_history_server_options = true;
       },
       7, [](PolicyConfig& p) { gate_on(p, "RayClusterHistoryServer"); }},
      // Without env the collector also lacks STORAGE_BACKEND.
      {"collectorOptions without image",
       {kRc + ".historyServerOptions.collectorOptions.image",
        kRc + ".historyServerOptions.collectorOptions.env"},
       [](RayJob& j) {
         basic(j);
         rcs(j).has_history_server_options = true;
         rcs(j).has_collector_options = true;
       },
       7, [](PolicyConfig& p) { gate_on(p, "RayClusterHistoryServer"); }},
      // TestValidateRayClusterUpgradeOptions: a RayCluster created by a RayJob.
      {"upgradeStrategy on a RayJob's cluster", {kRc + ".upgradeStrategy.type"},
       [](RayJob& j) {
         basic(j);
         rcs(j).upgrade_strategy_type = "Recreate";
       }},
  });
}

TEST(KubeRayValidationPort, ValidateRayJobMetadata) {
  run_cases({
      {"48 x j (too long)", {"metadata.name"},
       [](RayJob& j) {
         basic(j);
         j.metadata.name = std::string(48, 'j');
       }},
      {"47 x 1 (not DNS-1035)", {"metadata.name"},
       [](RayJob& j) {
         basic(j);
         j.metadata.name = std::string(47, '1');
       }},
      {"47 x j", {},
       [](RayJob& j) {
         basic(j);
         j.metadata.name = std::string(47, 'j');
       }},
  });
}

}  // namespace
}  // namespace rjg::policy::testing
