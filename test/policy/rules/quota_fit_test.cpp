// Tests quota-fit: the RayJob's worst-case pod footprint fits its namespace's quota, for every
// quota key the policy names.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "policy/kueue.hpp"
#include "policy/rules/rules.hpp"
#include "test/policy/rayjob_builder.hpp"

namespace rjg::policy {
namespace {

struct Want {
  std::string field;
  std::vector<std::string> fragments;
};

struct Row {
  const char* name;
  std::function<void(RayJob&, PolicyConfig&, std::string&)> mutate;
  std::vector<Want> want;
};

WorkerGroup& worker(RayJob& j) { return j.spec.ray_cluster_spec->worker_groups[0]; }

void replicas(RayJob& j, long long n) {
  worker(j).replicas = n;
  worker(j).min_replicas = n;
  worker(j).max_replicas = n;
}

Quantity q(const char* text) { return *Quantity::parse(text); }

TEST(QuotaFit, Table) {
  const std::vector<Row> rows = {
      {"compliant in tenant-a", [](RayJob&, PolicyConfig&, std::string&) {}, {}},
      {"40 workers of 2 CPU exceed 64 CPU and 40 pods",
       [](RayJob& j, PolicyConfig&, std::string&) { replicas(j, 40); },
       {{"spec",
         {"worst-case limits.cpu is 82, over the namespace \"tenant-a\" quota of 64",
          "worker group \"small-group\" 40 pods x 2 = 80", "head pod 1",
          "lower replicas, maxReplicas (with autoscaling) or numOfHosts, or the containers' "
          "resources.limits.cpu"}},
        {"spec",
         {"worst-case pods is 42, over the namespace \"tenant-a\" quota of 40",
          "worker group \"small-group\" 40", "numOfHosts of the worker groups"}},
        {"spec",
         {"worst-case requests.cpu is 81.5, over the namespace \"tenant-a\" quota of 64",
          "submitter pod (KubeRay's default "
          "ray-job-submitter) 500m",
          "resources.requests.cpu"}}}},
      {"30 workers fit", [](RayJob& j, PolicyConfig&, std::string&) { replicas(j, 30); }, {}},
      {"32 workers exceed 64 CPU",
       [](RayJob& j, PolicyConfig&, std::string&) { replicas(j, 32); },
       {{"spec", {"worst-case limits.cpu is 66, over"}},
        {"spec", {"worst-case requests.cpu is 65.5, over"}}}},
      {"a negative cpu in a head container offsets nothing (it would bring 66 down to 36)",
       [](RayJob& j, PolicyConfig&, std::string&) {
         replicas(j, 32);
         j.spec.ray_cluster_spec->head.pod_template.containers.push_back(
             Container{"offset", "img:1", ResourceList{{"cpu", "-30"}, {"memory", "1Gi"}},
                       ResourceList{{"cpu", "-30"}, {"memory", "1Gi"}}});
       },
       {{"spec", {"worst-case limits.cpu is 66, over", "head pod 1,"}},
        {"spec", {"worst-case requests.cpu is 65.5, over"}}}},
      {"a negative limit is not copied to the request either",
       [](RayJob& j, PolicyConfig&, std::string&) {
         replicas(j, 32);
         j.spec.ray_cluster_spec->head.pod_template.init_containers.push_back(
             Container{"offset", "img:1", std::nullopt, ResourceList{{"cpu", "-1e3"}}});
       },
       {{"spec", {"worst-case limits.cpu is 66, over"}},
        {"spec", {"worst-case requests.cpu is 65.5, over"}}}},
      {"numOfHosts multiplies",
       [](RayJob& j, PolicyConfig&, std::string&) {
         replicas(j, 10);
         worker(j).num_of_hosts = 4;
       },
       {{"spec", {"limits.cpu is 82", "40 pods x 2 = 80"}},
        {"spec", {"pods is 42"}},
        {"spec", {"requests.cpu is 81.5"}}}},
      {"autoscaling with the default maxReplicas points at maxReplicas",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         worker(j).max_replicas.reset();
         p.quota.namespaces["tenant-a"] = {{"pods", q("40")}};
       },
       {{"spec.rayClusterSpec.workerGroupSpecs[0].maxReplicas",
         {"worst-case pods is 2147483649",
          "worker group \"small-group\" autoscales up to maxReplicas 2147483647 (the CRD default "
          "when it is not set); set maxReplicas so that the worst case fits"}}}},
      {"autoscaling with a bounded maxReplicas over quota points at spec",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         worker(j).max_replicas = 100;
         p.quota.namespaces["tenant-a"] = {{"pods", q("40")}};
       },
       {{"spec", {"worst-case pods is 102"}}}},
      {"autoscaling within quota counts the sidecar",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         worker(j).max_replicas = 4;
         p.quota.namespaces["tenant-a"] = {{"requests.cpu", q("9500m")}};
       },
       {{"spec", {"requests.cpu is 10000m, over", "head pod 1500m"}}}},
      {"GPUs over the extended-resource quota",
       [](RayJob& j, PolicyConfig&, std::string&) {
         replicas(j, 10);
         (*worker(j).pod_template.containers[0].requests)["nvidia.com/gpu"] = "1";
         (*worker(j).pod_template.containers[0].limits)["nvidia.com/gpu"] = "1";
       },
       {{"spec",
         {"worst-case requests.nvidia.com/gpu is 10, over the namespace \"tenant-a\" quota "
          "of 8",
          "10 pods x 1 = 10", "resources.requests.nvidia.com/gpu"}}}},
      {"memory is shown with binary suffixes",
       [](RayJob&, PolicyConfig& p, std::string&) {
         p.quota.namespaces["tenant-a"] = {{"limits.memory", q("10Gi")}};
       },
       {{"spec",
         {"worst-case limits.memory is 11Gi, over the namespace \"tenant-a\" quota of 10Gi",
          "2 pods x 4Gi = 8Gi", "head pod 2Gi"}}}},
      {"the quota's short keys are requests",
       [](RayJob&, PolicyConfig& p, std::string&) {
         p.quota.namespaces["tenant-a"] = {{"cpu", q("5")}, {"memory", q("64Gi")}};
       },
       {{"spec",
         {"worst-case cpu (requests.cpu) is 5.5, over the namespace \"tenant-a\" quota of 5"}}}},
      // Shown in the unit the quota is written in: 10440Mi against 1Gi reads as Gi (rounded up,
      // the exact figure after it), against 1000Mi as Mi.
      {"memory in the quota's unit",
       [](RayJob&, PolicyConfig& p, std::string&) {
         p.quota.namespaces["tenant-a"] = {{"requests.memory", q("1Gi")}};
       },
       {{"spec",
         {"worst-case requests.memory is about 10.20Gi (exactly 10440Mi), over the namespace "
          "\"tenant-a\" quota of 1Gi"}}}},
      {"a quota in Mi shows Mi",
       [](RayJob&, PolicyConfig& p, std::string&) {
         p.quota.namespaces["tenant-a"] = {{"requests.memory", q("1000Mi")}};
       },
       {{"spec",
         {"worst-case requests.memory is 10440Mi, over the namespace \"tenant-a\" quota of "
          "1000Mi"}}}},
      {"a limit equal to the need fits",
       [](RayJob&, PolicyConfig& p, std::string&) {
         p.quota.namespaces["tenant-a"] = {
             {"requests.cpu", q("5500m")}, {"limits.memory", q("11Gi")}, {"pods", q("4")}};
       },
       {}},
      {"count/pods counts every submitter attempt",
       [](RayJob&, PolicyConfig& p, std::string&) {
         p.quota.namespaces["tenant-a"] = {{"count/pods", q("5")}, {"pods", q("4")}};
       },
       {{"spec",
         {"worst-case count/pods is 6",
          "submitter pod (KubeRay's default ray-job-submitter) 3 "
          "(a failed submitter pod stays until its Job is deleted, one per attempt)"}}}},
      {"keys the footprint cannot compute are ignored",
       [](RayJob&, PolicyConfig& p, std::string&) {
         p.quota.namespaces["tenant-a"] = {{"count/jobs.batch", q("0")}, {"services", q("0")}};
       },
       {}},
      {"unparseable quantities are skipped (resources-declared reports them)",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         (*worker(j).pod_template.containers[0].requests)["cpu"] = "lots";
         replicas(j, 3);
         p.quota.namespaces["tenant-a"] = {{"requests.cpu", q("2")}};
       },
       {}},
      {"unknown namespace with unknownNamespace deny",
       [](RayJob& j, PolicyConfig&, std::string& ns) {
         ns = "team-x";
         j.metadata.namespace_ = "team-x";
       },
       {{"metadata.namespace",
         {"namespace \"team-x\" has no entry in the policy's quota.namespaces "
          "and quota.unknownNamespace is deny"}}}},
      {"unknown namespace with useDefault, within the default",
       [](RayJob&, PolicyConfig& p, std::string& ns) {
         ns = "team-x";
         p.quota.unknown_namespace = QuotaConfig::UnknownNamespace::kUseDefault;
       },
       {}},
      {"unknown namespace with useDefault, over the default",
       [](RayJob& j, PolicyConfig& p, std::string& ns) {
         ns = "team-x";
         p.quota.unknown_namespace = QuotaConfig::UnknownNamespace::kUseDefault;
         replicas(j, 8);
       },
       {{"spec",
         {"limits.cpu is 18, over the default quota (namespace \"team-x\" has no entry) of 16"}},
        {"spec", {"requests.cpu is 17.5"}}}},
      {"an empty request namespace falls back to metadata.namespace",
       [](RayJob&, PolicyConfig&, std::string& ns) { ns = ""; },
       {}},
      {"clusterSelector mode counts only the submitter pod",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.spec.ray_cluster_spec.reset();
         j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "c"}};
         p.quota.namespaces["tenant-a"] = {{"requests.cpu", q("400m")}};
       },
       {{"spec", {"requests.cpu is 500m, over the namespace \"tenant-a\" quota of 400m"}}}},
      {"an init container larger than the app containers drives the pod",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.spec.ray_cluster_spec->head.pod_template.init_containers.push_back(
             testing::ray_container("init", "img:1", "10", "1Gi"));
         p.quota.namespaces["tenant-a"] = {{"requests.cpu", q("10")}};
       },
       {{"spec",
         {"requests.cpu is 14.5", "head pod 10, worker group \"small-group\" 2 pods x 2 = 4"}}}},
      // Kueue (kueue.localQueues): the most the LocalQueue's ClusterQueue can ever grant.
      {"a Kueue RayJob larger than its LocalQueue's ClusterQueue quota",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         p.kueue.local_queues["tenant-a/batch"] = {{"requests.cpu", q("4")}};
       },
       {{"spec",
         {"worst-case requests.cpu is 5.5, over the ClusterQueue quota of LocalQueue "
          "\"tenant-a/batch\" (kueue.localQueues) of 4, so Kueue would never admit it",
          "worker group \"small-group\" 2 pods x 2 = 4"}}}},
      {"in the ClusterQueue quota's own unit",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         p.kueue.local_queues["tenant-a/batch"] = {{"requests.memory", q("1Gi")}};
       },
       {{"spec", {"requests.memory is about 10.20Gi (exactly 10440Mi), over the ClusterQueue quota"}}}},
      {"a Kueue RayJob within its ClusterQueue quota",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         p.kueue.local_queues["tenant-a/batch"] = {{"requests.cpu", q("5500m")}};
       },
       {}},
      {"another LocalQueue's entry does not apply",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.metadata.kueue_labels[kQueueNameLabel] = "interactive";
         p.kueue.local_queues["tenant-a/batch"] = {{"requests.cpu", q("1")}};
       },
       {}},
      {"nor another namespace's LocalQueue of the same name",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         p.kueue.local_queues["tenant-b/batch"] = {{"requests.cpu", q("1")}};
       },
       {}},
      {"an unlabelled RayJob is not Kueue's",
       [](RayJob&, PolicyConfig& p, std::string&) {
         p.kueue.local_queues["tenant-a/batch"] = {{"requests.cpu", q("1")}};
       },
       {}},
      {"over both the namespace's quota and the ClusterQueue's: one finding each",
       [](RayJob& j, PolicyConfig& p, std::string&) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         p.quota.namespaces["tenant-a"] = {{"requests.cpu", q("5")}};
         p.kueue.local_queues["tenant-a/batch"] = {{"requests.cpu", q("4")}};
       },
       {{"spec", {"over the namespace \"tenant-a\" quota of 5, so pods would be refused"}},
        {"spec", {"over the ClusterQueue quota of LocalQueue \"tenant-a/batch\""}}}},
  };
  for (const Row& r : rows) {
    RayJob j = testing::compliant_rayjob();
    PolicyConfig policy = testing::default_test_policy();
    std::string ns = "tenant-a";
    r.mutate(j, policy, ns);
    Findings out;
    check_quota_fit(RuleContext{j, ns, policy}, out);
    EXPECT_EQ(out.size(), r.want.size())
        << r.name << (out.empty() ? "" : ": " + out[0].field + ": " + out[0].message);
    for (std::size_t i = 0; i < out.size() && i < r.want.size(); ++i) {
      EXPECT_EQ(out[i].rule, RuleId::kQuotaFit) << r.name;
      EXPECT_EQ(out[i].kind, Finding::Kind::kViolation) << r.name;
      EXPECT_EQ(out[i].field, r.want[i].field) << r.name << ": " << out[i].message;
      for (const std::string& fragment : r.want[i].fragments) {
        EXPECT_NE(out[i].message.find(fragment), std::string::npos)
            << r.name << "\n  message: " << out[i].message << "\n  wanted: " << fragment;
      }
    }
  }
}

}  // namespace
}  // namespace rjg::policy
