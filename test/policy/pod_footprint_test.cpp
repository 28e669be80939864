// Tests policy/pod_footprint: the worst-case quota footprint of a RayJob (head pod with the
// autoscaler and SidecarMode submitter containers, worker groups, the K8sJobMode submitter pod).
#include "policy/pod_footprint.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "test/policy/rayjob_builder.hpp"

namespace rjg::policy {
namespace {

using testing::compliant_rayjob;

Quantity q(const char* text) { return *Quantity::parse(text); }

struct Expect {
  const char* key;
  const char* amount;
};

struct Row {
  const char* name;
  std::function<void(RayJob&)> mutate;
  std::vector<Expect> expect;
};

WorkerGroup& worker(RayJob& j, std::size_t i = 0) {
  return j.spec.ray_cluster_spec->worker_groups[i];
}
Container& head(RayJob& j) { return j.spec.ray_cluster_spec->head.pod_template.containers[0]; }

TEST(PodFootprint, ComputesWorstCaseTotals) {
  const std::vector<Row> rows = {
      {"compliant: head 1/2Gi, 2 workers 2/4Gi, default submitter 500m/200Mi (1/1Gi limits)",
       [](RayJob&) {},
       {{"requests.cpu", "5500m"},
        {"cpu", "5500m"},
        {"limits.cpu", "6"},
        {"requests.memory", "10440Mi"},
        {"memory", "10440Mi"},
        {"limits.memory", "11Gi"},
        {"pods", "4"},
        {"count/pods", "6"},
        {"requests.nvidia.com/gpu", "0"}}},
      {"autoscaling counts maxReplicas and the 500m/512Mi sidecar",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         worker(j).max_replicas = 5;
       },
       {{"requests.cpu", "12"},
        {"limits.cpu", "12500m"},
        {"pods", "7"},
        {"limits.memory", "24064Mi"}}},
      {"autoscalerOptions.resources replaces the sidecar defaults wholesale",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         AutoscalerOptions o;
         o.limits = ResourceList{{"cpu", "2"}, {"memory", "1Gi"}};
         j.spec.ray_cluster_spec->autoscaler_options = o;
       },
       {{"requests.cpu", "7500m"}, {"limits.cpu", "8"}}},
      {"autoscalerOptions without resources keeps the defaults",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         AutoscalerOptions o;
         o.image = "rayproject/ray:2.52.0";
         j.spec.ray_cluster_spec->autoscaler_options = o;
       },
       {{"requests.cpu", "6"}, {"requests.memory", "10952Mi"}}},
      {"SidecarMode: the submitter container joins the head pod, no submitter pod",
       [](RayJob& j) { j.spec.submission_mode = "SidecarMode"; },
       {{"requests.cpu", "5500m"}, {"limits.cpu", "6"}, {"pods", "3"}, {"count/pods", "3"}}},
      {"HTTPMode: no submitter at all",
       [](RayJob& j) { j.spec.submission_mode = "HTTPMode"; },
       {{"requests.cpu", "5"}, {"limits.memory", "10Gi"}, {"pods", "3"}}},
      {"InteractiveMode: no submitter at all",
       [](RayJob& j) { j.spec.submission_mode = "InteractiveMode"; },
       {{"requests.cpu", "5"}, {"pods", "3"}}},
      {"absent submissionMode is K8sJobMode",
       [](RayJob& j) { j.spec.submission_mode.reset(); },
       {{"requests.cpu", "5500m"}, {"pods", "4"}}},
      {"clusterSelector mode: only the submitter pod",
       [](RayJob& j) {
         j.spec.ray_cluster_spec.reset();
         j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "c"}};
       },
       {{"requests.cpu", "500m"}, {"limits.memory", "1Gi"}, {"pods", "1"}, {"count/pods", "3"}}},
      {"custom submitterPodTemplate is used exactly",
       [](RayJob& j) {
         PodTemplate t;
         t.containers.push_back(testing::ray_container("sub", "img:1", "250m", "100Mi"));
         j.spec.submitter_pod_template = t;
       },
       {{"requests.cpu", "5250m"}, {"limits.cpu", "5250m"}, {"requests.memory", "10340Mi"}}},
      {"custom submitterPodTemplate without resources adds no defaults",
       [](RayJob& j) {
         PodTemplate t;
         t.containers.push_back(Container{"sub", "img:1", std::nullopt, std::nullopt});
         j.spec.submitter_pod_template = t;
       },
       {{"requests.cpu", "5"}, {"limits.cpu", "5"}, {"pods", "4"}}},
      {"submitterConfig.backoffLimit sets the count/pods attempts",
       [](RayJob& j) { j.spec.submitter_backoff_limit = 0; },
       {{"pods", "4"}, {"count/pods", "4"}}},
      {"an OnFailure submitter template restarts in place",
       [](RayJob& j) {
         PodTemplate t;
         t.restart_policy = "OnFailure";
         t.containers.push_back(testing::ray_container("sub", "img:1", "250m", "100Mi"));
         j.spec.submitter_pod_template = t;
       },
       {{"count/pods", "4"}}},
      {"a large init container dominates the pod",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->head.pod_template.init_containers.push_back(
             testing::ray_container("init", "img:1", "4", "1Gi"));
       },
       {{"requests.cpu", "8500m"}, {"requests.memory", "10440Mi"}}},
      {"a small init container does not add",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->head.pod_template.init_containers.push_back(
             testing::ray_container("init", "img:1", "100m", "1Gi"));
       },
       {{"requests.cpu", "5500m"}}},
      {"app containers of a pod are summed",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->head.pod_template.containers.push_back(
             testing::ray_container("side", "img:1", "250m", "1Gi"));
       },
       {{"requests.cpu", "5750m"}, {"limits.memory", "12Gi"}}},
      {"limits without requests: requests default to limits",
       [](RayJob& j) { head(j).requests.reset(); },
       {{"requests.cpu", "5500m"}, {"requests.memory", "10440Mi"}}},
      {"requests without limits: no limit is charged",
       [](RayJob& j) { head(j).limits.reset(); },
       {{"limits.cpu", "5"}, {"requests.cpu", "5500m"}}},
      {"replicas above maxReplicas are clamped",
       [](RayJob& j) {
         worker(j).replicas = 10;
         worker(j).min_replicas = 0;
         worker(j).max_replicas = 3;
       },
       {{"requests.cpu", "7500m"}, {"pods", "5"}}},
      {"absent replicas count minReplicas",
       [](RayJob& j) {
         worker(j).replicas.reset();
         worker(j).min_replicas = 1;
         worker(j).max_replicas.reset();
       },
       {{"requests.cpu", "3500m"}, {"pods", "3"}}},
      {"minReplicas above maxReplicas counts maxReplicas",
       [](RayJob& j) {
         worker(j).replicas = 5;
         worker(j).min_replicas = 5;
         worker(j).max_replicas = 1;
       },
       {{"pods", "3"}}},
      {"CRD defaults: no replicas, min or max means 0 workers",
       [](RayJob& j) {
         worker(j).replicas.reset();
         worker(j).min_replicas.reset();
         worker(j).max_replicas.reset();
         worker(j).num_of_hosts.reset();
       },
       {{"pods", "2"}, {"requests.cpu", "1500m"}}},
      {"a suspended group counts 0",
       [](RayJob& j) { worker(j).suspend = true; },
       {{"pods", "2"}, {"requests.cpu", "1500m"}}},
      {"numOfHosts multiplies the replicas",
       [](RayJob& j) { worker(j).num_of_hosts = 4; },
       {{"pods", "10"}, {"requests.cpu", "17500m"}}},
      {"autoscaling with the default maxReplicas is the CRD maximum",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         worker(j).max_replicas.reset();
       },
       {{"pods", "2147483649"}, {"requests.cpu", "4294967296"}}},
      {"extended resources and ephemeral storage are charged",
       [](RayJob& j) {
         (*worker(j).pod_template.containers[0].requests)["nvidia.com/gpu"] = "1";
         (*worker(j).pod_template.containers[0].limits)["nvidia.com/gpu"] = "1";
         (*head(j).requests)["ephemeral-storage"] = "10Gi";
       },
       {{"requests.nvidia.com/gpu", "2"},
        {"limits.nvidia.com/gpu", "2"},
        {"requests.ephemeral-storage", "10Gi"},
        {"ephemeral-storage", "10Gi"}}},
      {"two worker groups add up",
       [](RayJob& j) {
         WorkerGroup g = worker(j);
         g.group_name = "big";
         g.replicas = 3;
         g.min_replicas = 3;
         g.max_replicas = 3;
         j.spec.ray_cluster_spec->worker_groups.push_back(g);
       },
       {{"pods", "7"}, {"requests.cpu", "11500m"}}},
  };
  for (const Row& r : rows) {
    RayJob j = compliant_rayjob();
    r.mutate(j);
    const PodFootprint fp = compute_pod_footprint(j);
    EXPECT_TRUE(fp.errors.empty()) << r.name;
    for (const Expect& e : r.expect) {
      EXPECT_EQ(fp.amount(e.key), q(e.amount))
          << r.name << ": " << e.key << " is " << fp.amount(e.key).to_string() << ", want "
          << e.amount;
    }
  }
}

TEST(PodFootprint, BreaksDownByPart) {
  RayJob j = compliant_rayjob();
  j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
  worker(j).max_replicas.reset();
  const PodFootprint fp = compute_pod_footprint(j);
  ASSERT_EQ(fp.parts.size(), 3u);
  EXPECT_EQ(fp.parts[0].kind, FootprintPart::Kind::kHead);
  EXPECT_EQ(fp.parts[0].field(), "spec.rayClusterSpec.headGroupSpec");
  EXPECT_EQ(fp.parts[0].per_pod.requests.at("cpu"), q("1500m"));  // with the sidecar
  EXPECT_EQ(fp.parts[1].kind, FootprintPart::Kind::kWorkerGroup);
  EXPECT_EQ(fp.parts[1].label(), "worker group \"small-group\"");
  EXPECT_EQ(fp.parts[1].field(), "spec.rayClusterSpec.workerGroupSpecs[0]");
  EXPECT_EQ(fp.parts[1].worker_index, 0);
  EXPECT_EQ(fp.parts[1].pods, 2147483647);
  EXPECT_TRUE(fp.parts[1].unbounded_max_replicas);
  EXPECT_EQ(PodFootprint::part_amount(fp.parts[1], "cpu"), q("4294967294"));
  EXPECT_EQ(fp.parts[2].kind, FootprintPart::Kind::kSubmitter);
  EXPECT_EQ(fp.parts[2].field(), "spec");
  EXPECT_EQ(fp.parts[2].counted_pods, 3);

  worker(j).max_replicas = 2147483647;  // written explicitly: still no real bound
  EXPECT_TRUE(compute_pod_footprint(j).parts[1].unbounded_max_replicas);
  worker(j).max_replicas = 10;
  EXPECT_FALSE(compute_pod_footprint(j).parts[1].unbounded_max_replicas);

  // A huge numOfHosts saturates the group's pod count; the totals still add up in 128 bits.
  j = compliant_rayjob();
  worker(j).num_of_hosts = std::numeric_limits<std::int64_t>::max() / 2;
  worker(j).replicas = 4;
  worker(j).min_replicas = 4;
  worker(j).max_replicas = 4;
  const PodFootprint big = compute_pod_footprint(j);
  EXPECT_EQ(big.parts[1].pods, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(big.amount("pods"), Quantity::from_units(std::numeric_limits<std::int64_t>::max()) +
                                    Quantity::from_units(2));
}

TEST(PodFootprint, ReportsUnparseableQuantitiesAndSkipsThem) {
  RayJob j = compliant_rayjob();
  (*worker(j).pod_template.containers[0].limits)["memory"] = "4 GB";
  (*head(j).requests)["cpu"] = "one";
  PodTemplate t;
  Container c{"sub", "img:1", ResourceList{{"cpu", "1x"}}, std::nullopt};
  t.init_containers.push_back(c);
  j.spec.submitter_pod_template = t;
  const PodFootprint fp = compute_pod_footprint(j);
  ASSERT_EQ(fp.errors.size(), 3u);
  EXPECT_EQ(fp.errors[0].field,
            "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources.requests.cpu");
  EXPECT_EQ(fp.errors[0].text, "one");
  EXPECT_EQ(fp.errors[1].field,
            "spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.limits."
            "memory");
  EXPECT_EQ(fp.errors[2].field,
            "spec.submitterPodTemplate.spec.initContainers[0].resources.requests.cpu");
  // The bad head request is not replaced by the limit: it is skipped.
  EXPECT_EQ(fp.amount("requests.cpu"), q("4"));
  EXPECT_EQ(fp.amount("limits.memory"), q("2Gi"));
}

TEST(PodFootprint, ReportsNegativeQuantitiesAndNeverSumsThem) {
  struct Spelling {
    const char* name;
    const char* text;
  };
  // Whatever the spelling, a negative amount is an error and offsets nothing; "-0" is zero.
  for (const Spelling& r : std::vector<Spelling>{{"integer", "-3"},
                                       {"milli", "-2500m"},
                                       {"exponent", "-3e0"},
                                       {"binary suffix", "-1Ki"},
                                       {"below one nano", "-1e-30"},
                                       {"slow path", "-9223372036854775807.5"}}) {
    RayJob j = compliant_rayjob();
    Container offset{"offset", "img:1", ResourceList{{"cpu", r.text}, {"nvidia.com/gpu", r.text}},
                     ResourceList{{"cpu", r.text}, {"memory", r.text}}};
    j.spec.ray_cluster_spec->head.pod_template.containers.push_back(offset);
    offset.name = "init";
    worker(j).pod_template.init_containers.push_back(offset);
    const PodFootprint fp = compute_pod_footprint(j);
    EXPECT_EQ(fp.errors.size(), 8u) << r.name;
    for (const QuantityError& e : fp.errors) {
      EXPECT_EQ(e.text, r.text) << r.name << ": " << e.field;
    }
    // The totals of compliant_rayjob(), untouched.
    EXPECT_EQ(fp.amount("requests.cpu"), q("5500m")) << r.name;
    EXPECT_EQ(fp.amount("limits.cpu"), q("6")) << r.name;
    EXPECT_EQ(fp.amount("limits.memory"), q("11Gi")) << r.name;
    EXPECT_EQ(fp.amount("requests.nvidia.com/gpu"), Quantity()) << r.name;
  }
  RayJob j = compliant_rayjob();
  (*head(j).requests)["cpu"] = "-0";
  const PodFootprint fp = compute_pod_footprint(j);
  EXPECT_TRUE(fp.errors.empty());
  EXPECT_EQ(fp.amount("requests.cpu"), q("4500m"));
}

TEST(PodFootprint, KnowsTheSupportedQuotaKeys) {
  const std::vector<std::pair<const char*, bool>> keys = {
      {"pods", true},
      {"count/pods", true},
      {"cpu", true},
      {"memory", true},
      {"ephemeral-storage", true},
      {"requests.cpu", true},
      {"requests.memory", true},
      {"limits.cpu", true},
      {"limits.memory", true},
      {"requests.ephemeral-storage", true},
      {"limits.ephemeral-storage", true},
      {"requests.nvidia.com/gpu", true},
      {"limits.nvidia.com/gpu", true},
      {"requests.example.org/fpga", true},
      {"requests.hugepages-2Mi", true},
      {"limits.hugepages-1Gi", true},
      {"requests.hugepages-", false},
      {"requests.hugepages-big", false},
      {"requests.storage", false},
      {"persistentvolumeclaims", false},
      {"count/jobs.batch", false},
      {"count/rayjobs.ray.io", false},
      {"services", false},
      {"requests.kubernetes.io/foo", false},
      {"requests.gpu", false},
      {"requests./gpu", false},
      {"requests.nvidia.com/", false},
      {"requests.a/b/c", false},
      {"limits.requests.x/y", false},
      {"nvidia.com/gpu", false},
      {"", false},
      {"CPU", false},
  };
  for (const auto& [key, want] : keys) {
    EXPECT_EQ(is_supported_quota_key(key), want) << key;
  }
  EXPECT_EQ(canonical_quota_key("cpu"), "requests.cpu");
  EXPECT_EQ(canonical_quota_key("memory"), "requests.memory");
  EXPECT_EQ(canonical_quota_key("count/pods"), "count/pods");
  EXPECT_EQ(canonical_quota_key("limits.cpu"), "limits.cpu");
}

}  // namespace
}  // namespace rjg::policy
