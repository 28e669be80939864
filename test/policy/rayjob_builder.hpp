// Test helpers for rule tests: a compliant RayJob and the default policy, built in C++ without
// going through JSON, so that a rule test is only about the rule. Each test mutates a copy.
#pragma once

#include <cstdint>
#include <string>

#include "policy/policy_config.hpp"
#include "policy/rayjob.hpp"

namespace rjg::policy::testing {

// The policy of the default policy file, as a PolicyConfig.
inline PolicyConfig default_test_policy() {
  PolicyConfig p;
  p.kuberay.version = {1, 6};
  p.kuberay.ray_job_deletion_policy_gate = true;
  p.lifecycle = LifecycleConfig{};
  p.images.allow = {"*.dkr.ecr.*.amazonaws.com/ray-tenant:*"};
  p.images.stock_patterns = {"rayproject/ray:*", "docker.io/rayproject/ray:*"};
  p.images.botocore_min = "1.34.41";
  p.images.boto3_min = "1.35.0";
  p.images.deny = {{"rayproject/ray:2.4[13]*",
                    "ships botocore 1.29.x, which cannot reach EKS Pod Identity (169.254.170.23)"}};
  p.quota.unknown_namespace = QuotaConfig::UnknownNamespace::kDeny;
  p.quota.default_limits = {{"requests.cpu", Quantity::from_units(16)},
                            {"requests.memory", Quantity::from_units(64LL << 30)},
                            {"limits.cpu", Quantity::from_units(16)},
                            {"limits.memory", Quantity::from_units(64LL << 30)},
                            {"pods", Quantity::from_units(20)}};
  p.quota.namespaces["tenant-a"] = {{"requests.cpu", Quantity::from_units(64)},
                                    {"requests.memory", Quantity::from_units(256LL << 30)},
                                    {"limits.cpu", Quantity::from_units(64)},
                                    {"limits.memory", Quantity::from_units(256LL << 30)},
                                    {"requests.nvidia.com/gpu", Quantity::from_units(8)},
                                    {"pods", Quantity::from_units(40)}};
  p.rule_actions[static_cast<std::size_t>(RuleId::kImagePinned)] = RuleAction::kWarn;
  return p;
}

// A deletionStrategy.deletionRules item: `policy` when condition.jobStatus is `status` (or
// condition.jobDeploymentStatus, with `deployment`), after `ttl` seconds.
inline DeletionRule rule(std::string policy, std::string status, std::int64_t ttl,
                         bool deployment = false) {
  DeletionRule r;
  r.policy = std::move(policy);
  r.has_condition = true;
  (deployment ? r.job_deployment_status : r.job_status) = std::move(status);
  r.ttl_seconds = ttl;
  return r;
}

inline Container ray_container(std::string name, std::string image, std::string cpu,
                               std::string memory) {
  Container c;
  c.name = std::move(name);
  c.image = std::move(image);
  c.requests = ResourceList{{"cpu", cpu}, {"memory", memory}};
  c.limits = ResourceList{{"cpu", cpu}, {"memory", memory}};
  return c;
}

// A RayJob that every rule admits under default_test_policy() in namespace tenant-a:
// K8sJobMode, CRD defaults applied, deletionRules DeleteSelf for SUCCEEDED (60 s), FAILED
// (7200 s) and jobDeploymentStatus Failed (7200 s), activeDeadlineSeconds 3600, backoffLimit 0,
// one head (1 CPU / 2Gi) and one worker group of 2 replicas (2 CPU / 4Gi), an allowed ECR image.
inline RayJob compliant_rayjob() {
  const std::string image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.52.0-py310";
  RayJob j;
  j.api_version = "ray.io/v1";
  j.metadata.name = "sample-job";
  j.metadata.namespace_ = "tenant-a";
  j.spec.entrypoint = "python /home/ray/samples/sample_code.py";
  j.spec.submission_mode = "K8sJobMode";
  j.spec.shutdown_after_job_finishes = false;
  j.spec.ttl_seconds_after_finished = 0;
  j.spec.backoff_limit = 0;
  j.spec.active_deadline_seconds = 3600;
  DeletionStrategy ds;
  ds.deletion_rules = std::vector<DeletionRule>{rule("DeleteSelf", "SUCCEEDED", 60),
                                                rule("DeleteSelf", "FAILED", 7200),
                                                rule("DeleteSelf", "Failed", 7200, true)};
  j.spec.deletion_strategy = ds;
  RayClusterSpec rc;
  rc.ray_version = "2.52.0";
  rc.head.pod_template.containers.push_back(ray_container("ray-head", image, "1", "2Gi"));
  WorkerGroup wg;
  wg.group_name = "small-group";
  wg.replicas = 2;
  wg.min_replicas = 2;
  wg.max_replicas = 2;
  wg.num_of_hosts = 1;
  wg.pod_template.containers.push_back(ray_container("ray-worker", image, "2", "4Gi"));
  rc.worker_groups.push_back(wg);
  j.spec.ray_cluster_spec = rc;
  return j;
}

}  // namespace rjg::policy::testing
