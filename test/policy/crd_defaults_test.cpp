// apply_crd_defaults: the CRD structural defaults by KubeRay version (the CRD's `default:` markers).
#include "policy/crd_defaults.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test/policy/rayjob_builder.hpp"

namespace rjg::policy::testing {
namespace {

// A RayJob with nothing the CRD defaults: one worker group, one condition-bearing rule.
RayJob bare() {
  RayJob j;
  j.metadata.name = "bare";
  RayClusterSpec rc;
  rc.head.pod_template.containers.push_back(Container{"ray-head", "img", {}, {}});
  WorkerGroup wg;
  wg.group_name = "g";
  wg.pod_template.containers.push_back(Container{"w", "img", {}, {}});
  rc.worker_groups.push_back(wg);
  j.spec.ray_cluster_spec = rc;
  DeletionStrategy ds;
  DeletionRule with_condition;
  with_condition.policy = "DeleteSelf";
  with_condition.has_condition = true;
  with_condition.job_status = "SUCCEEDED";
  DeletionRule without_condition;
  without_condition.policy = "DeleteSelf";
  ds.deletion_rules = std::vector<DeletionRule>{with_condition, without_condition};
  j.spec.deletion_strategy = ds;
  return j;
}

struct VersionRow {
  int minor;
  bool mode_and_ttl;  // submissionMode, ttlSecondsAfterFinished, numOfHosts (1.1+)
  bool backoff;       // backoffLimit (1.2+)
  bool rule_ttl;      // deletionRules[].condition.ttlSeconds (1.5+)
};

TEST(CrdDefaults, FillsByVersion) {
  const VersionRow rows[] = {{0, false, false, false}, {1, true, false, false},
                             {2, true, true, false},   {4, true, true, false},
                             {5, true, true, true},    {6, true, true, true},
                             {7, true, true, true}};
  for (const VersionRow& row : rows) {
    SCOPED_TRACE("KubeRay 1." + std::to_string(row.minor));
    RayJob j = bare();
    apply_crd_defaults(j, {1, row.minor});
    const WorkerGroup& g = j.spec.ray_cluster_spec->worker_groups[0];
    EXPECT_EQ(g.replicas, std::optional<std::int64_t>(0));
    EXPECT_EQ(g.min_replicas, std::optional<std::int64_t>(0));
    EXPECT_EQ(g.max_replicas, std::optional<std::int64_t>(2147483647));
    if (row.mode_and_ttl) {
      EXPECT_EQ(j.spec.submission_mode, std::optional<std::string>("K8sJobMode"));
      EXPECT_EQ(j.spec.ttl_seconds_after_finished, std::optional<std::int64_t>(0));
      EXPECT_EQ(g.num_of_hosts, std::optional<std::int64_t>(1));
    } else {
      EXPECT_FALSE(j.spec.submission_mode);
      EXPECT_FALSE(j.spec.ttl_seconds_after_finished);
      EXPECT_FALSE(g.num_of_hosts);
    }
    EXPECT_EQ(j.spec.backoff_limit.has_value(), row.backoff);
    if (row.backoff) {
      EXPECT_EQ(*j.spec.backoff_limit, 0);
    }
    const auto& rules = *j.spec.deletion_strategy->deletion_rules;
    EXPECT_EQ(rules[0].ttl_seconds.has_value(), row.rule_ttl);
    if (row.rule_ttl) {
      EXPECT_EQ(*rules[0].ttl_seconds, 0);
    }
    // No condition object, so nothing for the default to land in.
    EXPECT_FALSE(rules[1].ttl_seconds);
    // Not defaulted by the CRD in any version.
    EXPECT_FALSE(j.spec.shutdown_after_job_finishes);
    EXPECT_FALSE(j.spec.active_deadline_seconds);
    EXPECT_FALSE(j.spec.suspend);
    EXPECT_FALSE(g.suspend);
  }
}

TEST(CrdDefaults, NeverOverwritesWhatIsSet) {
  RayJob j = compliant_rayjob();
  j.spec.submission_mode = "HTTPMode";
  j.spec.ttl_seconds_after_finished = 30;
  j.spec.backoff_limit = 2;
  auto& g = j.spec.ray_cluster_spec->worker_groups[0];
  g.replicas = 3;
  g.min_replicas = 1;
  g.max_replicas = 5;
  g.num_of_hosts = 4;
  const RayJob before = j;
  apply_crd_defaults(j, {1, 7});
  EXPECT_EQ(j.spec.submission_mode, before.spec.submission_mode);
  EXPECT_EQ(j.spec.ttl_seconds_after_finished, std::optional<std::int64_t>(30));
  EXPECT_EQ(j.spec.backoff_limit, std::optional<std::int64_t>(2));
  EXPECT_EQ(j.spec.ray_cluster_spec->worker_groups[0].replicas, std::optional<std::int64_t>(3));
  EXPECT_EQ(j.spec.ray_cluster_spec->worker_groups[0].min_replicas, std::optional<std::int64_t>(1));
  EXPECT_EQ(j.spec.ray_cluster_spec->worker_groups[0].max_replicas, std::optional<std::int64_t>(5));
  EXPECT_EQ(j.spec.ray_cluster_spec->worker_groups[0].num_of_hosts, std::optional<std::int64_t>(4));
  EXPECT_EQ((*j.spec.deletion_strategy->deletion_rules)[0].ttl_seconds,
            (*before.spec.deletion_strategy->deletion_rules)[0].ttl_seconds);
}

TEST(CrdDefaults, NoWorkerDefaultsWithoutRayClusterSpec) {
  RayJob j;
  j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "c"}};
  apply_crd_defaults(j, {1, 6});
  EXPECT_FALSE(j.spec.ray_cluster_spec);
  EXPECT_FALSE(j.spec.deletion_strategy);
  EXPECT_EQ(j.spec.submission_mode, std::optional<std::string>("K8sJobMode"));
}

TEST(CrdDefaults, Idempotent) {
  RayJob once = bare();
  apply_crd_defaults(once, {1, 6});
  RayJob twice = once;
  apply_crd_defaults(twice, {1, 6});
  EXPECT_EQ(twice.spec.backoff_limit, once.spec.backoff_limit);
  EXPECT_EQ(twice.spec.submission_mode, once.spec.submission_mode);
  EXPECT_EQ(twice.spec.ray_cluster_spec->worker_groups[0].max_replicas,
            once.spec.ray_cluster_spec->worker_groups[0].max_replicas);
}

// The v1.7 CRD this project pins states the same defaults: each `default:` the code writes must
// appear next to its field in the real schema, so a drift in either shows up here.
TEST(CrdDefaults, MatchTheRealCrd) {
  std::ifstream in(RJG_RAYJOB_CRD_PATH);
  ASSERT_TRUE(in) << "the RayJob CRD is not at " << RJG_RAYJOB_CRD_PATH
                  << ": the shared folder (shared/kuberay/) must be beside the repository";
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string crd = buf.str();
  // Returns the `default:` on the line right after the first "<field>:" key that has one.
  auto default_of = [&](const std::string& field) -> std::string {
    const std::string key = " " + field + ":\n";
    for (std::size_t pos = crd.find(key); pos != std::string::npos; pos = crd.find(key, pos + 1)) {
      const std::size_t line = pos + key.size();
      const std::size_t eol = crd.find('\n', line);
      const std::string next = crd.substr(line, eol - line);
      const std::size_t d = next.find("default: ");
      if (d != std::string::npos) {
        return next.substr(d + 9);
      }
    }
    return "";
  };
  EXPECT_EQ(default_of("submissionMode"), "K8sJobMode");
  EXPECT_EQ(default_of("ttlSecondsAfterFinished"), "0");
  EXPECT_EQ(default_of("backoffLimit"), "0");
  EXPECT_EQ(default_of("numOfHosts"), "1");
  EXPECT_EQ(default_of("maxReplicas"), "2147483647");
  EXPECT_EQ(default_of("minReplicas"), "0");
  EXPECT_EQ(default_of("ttlSeconds"), "0");
}

}  // namespace
}  // namespace rjg::policy::testing
