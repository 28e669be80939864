// Tests admission/decode_rayjob: field mapping and runtimeEnvYAML parsing into RuntimeEnv.
#include "admission/decode_rayjob.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "review_fixture.hpp"

namespace rjg::admission {
namespace {

using Parse = policy::RuntimeEnv::Parse;
using PipForm = policy::RuntimeEnv::PipForm;

TEST(DecodeRayJob, MapsEveryModelledField) {
  auto doc = json::parse(R"({"apiVersion":"ray.io/v1","metadata":{"name":"j","generateName":"j-",
    "namespace":"ns","labels":{"a":"b"},"annotations":{"c":"d","rayjob-guard.io/ttl-after-success":"600"},"finalizers":["f"]},
    "spec":{"entrypoint":"e","shutdownAfterJobFinishes":true,"ttlSecondsAfterFinished":5,
    "activeDeadlineSeconds":6,"preRunningDeadlineSeconds":7,"backoffLimit":1,"suspend":true,
    "submissionMode":"HTTPMode","submitterPodTemplate":{"spec":{"restartPolicy":"Never",
    "containers":[{"name":"s","image":"i"}],"initContainers":[{"name":"init","image":"i2"}]}},
    "submitterConfig":{"backoffLimit":3},"clusterSelector":{"ray.io/cluster":"c"},
    "managedBy":"ray.io/kuberay-operator","deletionPolicy":"DeleteSelf",
    "deletionStrategy":{"onSuccess":{"policy":"DeleteCluster"},"onFailure":{"policy":"DeleteNone"}},
    "jobId":"id","unknownField":{"ignored":true},
    "rayClusterSpec":{"rayVersion":"2.52.0","enableInTreeAutoscaling":true,"managedBy":"m",
      "authOptions":{"mode":"token","enableK8sTokenAuth":true},
      "autoscalerOptions":{"image":"a","version":"v2","resources":{"requests":{"cpu":"1"},"limits":{"cpu":2}}},
      "headGroupSpec":{"rayStartParams":{"num-cpus":"0"},"resources":{"CPU":"1"},"template":{"spec":{"containers":[]}}},
      "workerGroupSpecs":[{"groupName":"g","replicas":1,"minReplicas":0,"maxReplicas":3,"numOfHosts":2,
        "suspend":false,"rayStartParams":{},"template":{"spec":{"containers":[{"name":"w","image":"i",
        "resources":{"requests":{"nvidia.com/gpu":1}}}]}}}]}}})");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path(""));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const policy::RayJob& j = r.value();
  EXPECT_EQ(j.api_version, "ray.io/v1");
  EXPECT_EQ(j.metadata.generate_name, "j-");
  // Only rayjob-guard.io/ annotations are kept; labels are type-checked, not stored.
  EXPECT_EQ(j.metadata.annotations,
            (FlatMap<std::string>{{"rayjob-guard.io/ttl-after-success", "600"}}));
  EXPECT_EQ(j.metadata.finalizers, std::vector<std::string>{"f"});
  EXPECT_EQ(j.spec.pre_running_deadline_seconds, 7);
  EXPECT_EQ(j.spec.suspend, true);
  EXPECT_EQ(j.spec.submitter_pod_template->restart_policy, "Never");
  EXPECT_EQ(j.spec.submitter_pod_template->init_containers.at(0).name, "init");
  EXPECT_TRUE(j.spec.has_submitter_config);
  EXPECT_EQ(j.spec.submitter_backoff_limit, 3);
  EXPECT_EQ(j.spec.cluster_selector->at("ray.io/cluster"), "c");
  EXPECT_EQ(j.spec.deletion_policy, "DeleteSelf");
  EXPECT_TRUE(j.spec.deletion_strategy->has_on_success);
  EXPECT_EQ(j.spec.deletion_strategy->on_failure_policy, "DeleteNone");
  EXPECT_FALSE(j.spec.deletion_strategy->deletion_rules.has_value());
  EXPECT_EQ(j.spec.job_id, "id");
  const policy::RayClusterSpec& c = *j.spec.ray_cluster_spec;
  EXPECT_EQ(c.auth_mode, "token");
  EXPECT_EQ(c.enable_k8s_token_auth, true);
  EXPECT_EQ(c.autoscaler_options->limits->at("cpu"), "2");
  EXPECT_TRUE(c.head.ray_start_params_sets_resources);
  EXPECT_TRUE(c.head.has_group_resources);
  EXPECT_EQ(c.worker_groups.at(0).num_of_hosts, 2);
  EXPECT_FALSE(c.worker_groups.at(0).ray_start_params_sets_resources);
  EXPECT_EQ(c.worker_groups.at(0).pod_template.containers.at(0).requests->at("nvidia.com/gpu"),
            "1");
  EXPECT_FALSE(c.worker_groups.at(0).pod_template.containers.at(0).limits.has_value());
}

// What kuberay-schema's ValidateRayClusterSpec checks read (KubeRay 1.4-1.7).
TEST(DecodeRayJob, MapsTheClusterSpecCheckFields) {
  auto doc = json::parse(R"({"apiVersion":"ray.io/v1","metadata":{"name":"j",
    "annotations":{"ray.io/ft-enabled":"true","other.io/x":"y"}},
    "spec":{"rayClusterSpec":{
      "gcsFaultToleranceOptions":{"backend":"rocksdb","storage":{"size":"1Gi"},"redisAddress":"",
        "redisPassword":{"value":"p"},"externalStorageNamespace":"ns"},
      "upgradeStrategy":{"type":"Recreate"},
      "networkPolicy":{"mode":"DenyAllEgress","head":{"ingressRules":[{}]},
        "workerGroups":[{"groupName":"g","egressRules":[{}],"ingressRules":[]}]},
      "tlsOptions":{},"historyServerOptions":{"collectorOptions":{"image":"c"}},
      "autoscalerOptions":{"idleTimeoutSeconds":30,"env":[{"name":"A","value":"1"}]},
      "headGroupSpec":{"rayStartParams":{"num-cpus":"","redis-username":"u"},"resources":{},
        "labels":{"k":"v"},"template":{"spec":{"containers":[{"name":"h","image":"i",
        "env":[{"name":"RAY_REDIS_ADDRESS","value":"r:6379"},{"name":"FROM","valueFrom":{}}]}]}}},
      "workerGroupSpecs":[{"groupName":"g","idleTimeoutSeconds":60,"priority":5,
        "template":{"spec":{"containers":[]}}}]}}})");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path(""));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const policy::RayJob& j = r.value();
  EXPECT_EQ(j.metadata.ray_annotations, (FlatMap<std::string>{{"ray.io/ft-enabled", "true"}}));
  const policy::RayClusterSpec& c = *j.spec.ray_cluster_spec;
  EXPECT_TRUE(c.has_gcs_fault_tolerance_options);
  EXPECT_EQ(c.gcs_ft_backend, "rocksdb");
  EXPECT_TRUE(c.gcs_ft_has_storage);
  EXPECT_EQ(c.gcs_ft_redis_fields,
            (std::vector<std::string>{"redisPassword", "externalStorageNamespace"}));
  EXPECT_EQ(c.upgrade_strategy_type, "Recreate");
  EXPECT_TRUE(c.has_network_policy);
  EXPECT_EQ(c.network_policy.mode, "DenyAllEgress");
  EXPECT_TRUE(c.network_policy.head->ingress);
  EXPECT_FALSE(c.network_policy.head->egress);
  ASSERT_EQ(c.network_policy.worker_groups.size(), 1u);
  EXPECT_EQ(c.network_policy.worker_groups[0].first, "g");
  EXPECT_TRUE(c.network_policy.worker_groups[0].second.egress);
  EXPECT_FALSE(c.network_policy.worker_groups[0].second.ingress);  // an empty list is not set
  EXPECT_TRUE(c.has_tls_options);
  EXPECT_TRUE(c.has_collector_options);
  EXPECT_EQ(c.collector_image, "c");
  EXPECT_EQ(c.autoscaler_options->idle_timeout_seconds, 30);
  ASSERT_EQ(c.autoscaler_options->env.size(), 1u);
  EXPECT_EQ(c.autoscaler_options->env[0].name, "A");
  // The operator tests rayStartParams[key] != "" and len(resources) > 0.
  EXPECT_FALSE(c.head.ray_start_params_sets_resources);
  EXPECT_FALSE(c.head.has_group_resources);
  EXPECT_EQ(c.head.ray_start_params.at("redis-username"), "u");
  EXPECT_EQ(c.head.labels, (FlatMap<std::string>{{"k", "v"}}));
  const auto& env = c.head.pod_template.containers.at(0).env;
  ASSERT_EQ(env.size(), 2u);
  EXPECT_EQ(env[0].name, "RAY_REDIS_ADDRESS");
  EXPECT_EQ(env[0].value, "r:6379");
  EXPECT_FALSE(env[1].value.has_value());
  EXPECT_EQ(c.worker_groups.at(0).idle_timeout_seconds, 60);
  EXPECT_EQ(c.worker_groups.at(0).priority, 5);
}

// What the KubeRay 1.7 checks of tlsOptions, historyServerOptions and the rocksdb backend read.
TEST(DecodeRayJob, MapsTheKubeRay17ClusterFields) {
  auto doc = json::parse(R"({"spec":{"rayClusterSpec":{
      "gcsFaultToleranceOptions":{"backend":"rocksdb","redisUsername":{},"redisAddress":"r",
        "storage":{"claimName":"pvc","size":1,"storageClassName":"","accessModes":[],
          "deletionPolicy":"Retain"}},
      "tlsOptions":{"enabled":true},
      "historyServerOptions":{"collectorOptions":{"image":"c","env":[{"name":"STORAGE_BACKEND",
        "value":"GCS"},{"name":"GCS_BUCKET","valueFrom":{"secretKeyRef":{"name":"s","key":"b"}}}]}},
      "autoscalerOptions":{"volumeMounts":[{"name":"ray-tls","mountPath":"/x"}]},
      "headGroupSpec":{"template":{"spec":{"volumes":[{"name":"gcs-storage","emptyDir":{}}],
        "containers":[{"name":"h","volumeMounts":[{"name":"v","mountPath":"/data/gcs"}]}]}}}}}})");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path("request.object"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const policy::RayClusterSpec& c = *r.value().spec.ray_cluster_spec;
  EXPECT_EQ(c.gcs_ft_redis_fields, (std::vector<std::string>{"redisAddress", "redisUsername"}));
  EXPECT_EQ(c.gcs_ft_storage_claim_name, "pvc");
  EXPECT_EQ(c.gcs_ft_storage_deletion_policy, "Retain");
  // storageClassName "" is a set pointer for the operator; an empty accessModes list is not set.
  EXPECT_EQ(c.gcs_ft_storage_pvc_fields, (std::vector<std::string>{"size", "storageClassName"}));
  EXPECT_EQ(c.tls_enabled, true);
  ASSERT_EQ(c.collector_env.size(), 2u);
  EXPECT_EQ(c.collector_env[0].value, "GCS");
  EXPECT_FALSE(c.collector_env[0].value_from);
  EXPECT_FALSE(c.collector_env[1].value.has_value());
  EXPECT_TRUE(c.collector_env[1].value_from);
  ASSERT_EQ(c.autoscaler_options->volume_mounts.size(), 1u);
  EXPECT_EQ(c.autoscaler_options->volume_mounts[0].name, "ray-tls");
  EXPECT_EQ(c.head.pod_template.volume_names, std::vector<std::string>{"gcs-storage"});
  ASSERT_EQ(c.head.pod_template.containers.at(0).volume_mounts.size(), 1u);
  EXPECT_EQ(c.head.pod_template.containers[0].volume_mounts[0].mount_path, "/data/gcs");
}

// A wrong type in any field the 1.7 checks read is a decode error naming its JSON path.
TEST(DecodeRayJob, KubeRay17ClusterFieldTypes) {
  const std::string rc = "request.object.spec.rayClusterSpec";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"tlsOptions":{"enabled":"yes"}})",
       rc + ".tlsOptions.enabled: expected a boolean, got string"},
      {R"({"tlsOptions":true})", rc + ".tlsOptions: expected an object, got boolean"},
      {R"({"historyServerOptions":{"collectorOptions":{"env":{}}}})",
       rc + ".historyServerOptions.collectorOptions.env: expected an array, got object"},
      {R"({"historyServerOptions":{"collectorOptions":{"env":[{"name":"A","value":1}]}}})",
       rc + ".historyServerOptions.collectorOptions.env[0].value: expected a string, got number"},
      {R"({"historyServerOptions":{"collectorOptions":{"env":[{"name":"A","valueFrom":"s"}]}}})",
       rc + ".historyServerOptions.collectorOptions.env[0].valueFrom: expected an object, got "
            "string"},
      {R"({"autoscalerOptions":{"volumeMounts":[{"name":"a","mountPath":7}]}})",
       rc + ".autoscalerOptions.volumeMounts[0].mountPath: expected a string, got number"},
      {R"({"headGroupSpec":{"template":{"spec":{"containers":[{"volumeMounts":[3]}]}}}})",
       rc + ".headGroupSpec.template.spec.containers[0].volumeMounts[0]: expected an object, got "
            "number"},
      {R"({"headGroupSpec":{"template":{"spec":{"volumes":[{"name":false}]}}}})",
       rc + ".headGroupSpec.template.spec.volumes[0].name: expected a string, got boolean"},
      {R"({"gcsFaultToleranceOptions":{"redisAddress":6379}})",
       rc + ".gcsFaultToleranceOptions.redisAddress: expected a string, got number"},
      {R"({"gcsFaultToleranceOptions":{"redisPassword":"p"}})",
       rc + ".gcsFaultToleranceOptions.redisPassword: expected an object, got string"},
      {R"({"gcsFaultToleranceOptions":{"storage":{"claimName":1}}})",
       rc + ".gcsFaultToleranceOptions.storage.claimName: expected a string, got number"},
      {R"({"gcsFaultToleranceOptions":{"storage":{"deletionPolicy":true}}})",
       rc + ".gcsFaultToleranceOptions.storage.deletionPolicy: expected a string, got boolean"},
      {R"({"gcsFaultToleranceOptions":{"storage":{"size":{}}}})",
       rc + ".gcsFaultToleranceOptions.storage.size: expected a quantity (string or number), got "
            "object"},
      {R"({"gcsFaultToleranceOptions":{"storage":{"storageClassName":[]}}})",
       rc + ".gcsFaultToleranceOptions.storage.storageClassName: expected a string, got array"},
      {R"({"gcsFaultToleranceOptions":{"storage":{"accessModes":[1]}}})",
       rc + ".gcsFaultToleranceOptions.storage.accessModes[0]: expected a string, got number"},
  };
  for (const auto& [cluster, message] : cases) {
    auto doc = json::parse(R"({"spec":{"rayClusterSpec":)" + cluster + "}}");
    ASSERT_TRUE(doc.ok()) << cluster;
    Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path("request.object"));
    ASSERT_FALSE(r.ok()) << cluster;
    EXPECT_EQ(r.error().message, message);
  }
}

// The maps a decoder stores (rayStartParams, group labels, clusterSelector, resource lists, the
// kept annotations) come out complete and in key order whatever the order of the document: they
// are sorted once, not inserted one by one (which cost O(n^2) for descending keys, seconds for a
// 1.4 MiB map; hardening.linear_cost measures the cost).
TEST(DecodeRayJob, StoredMapsInAnyKeyOrder) {
  constexpr int kEntries = 3000;
  auto map_text = [](const std::string& prefix, const std::string& value) {
    std::string out = "{";
    for (int i = kEntries - 1; i >= 0; --i) {
      out += "\"" + prefix + std::to_string(100000 + i) + "\":" + value + (i ? "," : "");
    }
    return out + "}";
  };
  auto doc = json::parse(
      R"({"metadata":{"annotations":)" + map_text("rayjob-guard.io/a", "\"v\"") +
      R"(},"spec":{"clusterSelector":)" + map_text("s", "\"v\"") +
      R"(,"rayClusterSpec":{"headGroupSpec":{"rayStartParams":)" + map_text("p", "\"1\"") +
      R"(,"labels":)" + map_text("l", "\"v\"") +
      R"(,"template":{"spec":{"containers":[{"name":"c","resources":{"requests":)" +
      map_text("example.com/r", "1") + R"(,"limits":)" + map_text("example.com/r", "\"2\"") +
      "}}]}}}}}}");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path(""));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const policy::RayJob& j = r.value();
  const policy::HeadGroup& head = j.spec.ray_cluster_spec->head;
  const policy::Container& c = head.pod_template.containers.at(0);
  const struct {
    const char* name;
    const FlatMap<std::string>& map;
    std::string prefix;
    std::string value;
  } maps[] = {{"annotations", j.metadata.annotations, "rayjob-guard.io/a", "v"},
              {"clusterSelector", *j.spec.cluster_selector, "s", "v"},
              {"rayStartParams", head.ray_start_params, "p", "1"},
              {"labels", *head.labels, "l", "v"},
              {"requests", *c.requests, "example.com/r", "1"},
              {"limits", *c.limits, "example.com/r", "2"}};
  for (const auto& m : maps) {
    ASSERT_EQ(m.map.size(), static_cast<std::size_t>(kEntries)) << m.name;
    int i = 0;
    for (const auto& [key, value] : m.map) {
      EXPECT_EQ(key, m.prefix + std::to_string(100000 + i)) << m.name;
      EXPECT_EQ(value, m.value) << m.name;
      ++i;
    }
    EXPECT_EQ(m.map.at(m.prefix + "100007"), m.value) << m.name;
  }
}

// What the ResourceQuota scopes read of each pod template: activeDeadlineSeconds,
// priorityClassName, whether pod-level resources are set, and whether a pod (anti-)affinity term
// reaches other namespaces (namespaces non-empty, or any namespaceSelector, {} included).
TEST(DecodeRayJob, MapsWhatTheQuotaScopesRead) {
  auto doc = json::parse(R"({"spec":{
    "submitterPodTemplate":{"spec":{"activeDeadlineSeconds":600,"priorityClassName":"batch",
      "affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
        {"weight":1,"podAffinityTerm":{"topologyKey":"k","namespaceSelector":{}}}]}}}},
    "rayClusterSpec":{
      "headGroupSpec":{"template":{"spec":{"priorityClassName":"high",
        "resources":{"limits":{"cpu":"4"}},"affinity":{"nodeAffinity":{},"podAffinity":{
          "requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"k","namespaces":[]}],
          "preferredDuringSchedulingIgnoredDuringExecution":[
          {"weight":1,"podAffinityTerm":{"topologyKey":"k","namespaceSelector":null}}]}}}}},
      "workerGroupSpecs":[
        {"groupName":"a","template":{"spec":{"resources":{},"affinity":{"podAffinity":{
          "requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"k"},
            {"topologyKey":"k","namespaces":["other"]}]}}}}},
        {"groupName":"b","template":{"spec":{"activeDeadlineSeconds":null}}}]}}})");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path(""));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const policy::PodTemplate& submitter = *r.value().spec.submitter_pod_template;
  EXPECT_EQ(submitter.active_deadline_seconds, 600);
  EXPECT_EQ(submitter.priority_class_name, "batch");
  EXPECT_FALSE(submitter.pod_level_resources);
  EXPECT_TRUE(submitter.cross_namespace_pod_affinity);  // a namespaceSelector, even {}
  const policy::RayClusterSpec& rc = *r.value().spec.ray_cluster_spec;
  const policy::PodTemplate& head = rc.head.pod_template;
  EXPECT_FALSE(head.active_deadline_seconds.has_value());
  EXPECT_EQ(head.priority_class_name, "high");
  EXPECT_TRUE(head.pod_level_resources);
  EXPECT_FALSE(head.cross_namespace_pod_affinity);  // namespaces [] and namespaceSelector null
  const policy::PodTemplate& a = rc.worker_groups.at(0).pod_template;
  EXPECT_FALSE(a.priority_class_name.has_value());
  EXPECT_FALSE(a.pod_level_resources);  // resources {}
  EXPECT_TRUE(a.cross_namespace_pod_affinity);  // the second term names a namespace
  const policy::PodTemplate& b = rc.worker_groups.at(1).pod_template;
  EXPECT_FALSE(b.active_deadline_seconds.has_value());
  EXPECT_FALSE(b.cross_namespace_pod_affinity);
}

TEST(DecodeRayJob, QuotaScopeFieldTypes) {
  const std::string t = "request.object.spec.submitterPodTemplate.spec";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"activeDeadlineSeconds":"600"})",
       t + ".activeDeadlineSeconds: expected an integer, got string"},
      {R"({"activeDeadlineSeconds":1.5})", t + ".activeDeadlineSeconds: expected an integer"},
      {R"({"priorityClassName":1})", t + ".priorityClassName: expected a string, got number"},
      {R"({"resources":[]})", t + ".resources: expected an object, got array"},
      {R"({"affinity":[]})", t + ".affinity: expected an object, got array"},
      {R"({"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{}}}})",
       t + ".affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution: expected an "
           "array, got object"},
      {R"({"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
          {"namespaces":"other"}]}}})",
       t + ".affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
           "namespaces: expected an array, got string"},
      {R"({"affinity":{"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
          {"podAffinityTerm":{"namespaceSelector":"all"}}]}}})",
       t + ".affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
           "podAffinityTerm.namespaceSelector: expected an object, got string"},
      {R"({"affinity":{"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[7]}}})",
       t + ".affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]: expected an "
           "object, got number"},
  };
  for (const auto& [spec, message] : cases) {
    auto doc = json::parse(R"({"spec":{"submitterPodTemplate":{"spec":)" + spec + "}}}");
    ASSERT_TRUE(doc.ok()) << spec;
    Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path("request.object"));
    ASSERT_FALSE(r.ok()) << spec;
    EXPECT_EQ(r.error().message.rfind(message, 0), 0u) << r.error().message;
  }
}

TEST(DecodeRayJob, NotAnObject) {
  auto doc = json::parse("[]");
  ASSERT_TRUE(doc.ok());
  Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path("request.object"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "request.object: expected an object, got array");
}

TEST(RuntimeEnv, Absent) {
  EXPECT_EQ(parse_runtime_env("").parse, Parse::kAbsent);
  EXPECT_EQ(parse_runtime_env("  \n").parse, Parse::kAbsent);
  EXPECT_EQ(parse_runtime_env(" \r\n\r\n").parse, Parse::kAbsent);
}

// The operator's reader (go-yaml) refuses a tab in a text of white space, wherever it stands.
TEST(RuntimeEnv, WhiteSpaceWithATabIsInvalid) {
  for (const char* text : {"\t", " \t\n", "\n\t\n", "\n  \t"}) {
    const policy::RuntimeEnv env = parse_runtime_env(text);
    EXPECT_EQ(env.parse, Parse::kInvalid) << text;
    EXPECT_NE(env.parse_error.find("a tab"), std::string::npos) << text;
  }
}

TEST(RuntimeEnv, PipList) {
  policy::RuntimeEnv env = parse_runtime_env("pip:\n  - requests==2.26.0\n  - boto3>=1.35.0\n");
  EXPECT_EQ(env.parse, Parse::kMapping);
  EXPECT_EQ(env.pip_form, PipForm::kList);
  EXPECT_EQ(env.pip_packages, (std::vector<std::string>{"requests==2.26.0", "boto3>=1.35.0"}));
}

TEST(RuntimeEnv, PipPackages) {
  policy::RuntimeEnv env =
      parse_runtime_env("pip: {packages: [\"botocore>=1.34.41\"], pip_check: false}\n");
  EXPECT_EQ(env.pip_form, PipForm::kPackages);
  EXPECT_EQ(env.pip_packages, std::vector<std::string>{"botocore>=1.34.41"});
}

TEST(RuntimeEnv, PipRequirementsPath) {
  policy::RuntimeEnv env = parse_runtime_env("pip: /app/requirements.txt\n");
  EXPECT_EQ(env.pip_form, PipForm::kRequirementsPath);
  EXPECT_TRUE(env.pip_packages.empty());
}

TEST(RuntimeEnv, PipMalformed) {
  EXPECT_EQ(parse_runtime_env("pip: {pip_check: true}\n").pip_form, PipForm::kMalformed);
  EXPECT_EQ(parse_runtime_env("pip: [[a]]\n").pip_form, PipForm::kMalformed);
  EXPECT_EQ(parse_runtime_env("pip:\n").pip_form, PipForm::kMalformed);
}

TEST(RuntimeEnv, CondaWorkingDirPyModules) {
  policy::RuntimeEnv env = parse_runtime_env(
      "conda: {dependencies: [pip]}\nworking_dir: https://example.com/a.zip\n"
      "py_modules: [s3://bucket/m.zip, ./local]\n");
  EXPECT_TRUE(env.has_conda);
  EXPECT_EQ(env.pip_form, PipForm::kNone);
  EXPECT_EQ(env.working_dir, "https://example.com/a.zip");
  EXPECT_EQ(env.py_modules, (std::vector<std::string>{"s3://bucket/m.zip", "./local"}));
}

TEST(RuntimeEnv, NotMapping) {
  policy::RuntimeEnv seq = parse_runtime_env("- a\n- b\n");
  EXPECT_EQ(seq.parse, Parse::kNotMapping);
  EXPECT_FALSE(seq.parse_error.empty());
  EXPECT_EQ(parse_runtime_env("just a string").parse, Parse::kNotMapping);
}

TEST(RuntimeEnv, Invalid) {
  policy::RuntimeEnv env = parse_runtime_env("pip: [unclosed\n");
  EXPECT_EQ(env.parse, Parse::kInvalid);
  EXPECT_NE(env.parse_error.find("line"), std::string::npos) << env.parse_error;
}

// What the operator's YAML-to-JSON conversion (sigs.k8s.io/yaml) refuses although the YAML is a
// mapping, and what it takes: found by the KubeRay 1.6 conformance oracle (conformance.kuberay).
TEST(RuntimeEnv, NotConvertibleToJson) {
  struct Case {
    std::string_view yaml;
    Parse want;
    std::string_view fragment;  // in parse_error, for kInvalid
  };
  const std::vector<Case> cases = {
      {"~: a\n", Parse::kInvalid, "line 1, column 1: a mapping key is null"},
      {"null: a\n", Parse::kInvalid, "a mapping key is null"},
      {"env_vars:\n  ~: b\n", Parse::kInvalid, "line 2, column 3: a mapping key is null"},
      {"? [a, b]\n: c\n", Parse::kInvalid, "a mapping key is a sequence or a mapping"},
      {"? {a: 1}\n: c\n", Parse::kInvalid, "a mapping key is a sequence or a mapping"},
      {"a: .nan\n", Parse::kInvalid, "\".nan\" is not a finite number"},
      {"a: -.Inf\n", Parse::kInvalid, "not a finite number"},
      {"a: [1, .NaN]\n", Parse::kInvalid, "not a finite number"},
      {"b: &x .inf\na: [*x]\n", Parse::kInvalid, "not a finite number"},
      {".nan: a\n", Parse::kMapping, ""},  // a float key becomes the string ".nan"
      {"a: '.nan'\n", Parse::kMapping, ""},
      {"\"\": 1\n", Parse::kMapping, ""},
      {"a: 1e3\nyes: 1\n1.5: a\n", Parse::kMapping, ""},
      {"a: 1\n---\nb: .nan\n", Parse::kMapping, ""},  // only the first document is read
  };
  for (const Case& c : cases) {
    const policy::RuntimeEnv env = parse_runtime_env(c.yaml);
    EXPECT_EQ(env.parse, c.want) << c.yaml;
    EXPECT_NE(env.parse_error.find(c.fragment), std::string::npos) << c.yaml << ": " << env.parse_error;
    if (c.want == Parse::kInvalid) {
      EXPECT_EQ(env.parse_error.rfind("cannot be converted to JSON: ", 0), 0U) << env.parse_error;
    }
  }
}

TEST(DecodeRayJob, SpecMetadata) {
  const std::vector<std::pair<std::string_view, bool>> cases = {
      {R"({"spec":{"metadata":{"k":"v"}}})", true},
      {R"({"spec":{"metadata":{}}})", false},
      {R"({"spec":{}})", false},
  };
  for (const auto& [text, want] : cases) {
    auto doc = json::parse(text);
    ASSERT_TRUE(doc.ok());
    Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path(""));
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_EQ(r.value().spec.has_metadata, want) << text;
  }
  auto doc = json::parse(R"({"spec":{"metadata":{"k":1}}})");
  ASSERT_TRUE(doc.ok());
  Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path(""));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("spec.metadata.k"), std::string::npos) << r.error().message;
}

TEST(RuntimeEnv, InvalidYamlInAReviewIsDataNotADecodeError) {
  auto doc = json::parse(R"({"spec":{"runtimeEnvYAML":"pip: [unclosed"}})");
  ASSERT_TRUE(doc.ok());
  Result<policy::RayJob> r = decode_rayjob(doc.value(), json::Path(""));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().spec.runtime_env.parse, Parse::kInvalid);
  EXPECT_EQ(r.value().spec.runtime_env_yaml, "pip: [unclosed");
}

}  // namespace
}  // namespace rjg::admission
