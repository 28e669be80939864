// The RayJob cases of KubeRay's own validation tests (ray-operator/controllers/ray/utils/
// validation_test.go at v1.7.0, as listed in kuberay-rayjob.md §7.4), replayed against the
// kuberay-schema rule pinned to 1.7 with the compiled-default feature gate (on). Each invalid case
// must give at least one kuberay-schema finding and each valid case none. Which finding fires is
// deliberately not asserted: several upstream invalid cases have no rayClusterSpec and fail on an
// earlier rule than their name suggests. TestValidateRayJobStatus is not ported: status is not
// part of what a RayJob's admission decides.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "policy/evaluate.hpp"
#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

struct PortCase {
  std::string name;
  bool valid;
  std::function<void(RayJob&)> build;  // applied to an empty RayJob named "rayjob"
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

Findings schema_findings(const RayJob& job) {
  PolicyConfig policy = only_rule(RuleId::kKuberaySchema, default_test_policy());
  policy.kuberay.version = {1, 7};
  policy.kuberay.ray_job_deletion_policy_gate = true;
  return run_rules(job, job.metadata.namespace_, policy);
}

void run_cases(const std::vector<PortCase>& cases) {
  for (const PortCase& c : cases) {
    RayJob job;
    job.api_version = "ray.io/v1";
    job.metadata.name = "rayjob";
    c.build(job);
    const Findings got = schema_findings(job);
    SCOPED_TRACE("case: " + c.name + (c.valid ? " (valid)" : " (invalid)") + "\nfindings:\n" +
                 describe(got));
    if (c.valid) {
      EXPECT_TRUE(got.empty());
    } else {
      EXPECT_FALSE(got.empty());
    }
  }
}

TEST(KubeRayValidationPort, ValidateRayJobSpec) {
  run_cases({
      {"empty spec", false, [](RayJob&) {}},
      {"suspend without shutdown", false,
       [](RayJob& j) {
         basic(j);
         j.spec.suspend = true;
         j.spec.shutdown_after_job_finishes = false;
       }},
      {"suspend with clusterSelector", false,
       [](RayJob& j) {
         j.spec.suspend = true;
         j.spec.shutdown_after_job_finishes = true;
         selector(j, {{"key", "value"}});
       }},
      {"runtimeEnvYAML invalid_yaml_str (a scalar)", false,
       [](RayJob& j) {
         basic(j);
         j.spec.runtime_env_yaml = "invalid_yaml_str";
         j.spec.runtime_env.parse = RuntimeEnv::Parse::kNotMapping;
       }},
      {"backoffLimit -1", false,
       [](RayJob& j) {
         basic(j);
         j.spec.backoff_limit = -1;
       }},
      {"backoffLimit 1 in InteractiveMode", false,
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "InteractiveMode";
         j.spec.backoff_limit = 1;
       }},
      {"shutdown false with TTL 5", false,
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = false;
         j.spec.ttl_seconds_after_finished = 5;
       }},
      {"shutdown true with TTL -5", false,
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
         j.spec.ttl_seconds_after_finished = -5;
       }},
      {"SidecarMode with submitterPodTemplate", false,
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "SidecarMode";
         j.spec.submitter_pod_template = PodTemplate{};
       }},
      {"SidecarMode with submitterConfig", false,
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "SidecarMode";
         j.spec.has_submitter_config = true;
       }},
      {"SidecarMode with head restartPolicy Always", false,
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "SidecarMode";
         j.spec.ray_cluster_spec->head.pod_template.restart_policy = "Always";
       }},
      {"SidecarMode with clusterSelector", false,
       [](RayJob& j) {
         j.spec.submission_mode = "SidecarMode";
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
       }},
      {"empty clusterSelector", false, [](RayJob& j) { selector(j, {}); }},
      {"clusterSelector ray.io/cluster empty", false,
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", ""}});
       }},
      {"clusterSelector with backoffLimit 1", false,
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
         j.spec.backoff_limit = 1;
       }},
      {"K8s token auth", false,
       [](RayJob& j) {
         basic(j);
         j.spec.ray_cluster_spec->enable_k8s_token_auth = true;
       }},
      {"suspend with shutdown, basic spec", true,
       [](RayJob& j) {
         basic(j);
         j.spec.suspend = true;
         j.spec.shutdown_after_job_finishes = true;
       }},
      {"backoffLimit 0 in InteractiveMode", true,
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "InteractiveMode";
         j.spec.backoff_limit = 0;
       }},
      {"backoffLimit nil in InteractiveMode", true,
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "InteractiveMode";
       }},
      {"shutdown true with TTL 5", true,
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
         j.spec.ttl_seconds_after_finished = 5;
       }},
      {"SidecarMode with basic spec", true,
       [](RayJob& j) {
         basic(j);
         j.spec.submission_mode = "SidecarMode";
       }},
      {"clusterSelector ray.io/cluster=ray-cluster", true,
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
       }},
  });
}

TEST(KubeRayValidationPort, ValidateRayJobSpecWithFeatureGateLegacy) {
  run_cases({
      {"DeleteCluster/DeleteCluster with clusterSelector", false,
       [](RayJob& j) {
         strategy_legacy(j, "DeleteCluster", "DeleteCluster");
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
       }},
      {"DeleteWorkers/DeleteWorkers with clusterSelector", false,
       [](RayJob& j) {
         strategy_legacy(j, "DeleteWorkers", "DeleteWorkers");
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
       }},
      {"DeleteWorkers with enableInTreeAutoscaling", false,
       [](RayJob& j) {
         basic(j);
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         strategy_legacy(j, "DeleteWorkers", "DeleteWorkers");
       }},
      {"DeleteNone/DeleteNone with shutdown", false,
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
         strategy_legacy(j, "DeleteNone", "DeleteNone");
       }},
      {"only onFailure (DeleteCluster)", false,
       [](RayJob& j) {
         basic(j);
         strategy_legacy(j, std::nullopt, "DeleteCluster");
       }},
      {"only onFailure (DeleteSelf)", false,
       [](RayJob& j) {
         basic(j);
         strategy_legacy(j, std::nullopt, "DeleteSelf");
       }},
      {"only onSuccess", false,
       [](RayJob& j) {
         basic(j);
         strategy_legacy(j, "DeleteCluster", std::nullopt);
       }},
      {"onFailure without policy", false,
       [](RayJob& j) {
         basic(j);
         strategy_legacy(j, "DeleteCluster", std::nullopt);
         j.spec.deletion_strategy->has_on_failure = true;
       }},
      {"head without container", false,
       [](RayJob& j) {
         basic(j);
         j.spec.ray_cluster_spec->head.pod_template.containers.clear();
         strategy_legacy(j, "DeleteCluster", "DeleteCluster");
       }},
      {"DeleteCluster/DeleteCluster with shutdown", true,
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
         strategy_legacy(j, "DeleteCluster", "DeleteCluster");
       }},
      {"no deletionStrategy with shutdown", true,
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
       }},
  });
}

TEST(KubeRayValidationPort, ValidateRayJobSpecWithFeatureGateRules) {
  run_cases({
      {"rules with shutdown", false,
       [](RayJob& j) {
         basic(j);
         j.spec.shutdown_after_job_finishes = true;
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", 10)});
       }},
      {"rules with onSuccess", false,
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", 10)});
         j.spec.deletion_strategy->has_on_success = true;
         j.spec.deletion_strategy->on_success_policy = "DeleteCluster";
       }},
      {"deletionStrategy {}", false,
       [](RayJob& j) {
         basic(j);
         j.spec.deletion_strategy = DeletionStrategy{};
       }},
      {"empty rules list", false,
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {});
       }},
      {"duplicate (SUCCEEDED, DeleteSelf)", false,
       [](RayJob& j) {
         basic(j);
         strategy_rules(j,
                        {rule("DeleteSelf", "SUCCEEDED", 10), rule("DeleteSelf", "SUCCEEDED", 20)});
       }},
      {"ttlSeconds -10", false,
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", -10)});
       }},
      {"DeleteWorkers with clusterSelector", false,
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
         strategy_rules(j, {rule("DeleteWorkers", "SUCCEEDED", 10)});
       }},
      {"DeleteCluster with clusterSelector", false,
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
         strategy_rules(j, {rule("DeleteCluster", "SUCCEEDED", 10)});
       }},
      {"DeleteWorkers with autoscaling", false,
       [](RayJob& j) {
         basic(j);
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         strategy_rules(j, {rule("DeleteWorkers", "SUCCEEDED", 10)});
       }},
      {"Workers 20 > Cluster 10", false,
       [](RayJob& j) {
         basic(j);
         strategy_rules(
             j, {rule("DeleteWorkers", "SUCCEEDED", 20), rule("DeleteCluster", "SUCCEEDED", 10)});
       }},
      {"Cluster 20 > Self 10", false,
       [](RayJob& j) {
         basic(j);
         strategy_rules(
             j, {rule("DeleteCluster", "SUCCEEDED", 20), rule("DeleteSelf", "SUCCEEDED", 10)});
       }},
      {"both jobStatus and jobDeploymentStatus", false,
       [](RayJob& j) {
         basic(j);
         DeletionRule r = rule("DeleteSelf", "SUCCEEDED", 10);
         r.job_deployment_status = "Failed";
         strategy_rules(j, {r});
       }},
      {"neither jobStatus nor jobDeploymentStatus", false,
       [](RayJob& j) {
         basic(j);
         DeletionRule r = rule("DeleteSelf", "SUCCEEDED", 10);
         r.job_status.reset();
         strategy_rules(j, {r});
       }},
      {"duplicate (Failed, DeleteCluster)", false,
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteCluster", "Failed", 10, true),
                            rule("DeleteCluster", "Failed", 20, true)});
       }},
      {"Workers 20 > Cluster 10 under jobDeploymentStatus", false,
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteWorkers", "Failed", 20, true),
                            rule("DeleteCluster", "Failed", 10, true)});
       }},
      {"single (SUCCEEDED, DeleteSelf, 10)", true,
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", 10)});
       }},
      {"Workers 10 / Cluster 20 / Self 30 on SUCCEEDED, Self 0 on FAILED", true,
       [](RayJob& j) {
         basic(j);
         strategy_rules(
             j, {rule("DeleteWorkers", "SUCCEEDED", 10), rule("DeleteCluster", "SUCCEEDED", 20),
                 rule("DeleteSelf", "SUCCEEDED", 30), rule("DeleteSelf", "FAILED", 0)});
       }},
      {"jobDeploymentStatus Failed: Cluster 10 / Self 20", true,
       [](RayJob& j) {
         basic(j);
         strategy_rules(j, {rule("DeleteCluster", "Failed", 10, true),
                            rule("DeleteSelf", "Failed", 20, true)});
       }},
      {"FAILED/Workers 10 + Failed deployment/Cluster 20", true,
       [](RayJob& j) {
         basic(j);
         strategy_rules(
             j, {rule("DeleteWorkers", "FAILED", 10), rule("DeleteCluster", "Failed", 20, true)});
       }},
  });
}

TEST(KubeRayValidationPort, ValidateRayJobMetadata) {
  run_cases({
      {"48 x j (too long)", false,
       [](RayJob& j) {
         basic(j);
         j.metadata.name = std::string(48, 'j');
       }},
      {"47 x 1 (not DNS-1035)", false,
       [](RayJob& j) {
         basic(j);
         j.metadata.name = std::string(47, '1');
       }},
      {"47 x j", true,
       [](RayJob& j) {
         basic(j);
         j.metadata.name = std::string(47, 'j');
       }},
  });
}

}  // namespace
}  // namespace rjg::policy::testing
