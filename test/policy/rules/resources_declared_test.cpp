// Tests resources-declared: every container that will run sets cpu and memory requests and
// limits, limits for every extended resource it requests, and only quantities Kubernetes accepts.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "policy/rules/rules.hpp"
#include "test/policy/rayjob_builder.hpp"

namespace rjg::policy {
namespace {

struct Want {
  std::string field;
  std::string fragment;
};

struct Row {
  const char* name;
  std::function<void(RayJob&)> mutate;
  std::vector<Want> want;
};

const std::string kHead = "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources";
const std::string kWorker =
    "spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources";

Container& head(RayJob& j) { return j.spec.ray_cluster_spec->head.pod_template.containers[0]; }
Container& worker(RayJob& j) {
  return j.spec.ray_cluster_spec->worker_groups[0].pod_template.containers[0];
}
PodTemplate submitter_with(Container c) {
  PodTemplate t;
  t.containers.push_back(std::move(c));
  return t;
}

TEST(ResourcesDeclared, Table) {
  const std::vector<Row> rows = {
      {"compliant", [](RayJob&) {}, {}},
      {"worker without a memory limit",
       [](RayJob& j) { worker(j).limits->erase("memory"); },
       {{kWorker + ".limits.memory",
         "sets no memory limit; set resources.limits.memory; the "
         "namespace ResourceQuota refuses pods without it"}}},
      {"head without any resources",
       [](RayJob& j) {
         head(j).requests.reset();
         head(j).limits.reset();
       },
       {{kHead, "container \"ray-head\" sets no resources; set resources.requests.cpu"}}},
      {"head with limits only: requests must still be written",
       [](RayJob& j) { head(j).requests.reset(); },
       {{kHead + ".requests",
         "sets no cpu and memory request; set resources.requests.cpu and "
         "resources.requests.memory"}}},
      {"head with an empty requests map",
       [](RayJob& j) { head(j).requests = ResourceList{}; },
       {{kHead + ".requests", "sets no cpu and memory request"}}},
      {"head without a cpu request",
       [](RayJob& j) { head(j).requests->erase("cpu"); },
       {{kHead + ".requests.cpu", "sets no cpu request; set resources.requests.cpu"}}},
      {"head with requests only",
       [](RayJob& j) { head(j).limits.reset(); },
       {{kHead + ".limits",
         "sets no cpu and memory limit; set resources.limits.cpu and "
         "resources.limits.memory"}}},
      {"second worker group without a cpu limit",
       [](RayJob& j) {
         WorkerGroup g = j.spec.ray_cluster_spec->worker_groups[0];
         g.pod_template.containers[0].limits->erase("cpu");
         j.spec.ray_cluster_spec->worker_groups.push_back(g);
       },
       {{"spec.rayClusterSpec.workerGroupSpecs[1].template.spec.containers[0].resources.limits.cpu",
         "sets no cpu limit"}}},
      {"worker init container without resources",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->worker_groups[0].pod_template.init_containers.push_back(
             Container{"fetch", "busybox:1.36", std::nullopt, std::nullopt});
       },
       {{"spec.rayClusterSpec.workerGroupSpecs[0].template.spec.initContainers[0].resources",
         "init container \"fetch\" sets no resources"}}},
      {"head init container with requests only",
       [](RayJob& j) {
         Container c = testing::ray_container("init", "busybox:1.36", "100m", "64Mi");
         c.limits.reset();
         j.spec.ray_cluster_spec->head.pod_template.init_containers.push_back(c);
       },
       {{"spec.rayClusterSpec.headGroupSpec.template.spec.initContainers[0].resources.limits",
         "sets no cpu and memory limit"}}},
      {"submitterPodTemplate container without resources",
       [](RayJob& j) {
         j.spec.submitter_pod_template = submitter_with(
             Container{"sub", "quay.io/kuberay/submitter:v1.5.1", std::nullopt, std::nullopt});
       },
       {{"spec.submitterPodTemplate.spec.containers[0].resources",
         "KubeRay adds no default resources to a submitterPodTemplate"}}},
      {"submitterPodTemplate init container with limits only",
       [](RayJob& j) {
         PodTemplate t = submitter_with(testing::ray_container("sub", "img:1", "1", "1Gi"));
         Container init = testing::ray_container("init", "img:1", "1", "1Gi");
         init.requests.reset();
         t.init_containers.push_back(init);
         j.spec.submitter_pod_template = t;
       },
       {{"spec.submitterPodTemplate.spec.initContainers[0].resources.requests",
         "sets no cpu and memory request"}}},
      {"complete submitterPodTemplate",
       [](RayJob& j) {
         j.spec.submitter_pod_template =
             submitter_with(testing::ray_container("sub", "img:1", "500m", "1Gi"));
       },
       {}},
      {"submitterPodTemplate is not used in HTTPMode",
       [](RayJob& j) {
         j.spec.submission_mode = "HTTPMode";
         j.spec.submitter_pod_template =
             submitter_with(Container{"sub", "img:1", std::nullopt, std::nullopt});
       },
       {}},
      {"GPU requested without a limit",
       [](RayJob& j) { (*worker(j).requests)["nvidia.com/gpu"] = "1"; },
       {{kWorker + ".limits.nvidia.com/gpu",
         "requests nvidia.com/gpu without a limit; set "
         "resources.limits.nvidia.com/gpu"}}},
      {"huge pages requested without a limit",
       [](RayJob& j) { (*worker(j).requests)["hugepages-2Mi"] = "64Mi"; },
       {{kWorker + ".limits.hugepages-2Mi", "without a limit"}}},
      {"GPU with its limit",
       [](RayJob& j) {
         (*worker(j).requests)["nvidia.com/gpu"] = "1";
         (*worker(j).limits)["nvidia.com/gpu"] = "1";
       },
       {}},
      {"GPU limit only (Kubernetes copies it to the request)",
       [](RayJob& j) { (*worker(j).limits)["nvidia.com/gpu"] = "1"; },
       {}},
      {"unparseable request",
       [](RayJob& j) { (*worker(j).requests)["cpu"] = "2 cores"; },
       {{kWorker + ".requests.cpu", "\"2 cores\" is not a Kubernetes quantity"}}},
      {"unparseable limit",
       [](RayJob& j) { (*head(j).limits)["memory"] = "2GB"; },
       {{kHead + ".limits.memory", "\"2GB\" is not a Kubernetes quantity"}}},
      {"unparseable and missing are both reported",
       [](RayJob& j) {
         (*worker(j).limits)["cpu"] = "";
         worker(j).limits->erase("memory");
       },
       {{kWorker + ".limits.cpu", "\"\" is not a Kubernetes quantity"},
        {kWorker + ".limits.memory", "sets no memory limit"}}},
      {"negative cpu request",
       [](RayJob& j) { (*worker(j).requests)["cpu"] = "-2"; },
       {{kWorker + ".requests.cpu",
         "container \"ray-worker\": requests.cpu is negative (\"-2\"); Kubernetes refuses the "
         "pod (\"must be greater than or equal to 0\") after the RayJob was admitted; write the "
         "amount the container needs, 0 or more"}}},
      {"negative memory limit with an exponent",
       [](RayJob& j) { (*head(j).limits)["memory"] = "-1e9"; },
       {{kHead + ".limits.memory", "limits.memory is negative (\"-1e9\")"}}},
      {"negative GPU limit and request",
       [](RayJob& j) {
         (*worker(j).requests)["nvidia.com/gpu"] = "-1";
         (*worker(j).limits)["nvidia.com/gpu"] = "-1";
       },
       {{kWorker + ".requests.nvidia.com/gpu", "requests.nvidia.com/gpu is negative"},
        {kWorker + ".limits.nvidia.com/gpu", "limits.nvidia.com/gpu is negative"}}},
      {"negative ephemeral-storage and an unknown resource",
       [](RayJob& j) {
         (*worker(j).requests)["ephemeral-storage"] = "-500Mi";
         (*worker(j).limits)["example.com/widget"] = "-0.5";
       },
       {{kWorker + ".requests.ephemeral-storage", "is negative (\"-500Mi\")"},
        {kWorker + ".limits.example.com/widget", "is negative (\"-0.5\")"}}},
      {"negative zero and a tiny negative that rounds to -1n",
       [](RayJob& j) {
         (*worker(j).requests)["cpu"] = "-0";
         (*worker(j).limits)["cpu"] = "-1e-12";
       },
       {{kWorker + ".limits.cpu", "is negative (\"-1e-12\")"}}},
      {"negative request of an init container",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->head.pod_template.init_containers.push_back(
             Container{"fetch", "img:1", ResourceList{{"cpu", "-1"}, {"memory", "1Gi"}},
                       ResourceList{{"cpu", "1"}, {"memory", "1Gi"}}});
       },
       {{"spec.rayClusterSpec.headGroupSpec.template.spec.initContainers[0].resources.requests.cpu",
         "init container \"fetch\": requests.cpu is negative"}}},
      {"negative request of the autoscaler override",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         AutoscalerOptions o;
         o.requests = ResourceList{{"cpu", "-500m"}, {"memory", "512Mi"}};
         o.limits = ResourceList{{"cpu", "500m"}, {"memory", "512Mi"}};
         j.spec.ray_cluster_spec->autoscaler_options = o;
       },
       {{"spec.rayClusterSpec.autoscalerOptions.resources.requests.cpu",
         "requests.cpu is negative (\"-500m\")"}}},
      {"negative limit of a submitterPodTemplate container",
       [](RayJob& j) {
         j.spec.submitter_pod_template =
             submitter_with(Container{"sub", "img:1", ResourceList{{"cpu", "1"}, {"memory", "1Gi"}},
                                      ResourceList{{"cpu", "1"}, {"memory", "-1Gi"}}});
       },
       {{"spec.submitterPodTemplate.spec.containers[0].resources.limits.memory",
         "limits.memory is negative"}}},
      {"autoscaler override with limits only",
       [](RayJob& j) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         AutoscalerOptions o;
         o.limits = ResourceList{{"cpu", "1"}, {"memory", "1Gi"}};
         j.spec.ray_cluster_spec->autoscaler_options = o;
       },
       {{"spec.rayClusterSpec.autoscalerOptions.resources.requests",
         "the autoscaler container (autoscalerOptions.resources replaces KubeRay's defaults) sets "
         "no cpu and memory request"}}},
      {"autoscaler override ignored while autoscaling is off",
       [](RayJob& j) {
         AutoscalerOptions o;
         o.limits = ResourceList{{"cpu", "1"}};
         j.spec.ray_cluster_spec->autoscaler_options = o;
       },
       {}},
      {"autoscaling with KubeRay's default sidecar resources",
       [](RayJob& j) { j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true; },
       {}},
      {"clusterSelector mode with the default submitter",
       [](RayJob& j) {
         j.spec.ray_cluster_spec.reset();
         j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "c"}};
       },
       {}},
  };
  for (const Row& r : rows) {
    RayJob j = testing::compliant_rayjob();
    r.mutate(j);
    const PolicyConfig policy = testing::default_test_policy();
    const std::string ns = "tenant-a";
    Findings out;
    check_resources_declared(RuleContext{j, ns, policy}, out);
    EXPECT_EQ(out.size(), r.want.size())
        << r.name << (out.empty() ? "" : ": " + out[0].field + ": " + out[0].message);
    for (std::size_t i = 0; i < out.size() && i < r.want.size(); ++i) {
      EXPECT_EQ(out[i].rule, RuleId::kResourcesDeclared) << r.name;
      EXPECT_EQ(out[i].kind, Finding::Kind::kViolation) << r.name;
      EXPECT_EQ(out[i].field, r.want[i].field) << r.name;
      EXPECT_NE(out[i].message.find(r.want[i].fragment), std::string::npos)
          << r.name << "\n  message: " << out[i].message << "\n  wanted: " << r.want[i].fragment;
    }
  }
}

}  // namespace
}  // namespace rjg::policy
