// Tests quota-fit: the RayJob's worst-case pod footprint fits its namespace's quota, for every
// quota key the quota names: the policy's (quota.namespaces, quota.default), or with quota.source
// cluster the namespace's ResourceQuota objects, each with its scopes.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "policy/cluster_quota.hpp"
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

// quota.source cluster: the namespace's ResourceQuota objects, each on its own, each counting the
// parts whose pods its scopes cover. The footprint of compliant_rayjob(): head 1 CPU / 2Gi, worker
// group "small-group" 2 pods x 2 CPU / 4Gi, KubeRay's default submitter 500m / 200Mi (limits
// 1 CPU / 1Gi): requests.cpu 5.5, limits.cpu 6, pods 4.
struct ClusterRow {
  const char* name;
  std::function<void(RayJob&, PolicyConfig&, std::string&, std::optional<ClusterQuotas>&)> mutate;
  std::vector<Want> want;
};

using Expressions = std::vector<ResourceQuotaSpec::ScopeExpression>;

ResourceQuotaSpec rq(const char* name, QuotaLimits hard, std::vector<std::string> scopes = {},
                     Expressions selector = {}) {
  return ResourceQuotaSpec{name, std::move(hard), std::move(scopes), std::move(selector)};
}

// Sets tenant-a's ResourceQuotas (in name order, as the cluster gives them).
void quotas(std::optional<ClusterQuotas>& c, std::vector<ResourceQuotaSpec> list) {
  c->namespaces["tenant-a"] = std::move(list);
}

// Adds tenant-a's LocalQueue `local_queue` submitting to ClusterQueue `name` with `quotas`.
void kueue_queue(std::optional<ClusterQuotas>& c, const char* local_queue, const char* name,
                 bool in_cohort, std::vector<ClusterQueueSpec::ResourceQuota> quotas) {
  c->local_queues[std::string("tenant-a/") + local_queue] = name;
  c->cluster_queues[name] = ClusterQueueSpec{name, in_cohort, std::move(quotas)};
}

PodTemplate& head(RayJob& j) { return j.spec.ray_cluster_spec->head.pod_template; }

void no_resources(PodTemplate& t) {
  for (Container& c : t.containers) {
    c.requests.reset();
    c.limits.reset();
  }
}

TEST(QuotaFit, ClusterResourceQuotas) {
  using Cq = std::optional<ClusterQuotas>;
  const std::vector<ClusterRow> rows = {
      {"fits the namespace's one ResourceQuota",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}, {"pods", q("40")}})});
       },
       {}},
      {"exceeds the namespace's one ResourceQuota",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("compute", {{"requests.cpu", q("5")}, {"pods", q("40")}})});
       },
       {{"spec",
         {"worst-case requests.cpu is 5.5, over the ResourceQuota \"tenant-a/compute\" of 5, so "
          "pods would be refused after the RayJob is admitted",
          "worker group \"small-group\" 2 pods x 2 = 4", "resources.requests.cpu"}}}},
      {"two ResourceQuotas: the footprint fits the first, not the second, which is named",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("a-compute", {{"requests.cpu", q("64")}, {"limits.cpu", q("64")}}),
                    rq("b-pods", {{"pods", q("3")}, {"requests.cpu", q("64")}})});
       },
       {{"spec",
         {"worst-case pods is 4, over the ResourceQuota \"tenant-a/b-pods\" of 3",
          "numOfHosts of the worker groups"}}}},
      {"two ResourceQuotas over the same key: each is its own finding",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("a", {{"requests.cpu", q("5")}}), rq("b", {{"requests.cpu", q("4")}})});
       },
       {{"spec", {"requests.cpu is 5.5, over the ResourceQuota \"tenant-a/a\" of 5"}},
        {"spec", {"requests.cpu is 5.5, over the ResourceQuota \"tenant-a/b\" of 4"}}}},
      {"an entry in quota.namespaces overrides the cluster (over the ResourceQuota, within it)",
       [](RayJob&, PolicyConfig& p, std::string&, Cq& c) {
         p.quota.namespaces["tenant-a"] = {{"requests.cpu", q("64")}};
         quotas(c, {rq("compute", {{"requests.cpu", q("1")}})});
       },
       {}},
      {"an entry in quota.namespaces overrides the cluster (within the ResourceQuota, over it)",
       [](RayJob&, PolicyConfig& p, std::string&, Cq& c) {
         p.quota.namespaces["tenant-a"] = {{"requests.cpu", q("5")}};
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});
       },
       {{"spec", {"requests.cpu is 5.5, over the namespace \"tenant-a\" quota of 5"}}}},
      {"keys the footprint cannot compute are ignored",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("objects", {{"count/services", q("0")}, {"requests.storage", q("0")},
                                   {"persistentvolumeclaims", q("0")}})});
       },
       {}},
      // Scopes: BestEffort and NotBestEffort by cpu and memory requests and limits.
      {"a BestEffort quota ignores a RayJob whose pods all request cpu and memory",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("best-effort", {{"pods", q("0")}}, {"BestEffort"})});
       },
       {}},
      {"a BestEffort quota counts the worker group that requests nothing",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         no_resources(worker(j).pod_template);
         quotas(c, {rq("best-effort", {{"pods", q("1")}}, {"BestEffort"})});
       },
       {{"spec",
         {"worst-case pods is 2, over the ResourceQuota \"tenant-a/best-effort\" (scopes "
          "BestEffort) of 1",
          "(worker group \"small-group\" 2 pods)"}}}},
      {"a NotBestEffort quota leaves that worker group out",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         no_resources(worker(j).pod_template);
         quotas(c, {rq("burstable", {{"pods", q("1")}}, {"NotBestEffort"})});
       },
       {{"spec",
         {"worst-case pods is 2, over the ResourceQuota \"tenant-a/burstable\" (scopes "
          "NotBestEffort) of 1",
          "head pod 1 pod, submitter pod (KubeRay's default ray-job-submitter) 1 pod)"}}}},
      {"requests of zero, or of a GPU only, leave a pod BestEffort (Kubernetes' QoS reads cpu "
       "and memory above zero)",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         Container& w = worker(j).pod_template.containers[0];
         w.requests = ResourceList{{"cpu", "0"}, {"nvidia.com/gpu", "1"}};
         w.limits = ResourceList{{"memory", "0"}, {"nvidia.com/gpu", "1"}};
         quotas(c, {rq("best-effort", {{"requests.nvidia.com/gpu", q("1")}}, {"BestEffort"})});
       },
       {{"spec", {"worst-case requests.nvidia.com/gpu is 2, over the ResourceQuota "
                  "\"tenant-a/best-effort\" (scopes BestEffort) of 1"}}}},
      {"an init container's request makes the pod NotBestEffort",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         no_resources(worker(j).pod_template);
         worker(j).pod_template.init_containers.push_back(
             testing::ray_container("init", "img:1", "100m", "64Mi"));
         quotas(c, {rq("best-effort", {{"pods", q("0")}}, {"BestEffort"})});
       },
       {}},
      {"pod-level resources: the QoS is not modelled, so both BestEffort and NotBestEffort count "
       "the part",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         worker(j).pod_template.pod_level_resources = true;
         quotas(c, {rq("best-effort", {{"pods", q("1")}}, {"BestEffort"}),
                    rq("burstable", {{"pods", q("3")}}, {"NotBestEffort"})});
       },
       {{"spec", {"worst-case pods is 2, over the ResourceQuota \"tenant-a/best-effort\""}},
        {"spec", {"worst-case pods is 4, over the ResourceQuota \"tenant-a/burstable\""}}}},
      // Terminating and NotTerminating: the template's activeDeadlineSeconds.
      {"a NotTerminating quota counts every pod without activeDeadlineSeconds",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("long-running", {{"requests.cpu", q("5")}}, {"NotTerminating"})});
       },
       {{"spec",
         {"requests.cpu is 5.5, over the ResourceQuota \"tenant-a/long-running\" (scopes "
          "NotTerminating) of 5"}}}},
      {"a NotTerminating quota leaves out the worker group with activeDeadlineSeconds",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         worker(j).pod_template.active_deadline_seconds = 600;
         quotas(c, {rq("long-running", {{"requests.cpu", q("1500m")}}, {"NotTerminating"})});
       },
       {}},
      {"a Terminating quota counts only that worker group",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         worker(j).pod_template.active_deadline_seconds = 600;
         quotas(c, {rq("batch", {{"requests.cpu", q("3")}}, {"Terminating"})});
       },
       {{"spec",
         {"requests.cpu is 4, over the ResourceQuota \"tenant-a/batch\" (scopes Terminating) of 3,",
          "(worker group \"small-group\" 2 pods x 2 = 4)"}}}},
      {"the RayJob's own activeDeadlineSeconds is not the pods' (a Terminating quota counts "
       "nothing)",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("batch", {{"pods", q("0")}}, {"Terminating"})});
       },
       {}},
      // PriorityClass: the pods' priorityClassName, head and worker group apart.
      {"PriorityClass In counts the head that names the class",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         head(j).priority_class_name = "high";
         quotas(c, {rq("high", {{"requests.cpu", q("500m")}}, {},
                       {{"PriorityClass", "In", {"high", "urgent"}}})});
       },
       {{"spec",
         {"requests.cpu is 1000m, over the ResourceQuota \"tenant-a/high\" (scopes "
          "PriorityClass In (high, urgent)) of 500m,",
          "(head pod 1)"}}}},
      {"PriorityClass In counts the worker group and not the head of another class",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         head(j).priority_class_name = "low";
         worker(j).pod_template.priority_class_name = "high";
         quotas(c, {rq("high", {{"requests.cpu", q("3")}}, {},
                       {{"PriorityClass", "In", {"high"}}})});
       },
       {{"spec",
         {"requests.cpu is 4, over the ResourceQuota \"tenant-a/high\"",
          "of 3,", "(worker group \"small-group\" 2 pods x 2 = 4)"}}}},
      {"PriorityClass In: no pod of the class, nothing counts",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         head(j).priority_class_name = "low";
         quotas(c, {rq("high", {{"pods", q("0")}}, {}, {{"PriorityClass", "In", {"high"}}})});
       },
       {}},
      {"PriorityClass NotIn counts the pods without a class and those of another",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         head(j).priority_class_name = "high";
         quotas(c, {rq("not-high", {{"requests.cpu", q("4")}}, {},
                       {{"PriorityClass", "NotIn", {"high"}}})});
       },
       {{"spec",
         {"requests.cpu is 4.5, over the ResourceQuota \"tenant-a/not-high\" (scopes PriorityClass "
          "NotIn (high)) of 4,", "(worker group \"small-group\" 2 pods x 2 = 4, submitter pod"}}}},
      {"PriorityClass Exists counts the head that names a class",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         head(j).priority_class_name = "high";
         quotas(c, {rq("any-class", {{"pods", q("0")}}, {}, {{"PriorityClass", "Exists", {}}})});
       },
       {{"spec", {"pods is 1, over the ResourceQuota \"tenant-a/any-class\" (scopes PriorityClass "
                  "Exists) of 0,", "(head pod 1 pod)"}}}},
      {"a PriorityClass scope in spec.scopes means Exists",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         worker(j).pod_template.priority_class_name = "high";
         quotas(c, {rq("any-class", {{"pods", q("1")}}, {"PriorityClass"})});
       },
       {{"spec", {"pods is 2, over the ResourceQuota \"tenant-a/any-class\" (scopes "
                  "PriorityClass) of 1,", "(worker group \"small-group\" 2 pods)"}}}},
      {"PriorityClass DoesNotExist counts the pods that name no class",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         head(j).priority_class_name = "high";
         quotas(c, {rq("no-class", {{"pods", q("2")}}, {},
                       {{"PriorityClass", "DoesNotExist", {}}})});
       },
       {{"spec",
         {"pods is 3, over the ResourceQuota \"tenant-a/no-class\" (scopes PriorityClass "
          "DoesNotExist) of 2,", "(worker group \"small-group\" 2 pods, submitter pod"}}}},
      {"scopes are ANDed: NotTerminating and PriorityClass In",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         head(j).priority_class_name = "high";
         head(j).active_deadline_seconds = 600;
         worker(j).pod_template.priority_class_name = "high";
         quotas(c, {rq("high-long", {{"pods", q("1")}}, {"NotTerminating"},
                       {{"PriorityClass", "In", {"high"}}})});
       },
       {{"spec", {"pods is 2, over the ResourceQuota \"tenant-a/high-long\" (scopes "
                  "NotTerminating, PriorityClass In (high)) of 1,", "(worker group"}}}},
      // CrossNamespacePodAffinity: the template's pod (anti-)affinity terms.
      {"a CrossNamespacePodAffinity quota counts the worker group with such a term",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         worker(j).pod_template.cross_namespace_pod_affinity = true;
         quotas(c, {rq("no-cross-ns", {{"pods", q("0")}}, {"CrossNamespacePodAffinity"})});
       },
       {{"spec", {"pods is 2, over the ResourceQuota \"tenant-a/no-cross-ns\" (scopes "
                  "CrossNamespacePodAffinity) of 0,", "(worker group \"small-group\" 2 pods)"}}}},
      {"a CrossNamespacePodAffinity quota ignores pods without one",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("no-cross-ns", {{"pods", q("0")}}, {"CrossNamespacePodAffinity"})});
       },
       {}},
      {"VolumeAttributesClass covers no pod",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("volumes", {{"pods", q("0")}}, {"VolumeAttributesClass"})});
       },
       {}},
      {"a scope of a later Kubernetes counts every pod",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("later", {{"pods", q("3")}}, {"SomeLaterScope"})});
       },
       {{"spec",
         {"pods is 4, over the ResourceQuota \"tenant-a/later\" (scopes SomeLaterScope)"}}}},
      // No ResourceQuota and no entry: quota.unknownNamespace.
      {"no ResourceQuota and no entry, unknownNamespace deny",
       [](RayJob& j, PolicyConfig&, std::string& ns, Cq& c) {
         ns = "team-x";
         j.metadata.namespace_ = "team-x";
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});  // another namespace's
       },
       {{"metadata.namespace",
         {"namespace \"team-x\" has no ResourceQuota in the cluster and no entry in the policy's "
          "quota.namespaces, and quota.unknownNamespace is deny"}}}},
      {"an empty list of ResourceQuotas is none",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) { quotas(c, {}); },
       {{"metadata.namespace",
         {"namespace \"tenant-a\" has no ResourceQuota in the cluster and no entry"}}}},
      {"no ResourceQuota and no entry, useDefault, within the default",
       [](RayJob&, PolicyConfig& p, std::string& ns, Cq&) {
         ns = "team-x";
         p.quota.unknown_namespace = QuotaConfig::UnknownNamespace::kUseDefault;
       },
       {}},
      {"no ResourceQuota and no entry, useDefault, over the default",
       [](RayJob& j, PolicyConfig& p, std::string& ns, Cq&) {
         ns = "team-x";
         p.quota.unknown_namespace = QuotaConfig::UnknownNamespace::kUseDefault;
         replicas(j, 8);
       },
       {{"spec",
         {"limits.cpu is 18, over the default quota (namespace \"team-x\" has no ResourceQuota "
          "in the cluster and no entry) of 16"}},
        {"spec", {"requests.cpu is 17.5"}}}},
      // No cluster read (check offline): as quota.source policy.
      {"no cluster read: the policy's entry decides",
       [](RayJob&, PolicyConfig& p, std::string&, Cq& c) {
         c.reset();
         p.quota.namespaces["tenant-a"] = {{"requests.cpu", q("5")}};
       },
       {{"spec", {"requests.cpu is 5.5, over the namespace \"tenant-a\" quota of 5"}}}},
      {"no cluster read and no entry: the policy's deny, in the policy's words",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) { c.reset(); },
       {{"metadata.namespace",
         {"namespace \"tenant-a\" has no entry in the policy's quota.namespaces and "
          "quota.unknownNamespace is deny"}}}},
      {"quota.source policy ignores the cluster's ResourceQuotas",
       [](RayJob&, PolicyConfig& p, std::string&, Cq& c) {
         p.quota.source = QuotaConfig::Source::kPolicy;
         p.quota.namespaces["tenant-a"] = {{"requests.cpu", q("64")}};
         quotas(c, {rq("compute", {{"requests.cpu", q("1")}})});
       },
       {}},
      // kueue.localQueues is checked as before.
      {"a Kueue RayJob within its ResourceQuota, over its ClusterQueue",
       [](RayJob& j, PolicyConfig& p, std::string&, Cq& c) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         p.kueue.local_queues["tenant-a/batch"] = {{"requests.cpu", q("4")}};
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});
       },
       {{"spec",
         {"worst-case requests.cpu is 5.5, over the ClusterQueue quota of LocalQueue "
          "\"tenant-a/batch\" (kueue.localQueues) of 4"}}}},
      // Kueue's queues as the cluster holds them (footprint: requests.cpu 5.5, pods 4).
      {"a Kueue RayJob over its LocalQueue's ClusterQueue in the cluster",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});
         kueue_queue(c, "batch", "team", false,
                     {{"default", "cpu", q("3"), {}}, {"spot", "cpu", q("2"), {}},
                      {"default", "pods", q("10"), {}}});
       },
       {{"spec",
         {"worst-case requests.cpu is 5.5, over the ClusterQueue \"team\" of LocalQueue "
          "\"tenant-a/batch\" (nominal quota) of 5, so Kueue would never admit it"}}}},
      {"the ClusterQueue's flavors together hold it",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});
         kueue_queue(c, "batch", "team", false,
                     {{"default", "cpu", q("3"), {}}, {"spot", "cpu", q("2500m"), {}}});
       },
       {}},
      {"a cohort's borrowing limit counts",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});
         kueue_queue(c, "batch", "team", true, {{"default", "cpu", q("3"), q("2")}});
       },
       {{"spec", {"(nominal quota plus borrowing limit) of 5"}}}},
      {"in a cohort without a borrowing limit, the resource is not judged",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});
         kueue_queue(c, "batch", "team", true,
                     {{"default", "cpu", q("1"), {}}, {"default", "pods", q("1"), q("2")}});
       },
       {{"spec", {"worst-case pods is 4, over the ClusterQueue \"team\""}}}},
      {"a LocalQueue the cluster does not hold is Kueue's to wait for",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         j.metadata.kueue_labels[kQueueNameLabel] = "other";
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});
         kueue_queue(c, "batch", "team", false, {{"default", "cpu", q("1"), {}}});
       },
       {}},
      {"a ClusterQueue the cluster does not hold is Kueue's to wait for",
       [](RayJob& j, PolicyConfig&, std::string&, Cq& c) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});
         kueue_queue(c, "batch", "team", false, {{"default", "cpu", q("1"), {}}});
         c->cluster_queues.clear();
       },
       {}},
      {"kueue.localQueues overrides the cluster's ClusterQueue",
       [](RayJob& j, PolicyConfig& p, std::string&, Cq& c) {
         j.metadata.kueue_labels[kQueueNameLabel] = "batch";
         p.kueue.local_queues["tenant-a/batch"] = {{"requests.cpu", q("64")}};
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});
         kueue_queue(c, "batch", "team", false, {{"default", "cpu", q("1"), {}}});
       },
       {}},
      {"a RayJob without the queue-name label ignores the queues",
       [](RayJob&, PolicyConfig&, std::string&, Cq& c) {
         quotas(c, {rq("compute", {{"requests.cpu", q("64")}})});
         kueue_queue(c, "batch", "team", false, {{"default", "cpu", q("1"), {}}});
       },
       {}},
  };
  for (const ClusterRow& r : rows) {
    RayJob j = testing::compliant_rayjob();
    PolicyConfig policy = testing::default_test_policy();
    policy.quota.source = QuotaConfig::Source::kCluster;
    policy.quota.namespaces.erase("tenant-a");
    std::string ns = "tenant-a";
    std::optional<ClusterQuotas> cluster = ClusterQuotas{};
    r.mutate(j, policy, ns, cluster);
    Findings out;
    check_quota_fit(RuleContext{j, ns, policy, nullptr, cluster ? &*cluster : nullptr}, out);
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
