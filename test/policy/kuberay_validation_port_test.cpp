// The RayJob cases of KubeRay's own validation tests (ray-operator/controllers/ray/utils/
// validation_test.go at v1.6.x and v1.7.0; the cases ported, not the code), replayed against the
// kuberay-schema rule at each version from the first table that has the case to the newest
// (kuberay::kNewestMinor), with the compiled-default feature gates unless the upstream test sets
// one. Every case asserts the exact list of kuberay-schema finding field paths (empty: the
// operator accepts it).
//
// One TEST per upstream test function, its cases in upstream order under their upstream names
// (table rows; for a test without a table, each assertion, named after the function). The input
// is the upstream input, in a RayJob named "rayjob":
// - a ValidateRayJobSpec case is the RayJob's spec;
// - a ValidateRayClusterSpec case is its rayClusterSpec, and the cluster's annotations are the
//   RayJob's (ValidateRayJobSpec passes the RayJob's annotations);
// - a case of a helper the upstream test calls directly (validateNetworkPolicy,
//   validateTLSOptions) or of ValidateRayJobMetadata takes everything that helper does not read
//   from a valid RayJob: a head with one container, worker groups with one container and both
//   replica bounds.
// Upstream stops at the first error; the rule reports every one, so a case lists each.
//
// Upstream has 247 cases (v1.7.0's tables are a superset of v1.6.x's by name; four v1.6 rows
// differ from their v1.7 form only by a redisAddress that changes no outcome, and are ported in
// the v1.7 form). 204 are ported here; the 43 not ported:
// - TestValidateRayClusterStatus (4), TestValidateRayJobStatus (3): status, not what admission
//   decides;
// - TestValidateRayClusterSpecNames (3): a RayCluster's own name (a RayJob's cluster is named by
//   the operator);
// - TestValidateRayServiceSpec (6), TestValidateRayServiceMetadata (8),
//   TestValidateClusterUpgradeOptions (8): RayService only;
// - TestValidateRayCronJobSpec: 7 of 10 rows are decided by the RayCronJob's schedule, time zone
//   or name (the 3 decided by its job template are ported);
// - TestValidateRayClusterUpgradeOptions: 4 of 6 rows are of a RayCluster created by a user or a
//   RayService (a RayJob's cluster always carries the RayJob origin label).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "policy/evaluate.hpp"
#include "policy/kuberay/catalogue.hpp"
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
  std::function<void(PolicyConfig&)> gates = nullptr;  // feature gates the upstream test sets
};

// podTemplateSpec(env, restartPolicy) of the upstream tests: one unnamed container.
PodTemplate pod(std::vector<EnvVar> vars = {}, std::optional<std::string> restart = std::nullopt) {
  PodTemplate t;
  Container c;
  c.env = std::move(vars);
  t.containers.push_back(std::move(c));
  t.restart_policy = std::move(restart);
  return t;
}
EnvVar env(std::string name, std::string value) {
  return EnvVar{std::move(name), std::move(value)};
}
EnvVar env_from(std::string name) {
  EnvVar e;
  e.name = std::move(name);
  e.value_from = true;
  return e;
}

// The RayJob's rayClusterSpec, created empty (no head container) when absent.
RayClusterSpec& rcs(RayJob& j) {
  if (!j.spec.ray_cluster_spec) {
    j.spec.ray_cluster_spec = RayClusterSpec{};
  }
  return *j.spec.ray_cluster_spec;
}
// createBasicRayClusterSpec(): a head with one container.
void basic(RayJob& j) { rcs(j).head.pod_template = pod(); }
void head_env(RayJob& j, std::vector<EnvVar> e) { rcs(j).head.pod_template = pod(std::move(e)); }

WorkerGroup group(std::string name, std::optional<std::int64_t> min,
                  std::optional<std::int64_t> max, PodTemplate t = pod()) {
  WorkerGroup g;
  g.group_name = std::move(name);
  g.min_replicas = min;
  g.max_replicas = max;
  g.pod_template = std::move(t);
  return g;
}
WorkerGroup& wg(RayJob& j, std::size_t i = 0) { return rcs(j).worker_groups.at(i); }

// rayStartParams as the decoder reads them (ray_start_params_sets_resources included).
template <typename Group>
void start_params(Group& g, FlatMap<std::string> params) {
  for (std::string_view key : {"num-cpus", "num-gpus", "memory", "resources"}) {
    const auto it = params.find(key);
    g.ray_start_params_sets_resources =
        g.ray_start_params_sets_resources || (it != params.end() && !it->second.empty());
  }
  g.ray_start_params = std::move(params);
}

void annotate(RayJob& j, const std::string& key, std::string value) {
  j.metadata.ray_annotations[key] = std::move(value);
}
void autoscaling(RayJob& j, bool on = true) { rcs(j).enable_in_tree_autoscaling = on; }
void autoscaler_version(RayJob& j, std::string version) {
  if (!rcs(j).autoscaler_options) {
    rcs(j).autoscaler_options = AutoscalerOptions{};
  }
  rcs(j).autoscaler_options->version = std::move(version);
}
AutoscalerOptions& autoscaler(RayJob& j) {
  if (!rcs(j).autoscaler_options) {
    rcs(j).autoscaler_options = AutoscalerOptions{};
  }
  return *rcs(j).autoscaler_options;
}

// gcsFaultToleranceOptions, as the decoder reads it.
struct Gcs {
  std::optional<std::string> backend = std::nullopt;
  std::vector<std::string> redis_fields{};  // set among redisAddress, redisUsername,
                                            // redisPassword, externalStorageNamespace, in order
  bool storage = false;
  std::string claim_name{};
  std::vector<std::string> pvc_fields{};  // size, storageClassName, accessModes
};
void gcs(RayJob& j, Gcs g) {
  RayClusterSpec& c = rcs(j);
  c.has_gcs_fault_tolerance_options = true;
  c.gcs_ft_backend = std::move(g.backend);
  c.gcs_ft_redis_fields = std::move(g.redis_fields);
  c.gcs_ft_has_storage = g.storage;
  c.gcs_ft_storage_claim_name = std::move(g.claim_name);
  c.gcs_ft_storage_pvc_fields = std::move(g.pvc_fields);
}

void selector(RayJob& j, FlatMap<std::string> s) { j.spec.cluster_selector = std::move(s); }
void strategy_legacy(RayJob& j, std::optional<std::string> s, std::optional<std::string> f) {
  DeletionStrategy ds;
  ds.has_on_success = s.has_value();
  ds.on_success_policy = std::move(s);
  ds.has_on_failure = f.has_value();
  ds.on_failure_policy = std::move(f);
  j.spec.deletion_strategy = ds;
}
void strategy_rules(RayJob& j, std::vector<DeletionRule> rules) {
  DeletionStrategy ds;
  ds.deletion_rules = std::move(rules);
  j.spec.deletion_strategy = ds;
}

void gate(PolicyConfig& p, const std::string& name, bool on) {
  if (name == "RayJobDeletionPolicy") {
    p.kuberay.ray_job_deletion_policy_gate = on;
  }
  p.kuberay.feature_gates[name] = on;
}
std::function<void(PolicyConfig&)> gate_on(std::string name) {
  return [name](PolicyConfig& p) { gate(p, name, true); };
}
std::function<void(PolicyConfig&)> gate_off(std::string name) {
  return [name](PolicyConfig& p) { gate(p, name, false); };
}

const std::string kRc = "spec.rayClusterSpec";
const std::string kHead = kRc + ".headGroupSpec";
const std::string kHeadC0 = kHead + ".template.spec.containers[0]";
const std::string kHeadEnv = kHeadC0 + ".env";
const std::string kW0 = kRc + ".workerGroupSpecs[0]";
const std::string kGcs = kRc + ".gcsFaultToleranceOptions";
const std::string kNp = kRc + ".networkPolicy";
const std::string kCollector = kRc + ".historyServerOptions.collectorOptions";

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
    for (int minor = c.since; minor <= kuberay::kNewestMinor; ++minor) {
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

// TestValidateRayClusterSpecGcsFaultToleranceOptions (the test turns the
// GCSFaultToleranceEmbeddedStorage gate on for every row).
std::vector<PortCase> gcs_fault_tolerance_options() {
  const std::string ft = "metadata.annotations[ray.io/ft-enabled]";
  const auto embedded = gate_on("GCSFaultToleranceEmbeddedStorage");
  return {
      {"ray.io/ft-enabled is set to false and GcsFaultToleranceOptions is set", {ft},
       [](RayJob& j) {
         annotate(j, "ray.io/ft-enabled", "false");
         gcs(j, {});
         basic(j);
       },
       6, embedded},
      {"ray.io/ft-enabled is set to true and GcsFaultToleranceOptions is set", {ft},
       [](RayJob& j) {
         annotate(j, "ray.io/ft-enabled", "true");
         gcs(j, {});
         basic(j);
       },
       6, embedded},
      {"ray.io/ft-enabled is not set and GcsFaultToleranceOptions is set", {},
       [](RayJob& j) {
         gcs(j, {.redis_fields = {"redisAddress"}});
         basic(j);
       },
       6, embedded},
      {"ray.io/ft-enabled is not set and GcsFaultToleranceOptions is not set", {},
       [](RayJob& j) { basic(j); }, 6, embedded},
      {"ray.io/ft-enabled is set to false and RAY_REDIS_ADDRESS is set", {kHeadEnv},
       [](RayJob& j) {
         annotate(j, "ray.io/ft-enabled", "false");
         head_env(j, {env("RAY_REDIS_ADDRESS", "redis:6379")});
       },
       6, embedded},
      {"gcsFaultToleranceOptions is set and RAY_REDIS_ADDRESS is set", {kHeadEnv},
       [](RayJob& j) {
         head_env(j, {env("RAY_REDIS_ADDRESS", "redis:6379")});
         gcs(j, {});
       },
       6, embedded},
      {"FT is disabled and RAY_REDIS_ADDRESS is set", {kHeadEnv},
       [](RayJob& j) { head_env(j, {env("RAY_REDIS_ADDRESS", "redis:6379")}); }, 6, embedded},
      {"ray.io/ft-enabled is set to true and RAY_REDIS_ADDRESS is set", {},
       [](RayJob& j) {
         annotate(j, "ray.io/ft-enabled", "true");
         head_env(j, {env("RAY_REDIS_ADDRESS", "redis:6379")});
       },
       6, embedded},
      {"gcsFaultToleranceOptions is set and ray.io/external-storage-namespace is set",
       {"metadata.annotations[ray.io/external-storage-namespace]"},
       [](RayJob& j) {
         annotate(j, "ray.io/external-storage-namespace", "myns");
         gcs(j, {.redis_fields = {"redisAddress"}});
         basic(j);
       },
       6, embedded},
      {"redis backend without RedisAddress is accepted", {},
       [](RayJob& j) {
         gcs(j, {.backend = "redis"});
         basic(j);
       },
       7, embedded},
      {"redis backend rejects rocksdb-only storage field", {kGcs + ".storage"},
       [](RayJob& j) {
         gcs(j, {.backend = "redis", .storage = true, .pvc_fields = {"size"}});
         basic(j);
       },
       7, embedded},
      {"rocksdb backend is valid with no redis fields", {},
       [](RayJob& j) {
         gcs(j, {.backend = "rocksdb"});
         basic(j);
       },
       7, embedded},
      {"rocksdb backend with operator-managed storage is valid", {},
       [](RayJob& j) {
         gcs(j, {.backend = "rocksdb", .storage = true, .pvc_fields = {"size"}});
         basic(j);
       },
       7, embedded},
      {"rocksdb backend rejects RedisAddress", {kGcs + ".redisAddress"},
       [](RayJob& j) {
         gcs(j, {.backend = "rocksdb", .redis_fields = {"redisAddress"}});
         basic(j);
       },
       7, embedded},
      {"rocksdb backend rejects ExternalStorageNamespace", {kGcs + ".externalStorageNamespace"},
       [](RayJob& j) {
         gcs(j, {.backend = "rocksdb", .redis_fields = {"externalStorageNamespace"}});
         basic(j);
       },
       7, embedded},
      {"rocksdb backend rejects claimName combined with size", {kGcs + ".storage.claimName"},
       [](RayJob& j) {
         gcs(j, {.backend = "rocksdb",
                 .storage = true,
                 .claim_name = "my-pvc",
                 .pvc_fields = {"size"}});
         basic(j);
       },
       7, embedded},
      {"rocksdb backend rejects user-set RAY_gcs_storage env", {kHeadEnv},
       [](RayJob& j) {
         gcs(j, {.backend = "rocksdb"});
         head_env(j, {env("RAY_gcs_storage", "rocksdb")});
       },
       7, embedded},
  };
}

// TestValidateRayClusterSpecEmbeddedGCSFeatureGate: one spec, the gate off then on.
std::vector<PortCase> embedded_gcs_feature_gate() {
  const auto spec = [](RayJob& j) {
    gcs(j, {.backend = "rocksdb"});
    basic(j);
  };
  return {
      {"TestValidateRayClusterSpecEmbeddedGCSFeatureGate: gate off", {kGcs + ".backend"}, spec, 7,
       gate_off("GCSFaultToleranceEmbeddedStorage")},
      {"TestValidateRayClusterSpecEmbeddedGCSFeatureGate: gate on", {}, spec, 7,
       gate_on("GCSFaultToleranceEmbeddedStorage")},
  };
}

// TestValidateGcsFaultToleranceEmbeddedReservedVolume (gate on): the head's one container has
// the mounts, the head Pod the volumes.
std::vector<PortCase> gcs_embedded_reserved_volume() {
  const auto spec = [](std::vector<VolumeMount> mounts, std::vector<std::string> volumes) {
    return [mounts, volumes](RayJob& j) {
      gcs(j, {.backend = "rocksdb"});
      basic(j);
      rcs(j).head.pod_template.containers[0].volume_mounts = mounts;
      rcs(j).head.pod_template.volume_names = volumes;
    };
  };
  const auto embedded = gate_on("GCSFaultToleranceEmbeddedStorage");
  return {
      {"no reserved volume is valid", {}, spec({}, {}), 7, embedded},
      {"reserved mount path is rejected", {kHeadC0 + ".volumeMounts[0]"},
       spec({{"user-vol", "/data/gcs"}}, {}), 7, embedded},
      {"reserved volume mount name is rejected", {kHeadC0 + ".volumeMounts[0]"},
       spec({{"gcs-storage", "/somewhere/else"}}, {}), 7, embedded},
      {"reserved volume name is rejected", {kHead + ".template.spec.volumes[0].name"},
       spec({}, {"gcs-storage"}), 7, embedded},
  };
}

// TestValidateRayClusterSpecRedisPassword.
std::vector<PortCase> redis_password() {
  return {
      {"GcsFaultToleranceOptions is set and `redis-password` is also set in rayStartParams",
       {kHead + ".rayStartParams.redis-password"},
       [](RayJob& j) {
         gcs(j, {});
         basic(j);
         start_params(rcs(j).head, {{"redis-password", "password"}});
       }},
      {"GcsFaultToleranceOptions is set and `REDIS_PASSWORD` env var is also set in the head Pod",
       {kHeadEnv},
       [](RayJob& j) {
         gcs(j, {});
         head_env(j, {env("REDIS_PASSWORD", "password")});
       }},
      {"GcsFaultToleranceOptions.RedisPassword is set", {},
       [](RayJob& j) {
         gcs(j, {.redis_fields = {"redisAddress", "redisPassword"}});
         basic(j);
       }},
  };
}

// TestValidateRayClusterSpecRedisUsername.
std::vector<PortCase> redis_username() {
  return {
      {"`redis-username` is set in rayStartParams of the Head Pod",
       {kHead + ".rayStartParams.redis-username"},
       [](RayJob& j) {
         basic(j);
         start_params(rcs(j).head, {{"redis-username", "username"}});
       }},
      {"`REDIS_USERNAME` env var is set in the Head Pod", {kHeadEnv},
       [](RayJob& j) { head_env(j, {env("REDIS_USERNAME", "username")}); }},
      {"GcsFaultToleranceOptions.RedisUsername is set", {},
       [](RayJob& j) {
         gcs(j, {.redis_fields = {"redisAddress", "redisUsername"}});
         basic(j);
       }},
  };
}

// TestValidateRayClusterSpecEmptyContainers.
std::vector<PortCase> empty_containers() {
  return {
      {"headGroupSpec has no containers", {kHead + ".template.spec.containers"},
       [](RayJob& j) { rcs(j).head.pod_template.containers.clear(); }},
      {"workerGroupSpec has no containers", {kW0 + ".template.spec.containers"},
       [](RayJob& j) {
         basic(j);
         rcs(j).worker_groups.push_back(group("", 0, 5, PodTemplate{}));
       }},
      {"valid cluster with containers in both head and worker groups", {},
       [](RayJob& j) {
         basic(j);
         rcs(j).worker_groups.push_back(group("", 0, 5));
       }},
  };
}

// TestValidateRayClusterSpecSuspendingWorkerGroup (the test sets the RayJobDeletionPolicy gate
// per row).
std::vector<PortCase> suspending_worker_group() {
  const auto suspended = [](RayJob& j) {
    basic(j);
    rcs(j).worker_groups.push_back(group("worker-group-1", 0, 5));
    wg(j).suspend = true;
  };
  return {
      {"suspend without autoscaler and the feature gate", {kW0 + ".suspend"}, suspended, 6,
       gate_off("RayJobDeletionPolicy")},
      {"suspend without autoscaler", {}, suspended, 6, gate_on("RayJobDeletionPolicy")},
      {"suspend with autoscaler", {kW0 + ".suspend"},
       [suspended](RayJob& j) {
         suspended(j);
         autoscaling(j);
       },
       6, gate_on("RayJobDeletionPolicy")},
  };
}

// TestValidateRayClusterSpecAutoscaler (RayJobDeletionPolicy on).
std::vector<PortCase> cluster_autoscaler() {
  const auto deletion = gate_on("RayJobDeletionPolicy");
  const auto start_cmd = [](RayJob& j) {
    autoscaling(j);
    autoscaler(j).env = {env("KUBERAY_GEN_AUTOSCALER_START_CMD", "")};
    basic(j);
  };
  return {
      {"should return error if autoscaler is enabled and any worker group is suspended",
       {kW0 + ".suspend"},
       [](RayJob& j) {
         autoscaling(j);
         basic(j);
         rcs(j).worker_groups.push_back(group("worker-group-1", std::nullopt, std::nullopt));
         wg(j).suspend = true;
       },
       6, deletion},
      {"should return error if RAY_enable_autoscaler_v2 env var is set to '1' when autoscaler is "
       "disabled",
       {kHeadEnv},
       [](RayJob& j) {
         autoscaling(j, false);
         head_env(j, {env("RAY_enable_autoscaler_v2", "1")});
       },
       6, deletion},
      {"should return error if RAY_enable_autoscaler_v2 env var is set to 'true' when autoscaler "
       "is disabled",
       {kHeadEnv},
       [](RayJob& j) {
         autoscaling(j, false);
         head_env(j, {env("RAY_enable_autoscaler_v2", "true")});
       },
       6, deletion},
      {"should return error if autoscaler v2 is enabled and head Pod has env var "
       "RAY_enable_autoscaler_v2",
       {kHeadEnv},
       [](RayJob& j) {
         autoscaling(j);
         autoscaler_version(j, "v2");
         head_env(j, {env("RAY_enable_autoscaler_v2", "true")});
       },
       6, deletion},
      {"should return error if autoscaler v2 is enabled and head Pod has a restartPolicy other "
       "than Never or unset",
       {kHead + ".template.spec.restartPolicy"},
       [](RayJob& j) {
         autoscaling(j);
         autoscaler_version(j, "v2");
         rcs(j).head.pod_template = pod({}, "Always");
       },
       6, deletion},
      {"should not return error if autoscaler v1 is enabled and a worker group has a "
       "restartPolicy other than Never or unset (warning only)",
       {},
       [](RayJob& j) {
         autoscaling(j);
         autoscaler_version(j, "v1");
         basic(j);
         rcs(j).worker_groups = {
             group("worker-group-1", std::nullopt, std::nullopt, pod({}, "Never")),
             group("worker-group-2", std::nullopt, std::nullopt, pod({}, "Always"))};
       },
       7, deletion},
      {"should not return error if autoscaler v1 is enabled and all worker groups have "
       "restartPolicy Never or unset",
       {},
       [](RayJob& j) {
         autoscaling(j);
         autoscaler_version(j, "v1");
         basic(j);
         rcs(j).worker_groups = {
             group("worker-group-1", std::nullopt, std::nullopt),
             group("worker-group-2", std::nullopt, std::nullopt, pod({}, "Never"))};
       },
       7, deletion},
      {"should return error if autoscaler v2 is enabled and a worker group has a restartPolicy "
       "other than Never or unset",
       {kRc + ".workerGroupSpecs[1].template.spec.restartPolicy"},
       [](RayJob& j) {
         autoscaling(j);
         autoscaler_version(j, "v2");
         rcs(j).head.pod_template = pod({}, "Never");
         rcs(j).worker_groups = {
             group("worker-group-1", std::nullopt, std::nullopt, pod({}, "Never")),
             group("worker-group-2", std::nullopt, std::nullopt, pod({}, "Always"))};
       },
       6, deletion},
      {"should not return error if autoscaler configs are valid", {},
       [](RayJob& j) {
         autoscaling(j);
         autoscaler_version(j, "v2");
         basic(j);
         rcs(j).worker_groups = {
             group("worker-group-1", std::nullopt, std::nullopt),
             group("worker-group-2", std::nullopt, std::nullopt, pod({}, "Never"))};
       },
       6, deletion},
      {"should return error if KUBERAY_GEN_AUTOSCALER_START_CMD is set in autoscalerOptions.env "
       "(args also set)",
       {kRc + ".autoscalerOptions.env"}, start_cmd, 7, deletion},
      {"should return error if KUBERAY_GEN_AUTOSCALER_START_CMD is set in autoscalerOptions.env "
       "even when autoscalerOptions.args is absent",
       {kRc + ".autoscalerOptions.env"}, start_cmd, 7, deletion},
  };
}

// TestValidateRayClusterSpec_Resources: a head and one worker group "worker-group" (0..5).
std::vector<PortCase> cluster_resources() {
  const auto spec = [](RayJob& j) {
    basic(j);
    rcs(j).worker_groups.push_back(group("worker-group", 0, 5));
  };
  return {
      {"Invalid: Head group has resources in both rayStartParams and top-level Resources",
       {kHead + ".resources"},
       [spec](RayJob& j) {
         spec(j);
         start_params(rcs(j).head, {{"num-cpus", "1"}});
         rcs(j).head.has_group_resources = true;
       }},
      {"Invalid: Worker group has resources in both rayStartParams and .Resources",
       {kW0 + ".resources"},
       [spec](RayJob& j) {
         spec(j);
         start_params(wg(j), {{"num-gpus", "1"}});
         wg(j).has_group_resources = true;
       }},
      {"Valid: Only rayStartParams resources are set for head", {},
       [spec](RayJob& j) {
         spec(j);
         start_params(rcs(j).head,
                      {{"num-cpus", "2"}, {"memory", "4G"}, {"resources", "{\"TPU\": \"8\"}"}});
       }},
      {"Valid: Only .Resources field is set for worker", {},
       [spec](RayJob& j) {
         spec(j);
         wg(j).has_group_resources = true;
       }},
  };
}

// TestValidateRayClusterSpec_Labels: the same spec.
std::vector<PortCase> cluster_labels() {
  const auto spec = [](RayJob& j) {
    basic(j);
    rcs(j).worker_groups.push_back(group("worker-group", 0, 5));
  };
  return {
      {"Invalid: Head group has 'labels' in rayStartParams", {kHead + ".rayStartParams.labels"},
       [spec](RayJob& j) {
         spec(j);
         start_params(rcs(j).head, {{"labels", "ray.io/node-group=worker-group-1"}});
       }},
      {"Invalid: Worker group has 'labels' in rayStartParams", {kW0 + ".rayStartParams.labels"},
       [spec](RayJob& j) {
         spec(j);
         start_params(wg(j), {{"labels", "ray.io/node-group=worker-group-1"}});
       }},
      {"Valid: Only .Labels field is set", {},
       [spec](RayJob& j) {
         spec(j);
         rcs(j).head.labels = FlatMap<std::string>{{"ray.io/market-type", "on-demand"}};
         wg(j).labels = FlatMap<std::string>{{"ray.io/accelerator-type", "TPU-V6E"}};
       }},
      {"Invalid: Label key does not follow Kubernetes syntax", {kW0 + ".labels[invalid_key!]"},
       [spec](RayJob& j) {
         spec(j);
         wg(j).labels = FlatMap<std::string>{{"invalid_key!", "value"}};
       }},
      {"Invalid: Label value does not follow Kubernetes syntax", {kHead + ".labels[valid-key]"},
       [spec](RayJob& j) {
         spec(j);
         rcs(j).head.labels = FlatMap<std::string>{{"valid-key", "invalid/value"}};
       }},
  };
}

// TestValidateRayClusterSpecRayVersionForAuth: authOptions.mode token, enableK8sTokenAuth set to
// the row's value. A RayJob refuses K8s token auth before the cluster checks, so its 2.55.0
// minimum is never reached.
std::vector<PortCase> ray_version_for_auth() {
  const auto spec = [](std::string version, bool k8s) {
    return [version, k8s](RayJob& j) {
      rcs(j).ray_version = version;
      basic(j);
      rcs(j).auth_mode = "token";
      rcs(j).enable_k8s_token_auth = k8s;
    };
  };
  const std::string k8s = kRc + ".authOptions.enableK8sTokenAuth";
  return {
      {"Valid Ray version 2.52.0", {}, spec("2.52.0", false)},
      {"Invalid Ray version 2.52.0 with k8s token auth", {k8s}, spec("2.52.0", true)},
      {"Valid Ray version 2.55.0 with k8s token auth", {k8s}, spec("2.55.0", true)},
      {"Valid Ray version 3.0.0", {}, spec("3.0.0", false)},
      {"Valid Ray version 3.0.0 with k8s token auth", {k8s}, spec("3.0.0", true)},
      {"Invalid Ray version 2.50.0", {kRc + ".rayVersion"}, spec("2.50.0", false)},
      {"Invalid Ray version format", {kRc + ".rayVersion"}, spec("invalid-version", false)},
      {"Empty Ray version", {kRc + ".rayVersion"}, spec("", false)},
  };
}

// TestValidateRayJobSpec (compiled-default gates).
std::vector<PortCase> ray_job_spec() {
  return {
      {"one of RayClusterSpec or ClusterSelector must be set", {"spec.rayClusterSpec"},
       [](RayJob&) {}},
      {"a RayJob with shutdownAfterJobFinishes set to false is not allowed to be suspended",
       {"spec.suspend", "spec.rayClusterSpec"},
       [](RayJob& j) {
         j.spec.suspend = true;
         j.spec.shutdown_after_job_finishes = false;
       }},
      {"valid RayJob", {},
       [](RayJob& j) {
         j.spec.suspend = true;
         j.spec.shutdown_after_job_finishes = true;
         basic(j);
       }},
      {"the ClusterSelector mode doesn't support the suspend operation",
       {"spec.suspend", "spec.clusterSelector[ray.io/cluster]"},
       [](RayJob& j) {
         j.spec.suspend = true;
         j.spec.shutdown_after_job_finishes = true;
         selector(j, {{"key", "value"}});
       }},
      {"failed to unmarshal RuntimeEnvYAML", {"spec.runtimeEnvYAML"},
       [](RayJob& j) {
         j.spec.runtime_env_yaml = "invalid_yaml_str";
         j.spec.runtime_env.parse = RuntimeEnv::Parse::kNotMapping;  // a YAML scalar
         basic(j);
       }},
      {"backoffLimit must be a positive integer", {"spec.backoffLimit"},
       [](RayJob& j) {
         j.spec.backoff_limit = -1;
         basic(j);
       }},
      {"BackoffLimit is incompatible with InteractiveMode", {"spec.backoffLimit"},
       [](RayJob& j) {
         j.spec.backoff_limit = 1;
         j.spec.submission_mode = "InteractiveMode";
         basic(j);
       }},
      {"BackoffLimit is 0 and SubmissionMode is InteractiveMode", {},
       [](RayJob& j) {
         j.spec.backoff_limit = 0;
         j.spec.submission_mode = "InteractiveMode";
         basic(j);
       }},
      {"BackoffLimit is nil and SubmissionMode is InteractiveMode", {},
       [](RayJob& j) {
         j.spec.submission_mode = "InteractiveMode";
         basic(j);
       }},
      {"ShutdownAfterJobFinishes is false and TTLSecondsAfterFinished is not zero",
       {"spec.ttlSecondsAfterFinished"},
       [](RayJob& j) {
         j.spec.shutdown_after_job_finishes = false;
         j.spec.ttl_seconds_after_finished = 5;
         basic(j);
       }},
      {"ShutdownAfterJobFinishes is true and TTLSecondsAfterFinished is not zero", {},
       [](RayJob& j) {
         j.spec.shutdown_after_job_finishes = true;
         j.spec.ttl_seconds_after_finished = 5;
         basic(j);
       }},
      {"ShutdownAfterJobFinishes is true and TTLSecondsAfterFinished is negative",
       {"spec.ttlSecondsAfterFinished"},
       [](RayJob& j) {
         j.spec.shutdown_after_job_finishes = true;
         j.spec.ttl_seconds_after_finished = -5;
         basic(j);
       }},
      {"SidecarMode", {},
       [](RayJob& j) {
         j.spec.submission_mode = "SidecarMode";
         basic(j);
       }},
      {"SidecarMode doesn't support SubmitterPodTemplate",
       {"spec.rayClusterSpec", "spec.submitterPodTemplate"},
       [](RayJob& j) {
         j.spec.submission_mode = "SidecarMode";
         j.spec.submitter_pod_template = PodTemplate{};
       }},
      {"SidecarMode doesn't support SubmitterConfig",
       {"spec.rayClusterSpec", "spec.submitterConfig"},
       [](RayJob& j) {
         j.spec.submission_mode = "SidecarMode";
         j.spec.has_submitter_config = true;
         j.spec.submitter_backoff_limit = 1;
       }},
      {"SidecarMode RayCluster head pod should only be Never or unset",
       {kHead + ".template.spec.restartPolicy"},
       [](RayJob& j) {
         j.spec.submission_mode = "SidecarMode";
         rcs(j).head.pod_template = pod({}, "Always");
       }},
      {"SidecarMode doesn't support ClusterSelector", {"spec.submissionMode"},
       [](RayJob& j) {
         j.spec.submission_mode = "SidecarMode";
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
       }},
      {"failed to get cluster name in ClusterSelector map", {"spec.rayClusterSpec"},
       [](RayJob& j) { selector(j, {}); }},
      {"cluster name in ClusterSelector is empty", {"spec.clusterSelector[ray.io/cluster]"},
       [](RayJob& j) { selector(j, {{"ray.io/cluster", ""}}); }},
      {"cluster name in ClusterSelector is not empty", {},
       [](RayJob& j) { selector(j, {{"ray.io/cluster", "ray-cluster"}}); }},
      {"BackoffLimit > 0 is incompatible with ClusterSelector mode", {"spec.backoffLimit"},
       [](RayJob& j) {
         selector(j, {{"ray.io/cluster", "ray-cluster"}});
         j.spec.backoff_limit = 1;
       }},
      // The cluster spec has no head container and mode token without a rayVersion: refused for
      // those too once K8s token auth is gone.
      {"RayJob does not support K8s token auth mode",
       {kRc + ".authOptions.enableK8sTokenAuth", kHead + ".template.spec.containers",
        kRc + ".rayVersion"},
       [](RayJob& j) {
         rcs(j).auth_mode = "token";
         rcs(j).enable_k8s_token_auth = true;
       }},
  };
}

// TestValidateRayJobSpecWithFeatureGate (RayJobDeletionPolicy on).
std::vector<PortCase> ray_job_spec_with_feature_gate() {
  const auto deletion = gate_on("RayJobDeletionPolicy");
  const std::string ds = "spec.deletionStrategy";
  const std::string r0 = ds + ".deletionRules[0]";
  const std::string r1 = ds + ".deletionRules[1]";
  return {
      // Legacy DeletionStrategy tests
      {"the ClusterSelector mode doesn't support DeletionStrategy=DeleteCluster",
       {ds + ".onSuccess.policy", ds + ".onFailure.policy", "spec.clusterSelector[ray.io/cluster]"},
       [](RayJob& j) {
         strategy_legacy(j, "DeleteCluster", "DeleteCluster");
         selector(j, {{"key", "value"}});
       },
       6, deletion},
      {"the ClusterSelector mode doesn't support DeletionStrategy=DeleteWorkers",
       {ds + ".onSuccess.policy", ds + ".onFailure.policy", "spec.clusterSelector[ray.io/cluster]"},
       [](RayJob& j) {
         strategy_legacy(j, "DeleteWorkers", "DeleteWorkers");
         selector(j, {{"key", "value"}});
       },
       6, deletion},
      {"DeletionStrategy=DeleteWorkers currently does not support RayCluster with autoscaling "
       "enabled",
       {ds + ".onSuccess.policy", ds + ".onFailure.policy"},
       [](RayJob& j) {
         strategy_legacy(j, "DeleteWorkers", "DeleteWorkers");
         autoscaling(j);
         basic(j);
       },
       6, deletion},
      {"valid RayJob with DeletionStrategy=DeleteCluster", {},
       [](RayJob& j) {
         strategy_legacy(j, "DeleteCluster", "DeleteCluster");
         j.spec.shutdown_after_job_finishes = true;
         basic(j);
       },
       6, deletion},
      {"valid RayJob without DeletionStrategy", {},
       [](RayJob& j) {
         j.spec.shutdown_after_job_finishes = true;
         basic(j);
       },
       6, deletion},
      {"shutdownAfterJobFinshes is set to 'true' while deletion policy is 'DeleteNone'",
       {ds + ".onSuccess.policy", ds + ".onFailure.policy"},
       [](RayJob& j) {
         strategy_legacy(j, "DeleteNone", "DeleteNone");
         j.spec.shutdown_after_job_finishes = true;
         basic(j);
       },
       6, deletion},
      // Upstream's two "OnSuccess" rows have the same input: onSuccess absent.
      {"OnSuccess unset", {ds + ".onSuccess"},
       [](RayJob& j) {
         strategy_legacy(j, std::nullopt, "DeleteNone");
         j.spec.shutdown_after_job_finishes = true;
         basic(j);
       },
       6, deletion},
      {"OnSuccess.DeletionPolicyType unset", {ds + ".onSuccess"},
       [](RayJob& j) {
         strategy_legacy(j, std::nullopt, "DeleteNone");
         j.spec.shutdown_after_job_finishes = true;
         basic(j);
       },
       6, deletion},
      {"OnFailure unset", {ds + ".onFailure"},
       [](RayJob& j) {
         strategy_legacy(j, "DeleteNone", std::nullopt);
         j.spec.shutdown_after_job_finishes = true;
         basic(j);
       },
       6, deletion},
      {"OnFailure.DeletionPolicyType unset", {ds + ".onFailure.policy"},
       [](RayJob& j) {
         strategy_legacy(j, "DeleteNone", std::nullopt);
         j.spec.deletion_strategy->has_on_failure = true;  // onFailure: {}
         j.spec.shutdown_after_job_finishes = true;
         basic(j);
       },
       6, deletion},
      {"headGroupSpec should have at least one container", {kHead + ".template.spec.containers"},
       [](RayJob& j) { rcs(j); }, 6, deletion},
      // New Deletion Rules tests
      {"valid deletionRules", {},
       [](RayJob& j) {
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", 10)});
         basic(j);
       },
       6, deletion},
      {"deletionRules and ShutdownAfterJobFinishes both set", {"spec.shutdownAfterJobFinishes"},
       [](RayJob& j) {
         j.spec.shutdown_after_job_finishes = true;
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", 10)});
         basic(j);
       },
       6, deletion},
      {"deletionRules and legacy onSuccess both set", {ds, ds + ".onFailure"},
       [](RayJob& j) {
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", 10)});
         j.spec.deletion_strategy->has_on_success = true;
         j.spec.deletion_strategy->on_success_policy = "DeleteCluster";
         basic(j);
       },
       6, deletion},
      {"nil DeletionStrategy", {ds},
       [](RayJob& j) {
         j.spec.deletion_strategy = DeletionStrategy{};
         basic(j);
       },
       6, deletion},
      {"empty DeletionStrategy", {ds + ".deletionRules", ds},
       [](RayJob& j) {
         strategy_rules(j, {});
         basic(j);
       },
       6, deletion},
      {"duplicate rule in deletionRules", {r1},
       [](RayJob& j) {
         strategy_rules(j,
                        {rule("DeleteSelf", "SUCCEEDED", 10), rule("DeleteSelf", "SUCCEEDED", 20)});
         basic(j);
       },
       6, deletion},
      {"negative TTLSeconds in deletionRules", {r0 + ".condition.ttlSeconds"},
       [](RayJob& j) {
         strategy_rules(j, {rule("DeleteSelf", "SUCCEEDED", -10)});
         basic(j);
       },
       6, deletion},
      {"deletionRules with ClusterSelector and DeleteWorkers policy",
       {r0 + ".policy", "spec.clusterSelector[ray.io/cluster]"},
       [](RayJob& j) {
         selector(j, {{"key", "value"}});
         strategy_rules(j, {rule("DeleteWorkers", "SUCCEEDED", 10)});
       },
       6, deletion},
      {"deletionRules with ClusterSelector and DeleteCluster policy",
       {r0 + ".policy", "spec.clusterSelector[ray.io/cluster]"},
       [](RayJob& j) {
         selector(j, {{"key", "value"}});
         strategy_rules(j, {rule("DeleteCluster", "SUCCEEDED", 10)});
       },
       6, deletion},
      {"deletionRules with autoscaling and DeleteWorkers policy", {r0 + ".policy"},
       [](RayJob& j) {
         strategy_rules(j, {rule("DeleteWorkers", "SUCCEEDED", 10)});
         autoscaling(j);
         basic(j);
       },
       6, deletion},
      {"inconsistent TTLs in deletionRules (DeleteCluster < DeleteWorkers)",
       {r1 + ".condition.ttlSeconds"},
       [](RayJob& j) {
         strategy_rules(
             j, {rule("DeleteWorkers", "SUCCEEDED", 20), rule("DeleteCluster", "SUCCEEDED", 10)});
         basic(j);
       },
       6, deletion},
      {"inconsistent TTLs in deletionRules (DeleteSelf < DeleteCluster)",
       {r1 + ".condition.ttlSeconds"},
       [](RayJob& j) {
         strategy_rules(
             j, {rule("DeleteCluster", "SUCCEEDED", 20), rule("DeleteSelf", "SUCCEEDED", 10)});
         basic(j);
       },
       6, deletion},
      {"valid complex deletionRules", {},
       [](RayJob& j) {
         strategy_rules(
             j, {rule("DeleteWorkers", "SUCCEEDED", 10), rule("DeleteCluster", "SUCCEEDED", 20),
                 rule("DeleteSelf", "SUCCEEDED", 30), rule("DeleteSelf", "FAILED", 0)});
         basic(j);
       },
       6, deletion},
      {"valid deletionRules with JobDeploymentStatus=Failed", {},
       [](RayJob& j) {
         strategy_rules(j, {rule("DeleteCluster", "Failed", 10, true),
                            rule("DeleteSelf", "Failed", 20, true)});
         basic(j);
       },
       6, deletion},
      {"invalid: both JobStatus and JobDeploymentStatus set", {r0 + ".condition"},
       [](RayJob& j) {
         DeletionRule r = rule("DeleteCluster", "FAILED", 10);
         r.job_deployment_status = "Failed";
         strategy_rules(j, {r});
         basic(j);
       },
       6, deletion},
      {"invalid: neither JobStatus nor JobDeploymentStatus set", {r0 + ".condition"},
       [](RayJob& j) {
         DeletionRule r = rule("DeleteCluster", "FAILED", 10);
         r.job_status.reset();
         strategy_rules(j, {r});
         basic(j);
       },
       6, deletion},
      {"duplicate rule with JobDeploymentStatus", {r1},
       [](RayJob& j) {
         strategy_rules(j, {rule("DeleteCluster", "Failed", 10, true),
                            rule("DeleteCluster", "Failed", 20, true)});
         basic(j);
       },
       6, deletion},
      {"valid: mixed JobStatus and JobDeploymentStatus rules", {},
       [](RayJob& j) {
         strategy_rules(
             j, {rule("DeleteWorkers", "FAILED", 10), rule("DeleteCluster", "Failed", 20, true)});
         basic(j);
       },
       6, deletion},
      {"inconsistent TTLs with JobDeploymentStatus (DeleteCluster < DeleteWorkers)",
       {r1 + ".condition.ttlSeconds"},
       [](RayJob& j) {
         strategy_rules(j, {rule("DeleteWorkers", "Failed", 20, true),
                            rule("DeleteCluster", "Failed", 10, true)});
         basic(j);
       },
       6, deletion},
  };
}

// TestValidateRayJobMetadata: three assertions on the name (the spec is a basic one).
std::vector<PortCase> ray_job_metadata() {
  const auto named = [](std::string name) {
    return [name](RayJob& j) {
      j.metadata.name = name;
      basic(j);
    };
  };
  return {
      {"TestValidateRayJobMetadata: 48 x j (longer than 47)", {"metadata.name"},
       named(std::string(48, 'j'))},
      {"TestValidateRayJobMetadata: 47 x 1 (not a DNS-1035 label)", {"metadata.name"},
       named(std::string(47, '1'))},
      {"TestValidateRayJobMetadata: 47 x j", {}, named(std::string(47, 'j'))},
  };
}

// TestValidateRayClusterSpec_IdleTimeoutSeconds: autoscaling on, a head.
std::vector<PortCase> idle_timeout_seconds() {
  const auto spec = [](RayJob& j) {
    autoscaling(j);
    basic(j);
  };
  const auto worker = [spec](std::optional<std::int64_t> idle, std::vector<EnvVar> head,
                             std::optional<std::string> version) {
    return [spec, idle, head, version](RayJob& j) {
      spec(j);
      if (!head.empty()) {
        head_env(j, head);
      }
      if (version) {
        autoscaler_version(j, *version);
      }
      rcs(j).worker_groups.push_back(group("worker-group-1", 0, 10));
      wg(j).idle_timeout_seconds = idle;
    };
  };
  const auto options = [spec](std::optional<std::string> version,
                              std::optional<std::int64_t> idle) {
    return [spec, version, idle](RayJob& j) {
      spec(j);
      autoscaler(j).version = version;
      autoscaler(j).idle_timeout_seconds = idle;
    };
  };
  const std::string w_idle = kW0 + ".idleTimeoutSeconds";
  return {
      // Worker group tests
      {"Valid: Worker group with valid idleTimeoutSeconds and v2 spec field", {},
       worker(60, {}, "v2")},
      {"Valid: Worker group with idleTimeoutSeconds and v2 env var", {},
       worker(60, {env("RAY_enable_autoscaler_v2", "1")}, std::nullopt)},
      {"Valid: Worker group with zero idleTimeoutSeconds", {}, worker(0, {}, "v2")},
      {"Invalid: Worker group with negative idleTimeoutSeconds", {w_idle}, worker(-10, {}, "v2")},
      {"Invalid: Worker group idleTimeoutSeconds without v2", {w_idle},
       worker(60, {}, std::nullopt)},
      {"Invalid: Worker group idleTimeoutSeconds with invalid env var", {w_idle},
       worker(60, {env("RAY_enable_autoscaler_v2", "false")}, std::nullopt)},
      {"Valid: Worker group without idleTimeoutSeconds", {},
       worker(std::nullopt, {}, std::nullopt)},
      // AutoscalerOptions tests (idleTimeoutSeconds works with both v1 and v2)
      {"Valid: AutoscalerOptions with idleTimeoutSeconds and v2", {}, options("v2", 120)},
      {"Valid: AutoscalerOptions with idleTimeoutSeconds and v1", {}, options("v1", 120)},
      {"Valid: AutoscalerOptions with idleTimeoutSeconds and no version", {},
       options(std::nullopt, 120)},
      {"Valid: AutoscalerOptions with zero idleTimeoutSeconds", {}, options(std::nullopt, 0)},
      {"Invalid: AutoscalerOptions with negative idleTimeoutSeconds",
       {kRc + ".autoscalerOptions.idleTimeoutSeconds"}, options(std::nullopt, -10)},
      {"Valid: AutoscalerOptions without idleTimeoutSeconds", {}, options("v1", std::nullopt)},
      {"Valid: AutoscalerOptions is nil", {}, spec},
  };
}

// TestValidateRayClusterSpec_Priority: rayVersion 2.56.0, autoscaling on, a head.
std::vector<PortCase> priority() {
  const auto worker = [](std::optional<std::int64_t> prio, std::vector<EnvVar> head,
                         std::optional<std::string> version, std::string ray_version) {
    return [prio, head, version, ray_version](RayJob& j) {
      rcs(j).ray_version = ray_version;
      autoscaling(j);
      head_env(j, head);
      if (version) {
        autoscaler_version(j, *version);
      }
      rcs(j).worker_groups.push_back(group("worker-group-1", 0, 10));
      wg(j).priority = prio;
    };
  };
  const std::string w_prio = kW0 + ".priority";
  return {
      {"Valid: Worker group with priority and v2 spec field", {}, worker(1, {}, "v2", "2.56.0"),
       7},
      {"Valid: Worker group with priority and v2 env var", {},
       worker(1, {env("RAY_enable_autoscaler_v2", "1")}, std::nullopt, "2.56.0"), 7},
      {"Valid: Worker group with zero priority and v2 disabled", {},
       worker(0, {}, std::nullopt, "2.56.0"), 7},
      {"Valid: Worker group without priority and v2 disabled", {},
       worker(std::nullopt, {}, std::nullopt, "2.56.0"), 7},
      {"Invalid: Worker group priority without v2", {w_prio},
       worker(1, {}, std::nullopt, "2.56.0"), 7},
      {"Invalid: Worker group priority with invalid env var", {w_prio},
       worker(2, {env("RAY_enable_autoscaler_v2", "false")}, std::nullopt, "2.56.0"), 7},
      {"Invalid: Worker group priority with empty Ray version", {w_prio},
       worker(1, {}, "v2", ""), 7},
      {"Invalid: Worker group priority with invalid Ray version", {kRc + ".rayVersion"},
       worker(1, {}, "v2", "invalid"), 7},
      {"Invalid: Worker group priority with Ray version below 2.56.0", {w_prio},
       worker(1, {}, "v2", "2.55.0"), 7},
  };
}

// TestValidateRayCronJobSpec: the three rows decided by the job template (ValidateRayJobSpec on
// it); the template is the RayJob's spec.
std::vector<PortCase> ray_cron_job_template() {
  const auto template_spec = [](RayJob& j) {
    j.spec.entrypoint = "python test.py";
    rcs(j).head.pod_template.containers.push_back(
        Container{"ray-head", "rayproject/ray:2.52.0", {}, {}});
  };
  return {
      {"Valid cron schedule and RayJob spec", {}, template_spec},
      {"Empty JobTemplate", {"spec.rayClusterSpec"}, [](RayJob&) {}},
      {"Invalid RayJob spec - no containers", {kHead + ".template.spec.containers"},
       [](RayJob& j) {
         j.spec.entrypoint = "python test.py";
         rcs(j);
       }},
  };
}

// TestValidateRayClusterUpgradeOptions: the rows of a cluster without a strategy and of one
// created by a RayJob.
std::vector<PortCase> ray_cluster_upgrade_options() {
  return {
      {"No upgrade strategy", {},
       [](RayJob& j) {
         rcs(j).head.pod_template.containers.push_back(
             Container{"ray-head", "rayproject/ray:latest", {}, {}});
       }},
      {"Upgrade strategy set Recreate for RayCluster created by RayJob",
       {kRc + ".upgradeStrategy.type"},
       [](RayJob& j) {
         rcs(j).upgrade_strategy_type = "Recreate";
         rcs(j).head.pod_template.containers.push_back(
             Container{"ray-head", "rayproject/ray:latest", {}, {}});
       }},
  };
}

// TestValidateRayClusterSpec_WorkerGroupReplicaValidation: enableInTreeAutoscaling false unless
// the row sets it, one worker group "worker-group-3".
std::vector<PortCase> worker_group_replica_validation() {
  const auto spec = [](bool autoscale, std::optional<std::int64_t> replicas,
                       std::optional<std::int64_t> min, std::optional<std::int64_t> max) {
    return [autoscale, replicas, min, max](RayJob& j) {
      autoscaling(j, autoscale);
      basic(j);
      rcs(j).worker_groups.push_back(group("worker-group-3", min, max));
      wg(j).replicas = replicas;
    };
  };
  return {
      {"minReplicas greater than maxReplicas", {kW0 + ".minReplicas"},
       spec(false, std::nullopt, 5, 3)},
      {"replicas smaller than minReplicas when autoscaling disabled", {}, spec(false, 1, 2, 5)},
      {"minReplicas are nil when autoscaling disabled", {kW0 + ".minReplicas"},
       spec(false, std::nullopt, std::nullopt, 5)},
      {"maxReplicas are nil when autoscaling disabled", {kW0 + ".maxReplicas"},
       spec(false, std::nullopt, 1, std::nullopt)},
      {"minReplicas and maxReplicas both are nil when autoscaling disabled",
       {kW0 + ".minReplicas"}, spec(false, std::nullopt, std::nullopt, std::nullopt)},
      {"minReplicas is negative", {kW0 + ".minReplicas"},
       spec(true, std::nullopt, -1, std::nullopt)},
      {"maxReplicas is negative", {kW0 + ".maxReplicas"},
       spec(true, std::nullopt, std::nullopt, -1)},
      {"valid when autoscaling enabled", {},
       spec(true, std::nullopt, std::nullopt, std::nullopt)},
  };
}

// TestValidateRayClusterSpec_Auth: rayVersion 2.55.0, mode token, a worker group (1..1). A RayJob
// refuses K8s token auth before the cluster checks (the secretName check is never reached); the
// model has no secretName, which no check of a RayJob reads.
std::vector<PortCase> cluster_auth() {
  const auto spec = [](std::optional<bool> k8s) {
    return [k8s](RayJob& j) {
      rcs(j).ray_version = "2.55.0";
      rcs(j).auth_mode = "token";
      rcs(j).enable_k8s_token_auth = k8s;
      basic(j);
      rcs(j).worker_groups.push_back(group("worker-group", 1, 1));
    };
  };
  const std::string k8s = kRc + ".authOptions.enableK8sTokenAuth";
  return {
      {"enableK8sTokenAuth=true and secretName set", {k8s}, spec(true)},
      {"enableK8sTokenAuth=true and secretName unset", {k8s}, spec(true)},
      {"enableK8sTokenAuth=false and secretName set", {}, spec(std::nullopt)},
  };
}

// TestValidateNetworkPolicy (validateNetworkPolicy called directly; RayClusterNetworkPolicy on).
// The row's worker groups get a container and both bounds.
std::vector<PortCase> network_policy() {
  const auto spec = [](NetworkPolicy np, std::vector<std::string> groups) {
    return [np, groups](RayJob& j) {
      basic(j);
      rcs(j).has_network_policy = true;
      rcs(j).network_policy = np;
      for (const std::string& g : groups) {
        rcs(j).worker_groups.push_back(group(g, 0, 1));
      }
    };
  };
  const auto np = [](std::string mode, std::optional<NetworkPolicyRules> head,
                     std::optional<NetworkPolicyRules> worker,
                     std::vector<std::pair<std::string, NetworkPolicyRules>> groups) {
    return NetworkPolicy{std::move(mode), head, worker, std::move(groups)};
  };
  const std::nullopt_t none = std::nullopt;
  const auto on = gate_on("RayClusterNetworkPolicy");
  const NetworkPolicyRules ingress{true, false};
  const NetworkPolicyRules egress{false, true};
  const NetworkPolicyRules both{true, true};
  return {
      {"DenyAllEgress with head IngressRules set returns error", {kNp + ".head.ingressRules"},
       spec(np("DenyAllEgress", ingress, none, {}), {}), 7, on},
      {"DenyAllEgress with worker IngressRules set returns error", {kNp + ".worker.ingressRules"},
       spec(np("DenyAllEgress", none, ingress, {}), {}), 7, on},
      {"DenyAllIngress with head EgressRules set returns error", {kNp + ".head.egressRules"},
       spec(np("DenyAllIngress", egress, none, {}), {}), 7, on},
      {"DenyAllIngress with worker EgressRules set returns error", {kNp + ".worker.egressRules"},
       spec(np("DenyAllIngress", none, egress, {}), {}), 7, on},
      {"DenyAll with both head and worker rules is valid", {},
       spec(np("DenyAll", both, both, {}), {}), 7, on},
      {"DenyAllEgress with worker group IngressRules set returns error",
       {kNp + ".workerGroups[0].ingressRules"},
       spec(np("DenyAllEgress", none, none, {{"small-group", ingress}}), {"small-group"}),
       7, on},
      {"DenyAllIngress with worker group EgressRules set returns error",
       {kNp + ".workerGroups[0].egressRules"},
       spec(np("DenyAllIngress", none, none, {{"small-group", egress}}), {"small-group"}),
       7, on},
      {"worker group entry not matching any workerGroupSpecs returns error",
       {kNp + ".workerGroups[0].groupName"},
       spec(np("DenyAll", none, none, {{"samll-group", ingress}}), {"small-group"}), 7,
       on},
      {"worker group entry matching workerGroupSpecs is valid", {},
       spec(np("DenyAll", none, none, {{"small-group", both}}), {"small-group"}), 7,
       on},
      {"worker group name that is not a valid DNS1123 label returns error", {kW0 + ".groupName"},
       spec(np("DenyAll", none, none, {}), {"GPU-Group"}), 7, on},
      {"nil NetworkPolicy is valid", {}, [](RayJob& j) { basic(j); }, 7, on},
      {"mode only with no head or worker rules is valid", {},
       spec(np("DenyAll", none, none, {}), {}), 7, on},
  };
}

// TestValidateRayClusterSpec_NetworkPolicyRequiresFeatureGate.
std::vector<PortCase> network_policy_requires_gate() {
  return {
      {"TestValidateRayClusterSpec_NetworkPolicyRequiresFeatureGate", {kNp},
       [](RayJob& j) {
         rcs(j).has_network_policy = true;
         rcs(j).network_policy.mode = "DenyAll";
         basic(j);
         rcs(j).worker_groups.push_back(group("worker-group", 1, 1));
       },
       7, gate_off("RayClusterNetworkPolicy")},
  };
}

// TestValidateTLSOptions (validateTLSOptions called directly; RayClusterMTLS on): a head with
// container ray-head; the row's worker group "wg" gets both bounds.
std::vector<PortCase> tls_options() {
  const auto spec = [](std::optional<bool> enabled) {
    return [enabled](RayJob& j) {
      rcs(j).head.pod_template.containers.push_back(
          Container{"ray-head", "rayproject/ray:latest", {}, {}});
      rcs(j).has_tls_options = enabled.has_value();
      rcs(j).tls_enabled = enabled;
    };
  };
  const auto head_env_of = [spec](std::string name) {
    return [spec, name](RayJob& j) {
      spec(true)(j);
      rcs(j).head.pod_template.containers[0].env = {env(name, "1")};
    };
  };
  const auto worker = [spec](std::vector<EnvVar> e, std::vector<VolumeMount> mounts) {
    return [spec, e, mounts](RayJob& j) {
      spec(true)(j);
      Container c{"ray-worker", "rayproject/ray:latest", {}, {}};
      c.env = e;
      c.volume_mounts = mounts;
      PodTemplate t;
      t.containers.push_back(c);
      rcs(j).worker_groups.push_back(group("wg", 0, 1, t));
    };
  };
  const auto head_mounts = [spec](std::vector<VolumeMount> mounts) {
    return [spec, mounts](RayJob& j) {
      spec(true)(j);
      rcs(j).head.pod_template.containers[0].volume_mounts = mounts;
    };
  };
  const auto autoscaler_mounts = [spec](std::vector<VolumeMount> mounts) {
    return [spec, mounts](RayJob& j) {
      spec(true)(j);
      autoscaler(j).volume_mounts = mounts;
    };
  };
  const auto on = gate_on("RayClusterMTLS");
  const std::string w0_c0 = kW0 + ".template.spec.containers[0]";
  return {
      {"TLS disabled, no options - valid", {}, spec(std::nullopt), 7, on},
      {"TLS enabled, no options (auto-generate) - valid", {}, spec(true), 7, on},
      {"tlsOptions set but enabled is false - valid (disables TLS)", {}, spec(false), 7, on},
      {"RAY_USE_TLS in head container - error", {kHeadEnv}, head_env_of("RAY_USE_TLS"), 7, on},
      {"RAY_TLS_SERVER_CERT in head container - error", {kHeadEnv},
       head_env_of("RAY_TLS_SERVER_CERT"), 7, on},
      {"RAY_TLS_SERVER_KEY in worker container - error", {w0_c0 + ".env"},
       worker({env("RAY_TLS_SERVER_KEY", "/x")}, {}), 7, on},
      {"RAY_TLS_CA_CERT in worker container - error", {w0_c0 + ".env"},
       worker({env("RAY_TLS_CA_CERT", "/x")}, {}), 7, on},
      {"conflicting TLS volume name in head container - error", {kHeadC0 + ".volumeMounts[0]"},
       head_mounts({{"ray-tls", "/some/path"}}), 7, on},
      {"conflicting TLS mount path in head container - error", {kHeadC0 + ".volumeMounts[0]"},
       head_mounts({{"custom-tls", "/etc/ray/tls"}}), 7, on},
      {"conflicting TLS volume name in worker container - error", {w0_c0 + ".volumeMounts[0]"},
       worker({}, {{"ray-tls", "/some/path"}}), 7, on},
      {"non-conflicting volume mount in head container - valid", {},
       head_mounts({{"user-volume", "/user/path"}}), 7, on},
      {"conflicting TLS volume name in autoscalerOptions - error",
       {kRc + ".autoscalerOptions.volumeMounts[0]"}, autoscaler_mounts({{"ray-tls", "/some/path"}}),
       7, on},
      {"conflicting TLS mount path in autoscalerOptions - error",
       {kRc + ".autoscalerOptions.volumeMounts[0]"},
       autoscaler_mounts({{"custom-tls", "/etc/ray/tls"}}), 7, on},
  };
}

// TestValidateRayClusterSpec_TLSOptionsRequiresFeatureGate.
std::vector<PortCase> tls_requires_gate() {
  return {
      {"TestValidateRayClusterSpec_TLSOptionsRequiresFeatureGate", {kRc + ".tlsOptions"},
       [](RayJob& j) {
         rcs(j).has_tls_options = true;
         rcs(j).tls_enabled = true;
         basic(j);
       },
       7, gate_off("RayClusterMTLS")},
  };
}

// A collectorOptions with the quay.io collector image (when `image`) and `env`.
void collector(RayJob& j, bool image, std::vector<EnvVar> e) {
  rcs(j).has_history_server_options = true;
  rcs(j).has_collector_options = true;
  if (image) {
    rcs(j).collector_image = "quay.io/kuberay/collector:latest";
  }
  rcs(j).collector_env = std::move(e);
}

// TestValidateRayClusterSpec_HistoryServerRequiresFeatureGate.
std::vector<PortCase> history_server_requires_gate() {
  return {
      {"TestValidateRayClusterSpec_HistoryServerRequiresFeatureGate",
       {kRc + ".historyServerOptions"},
       [](RayJob& j) {
         collector(j, true, {env("STORAGE_BACKEND", "GCS"), env("GCS_BUCKET", "my-bucket")});
         basic(j);
         rcs(j).worker_groups.push_back(group("worker-group", 1, 1));
       },
       7, gate_off("RayClusterHistoryServer")},
  };
}

// TestValidateCollectorOptions (RayClusterHistoryServer on): a head with one container unless
// the row gives one, the row's worker groups.
std::vector<PortCase> collector_options() {
  const auto spec = [](bool image, std::vector<EnvVar> e) {
    return [image, e](RayJob& j) {
      collector(j, image, e);
      basic(j);
    };
  };
  const std::vector<EnvVar> gcs_ok = {env("STORAGE_BACKEND", "GCS"),
                                      env("GCS_BUCKET", "my-bucket")};
  const auto on = gate_on("RayClusterHistoryServer");
  const std::string cenv = kCollector + ".env";
  const auto with = [gcs_ok](EnvVar extra) {
    std::vector<EnvVar> e = gcs_ok;
    e.push_back(std::move(extra));
    return e;
  };
  return {
      {"nil collector options", {kCollector},
       [](RayJob& j) {
         rcs(j).has_history_server_options = true;
         basic(j);
       },
       7, on},
      {"missing image", {kCollector + ".image"}, spec(false, gcs_ok), 7, on},
      {"missing STORAGE_BACKEND", {cenv}, spec(true, {}), 7, on},
      {"valid GCS", {}, spec(true, gcs_ok), 7, on},
      {"valid GCS with ValueFrom secret", {},
       spec(true, {env("STORAGE_BACKEND", "GCS"), env_from("GCS_BUCKET")}), 7, on},
      {"missing GCS_BUCKET", {cenv}, spec(true, {env("STORAGE_BACKEND", "GCS")}), 7, on},
      {"valid S3 with all fields", {},
       spec(true, {env("STORAGE_BACKEND", "S3"), env("S3_BUCKET", "my-bucket"),
                   env("S3_ENDPOINT", "s3.us-west-2.amazonaws.com"),
                   env("S3_REGION", "us-west-2")}),
       7, on},
      {"missing S3_REGION", {cenv},
       spec(true, {env("STORAGE_BACKEND", "S3"), env("S3_BUCKET", "my-bucket"),
                   env("S3_ENDPOINT", "s3.us-west-2.amazonaws.com")}),
       7, on},
      {"valid AZUREBLOB with connection string mode", {},
       spec(true, {env("STORAGE_BACKEND", "AZUREBLOB"),
                   env("AZURE_STORAGE_AUTH_MODE", "connection_string"),
                   env("AZURE_STORAGE_CONNECTION_STRING", "connection-string")}),
       7, on},
      {"valid AZUREBLOB with workload identity mode", {},
       spec(true, {env("STORAGE_BACKEND", "AZUREBLOB"),
                   env("AZURE_STORAGE_AUTH_MODE", "workload_identity"),
                   env("AZURE_STORAGE_ACCOUNT_URL", "https://myaccount.blob.core.windows.net")}),
       7, on},
      {"missing connection string in connection_string auth mode", {cenv},
       spec(true, {env("STORAGE_BACKEND", "AZUREBLOB"),
                   env("AZURE_STORAGE_AUTH_MODE", "connection_string")}),
       7, on},
      {"missing credentials in auto-detect auth mode", {cenv},
       spec(true, {env("STORAGE_BACKEND", "AZUREBLOB")}), 7, on},
      {"valid ALIYUNOSS", {},
       spec(true, {env("STORAGE_BACKEND", "ALIYUNOSS"), env("OSS_BUCKET", "my-bucket"),
                   env("OSS_ENDPOINT", "oss-cn-hangzhou.aliyuncs.com"),
                   env("OSS_REGION", "cn-hangzhou")}),
       7, on},
      {"missing OSS_REGION", {cenv},
       spec(true, {env("STORAGE_BACKEND", "ALIYUNOSS"), env("OSS_BUCKET", "my-bucket"),
                   env("OSS_ENDPOINT", "oss-cn-hangzhou.aliyuncs.com")}),
       7, on},
      {"unknown storage backend (skips validation)", {},
       spec(true, {env("STORAGE_BACKEND", "CUSTOM_BACKEND")}), 7, on},
      {"manually defined ray-history-collector container in head template",
       {kHead + ".template.spec.containers[0].name"},
       [gcs_ok](RayJob& j) {
         collector(j, true, gcs_ok);
         rcs(j).head.pod_template.containers.push_back(
             Container{"ray-history-collector", "user-image", {}, {}});
       },
       7, on},
      {"manually defined ray-history-collector container in worker template",
       {kW0 + ".template.spec.containers[0].name"},
       [gcs_ok](RayJob& j) {
         collector(j, true, gcs_ok);
         basic(j);
         PodTemplate t;
         t.containers.push_back(Container{"ray-history-collector", "user-image", {}, {}});
         rcs(j).worker_groups.push_back(group("group-1", 1, 1, t));
       },
       7, on},
      {"manually defined POD_IP in collector env", {cenv},
       spec(true, with(env("POD_IP", "10.244.0.5"))), 7, on},
      {"manually defined EVENTS_PORT in collector env", {cenv},
       spec(true, with(env("EVENTS_PORT", "9000"))), 7, on},
  };
}

TEST(KubeRayValidationPort, ValidateRayClusterSpecGcsFaultToleranceOptions) {
  run_cases(gcs_fault_tolerance_options());
}
TEST(KubeRayValidationPort, ValidateRayClusterSpecEmbeddedGCSFeatureGate) {
  run_cases(embedded_gcs_feature_gate());
}
TEST(KubeRayValidationPort, ValidateGcsFaultToleranceEmbeddedReservedVolume) {
  run_cases(gcs_embedded_reserved_volume());
}
TEST(KubeRayValidationPort, ValidateRayClusterSpecRedisPassword) { run_cases(redis_password()); }
TEST(KubeRayValidationPort, ValidateRayClusterSpecRedisUsername) { run_cases(redis_username()); }
TEST(KubeRayValidationPort, ValidateRayClusterSpecEmptyContainers) {
  run_cases(empty_containers());
}
TEST(KubeRayValidationPort, ValidateRayClusterSpecSuspendingWorkerGroup) {
  run_cases(suspending_worker_group());
}
TEST(KubeRayValidationPort, ValidateRayClusterSpecAutoscaler) { run_cases(cluster_autoscaler()); }
TEST(KubeRayValidationPort, ValidateRayClusterSpecResources) { run_cases(cluster_resources()); }
TEST(KubeRayValidationPort, ValidateRayClusterSpecLabels) { run_cases(cluster_labels()); }
TEST(KubeRayValidationPort, ValidateRayClusterSpecRayVersionForAuth) {
  run_cases(ray_version_for_auth());
}
TEST(KubeRayValidationPort, ValidateRayJobSpec) { run_cases(ray_job_spec()); }
TEST(KubeRayValidationPort, ValidateRayJobSpecWithFeatureGate) {
  run_cases(ray_job_spec_with_feature_gate());
}
TEST(KubeRayValidationPort, ValidateRayJobMetadata) { run_cases(ray_job_metadata()); }
TEST(KubeRayValidationPort, ValidateRayClusterSpecIdleTimeoutSeconds) {
  run_cases(idle_timeout_seconds());
}
TEST(KubeRayValidationPort, ValidateRayClusterSpecPriority) { run_cases(priority()); }
TEST(KubeRayValidationPort, ValidateRayCronJobSpecJobTemplate) {
  run_cases(ray_cron_job_template());
}
TEST(KubeRayValidationPort, ValidateRayClusterUpgradeOptions) {
  run_cases(ray_cluster_upgrade_options());
}
TEST(KubeRayValidationPort, ValidateRayClusterSpecWorkerGroupReplicaValidation) {
  run_cases(worker_group_replica_validation());
}
TEST(KubeRayValidationPort, ValidateRayClusterSpecAuth) { run_cases(cluster_auth()); }
TEST(KubeRayValidationPort, ValidateNetworkPolicy) { run_cases(network_policy()); }
TEST(KubeRayValidationPort, ValidateRayClusterSpecNetworkPolicyRequiresFeatureGate) {
  run_cases(network_policy_requires_gate());
}
TEST(KubeRayValidationPort, ValidateTLSOptions) { run_cases(tls_options()); }
TEST(KubeRayValidationPort, ValidateRayClusterSpecTLSOptionsRequiresFeatureGate) {
  run_cases(tls_requires_gate());
}
TEST(KubeRayValidationPort, ValidateRayClusterSpecHistoryServerRequiresFeatureGate) {
  run_cases(history_server_requires_gate());
}
TEST(KubeRayValidationPort, ValidateCollectorOptions) { run_cases(collector_options()); }

// The count in the header: every ported upstream case is in exactly one table above.
TEST(KubeRayValidationPort, PortsEveryRayJobCase) {
  const std::vector<std::vector<PortCase>> tables = {
      gcs_fault_tolerance_options(), embedded_gcs_feature_gate(), gcs_embedded_reserved_volume(),
      redis_password(), redis_username(), empty_containers(), suspending_worker_group(),
      cluster_autoscaler(), cluster_resources(), cluster_labels(), ray_version_for_auth(),
      ray_job_spec(), ray_job_spec_with_feature_gate(), ray_job_metadata(),
      idle_timeout_seconds(), priority(), ray_cron_job_template(), ray_cluster_upgrade_options(),
      worker_group_replica_validation(), cluster_auth(), network_policy(),
      network_policy_requires_gate(), tls_options(), tls_requires_gate(),
      history_server_requires_gate(), collector_options()};
  std::size_t ported = 0;
  for (const auto& t : tables) {
    ported += t.size();
  }
  EXPECT_EQ(ported, 204u);
}

// Cases of the earlier port that upstream has no row for, kept for what they pin down.
TEST(KubeRayValidationPort, BeyondUpstream) {
  run_cases({
      {"redis-password without gcsFaultToleranceOptions", {},
       [](RayJob& j) {
         basic(j);
         start_params(rcs(j).head, {{"redis-password", "p"}});
       }},
      {"RAY_enable_autoscaler_v2=0 without autoscaling", {},
       [](RayJob& j) { head_env(j, {env("RAY_enable_autoscaler_v2", "0")}); }},
      {"a prefixed label key and an empty label value", {},
       [](RayJob& j) {
         basic(j);
         rcs(j).worker_groups.push_back(group("small", 0, 1));
         wg(j).labels = FlatMap<std::string>{{"ray.io/market-type", ""}, {"zone", "us-1a"}};
       }},
  });
}

}  // namespace
}  // namespace rjg::policy::testing
