// The cluster options KubeRay 1.7 gates: networkPolicy, tlsOptions, historyServerOptions' collector
// and the rocksdb GCS backend, as validateNetworkPolicy, validateTLSOptions,
// validateCollectorOptions and validateGcsFaultToleranceBackend check them.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/field_paths.hpp"
#include "policy/k8s_names.hpp"
#include "policy/kuberay/checker.hpp"
#include "policy/kuberay/go_text.hpp"

namespace rjg::policy::kuberay {

void Checker::gated_options(const std::string& base) {
  if (runs(Op::kIdleTimeouts) && rc_->autoscaler_options &&
      rc_->autoscaler_options->idle_timeout_seconds &&
      *rc_->autoscaler_options->idle_timeout_seconds < 0) {
    rejects(base + ".autoscalerOptions.idleTimeoutSeconds",
            std::to_string(*rc_->autoscaler_options->idle_timeout_seconds) + " is negative",
            "set idleTimeoutSeconds to 0 or more",
            {Edit::set(base + ".autoscalerOptions.idleTimeoutSeconds", 0LL)});
  }
  if (runs(Op::kAutoscalerStartCmdEnv) && rc_->autoscaler_options) {
    const std::vector<EnvVar>& env = rc_->autoscaler_options->env;
    if (find_env(env, "KUBERAY_GEN_AUTOSCALER_START_CMD") != nullptr) {
      rejects(base + ".autoscalerOptions.env",
              "KUBERAY_GEN_AUTOSCALER_START_CMD is managed by KubeRay",
              "remove it from autoscalerOptions.env",
              remove_items(base + ".autoscalerOptions.env", env,
                           "KUBERAY_GEN_AUTOSCALER_START_CMD"));
    }
  }
  // In clusterSelector mode the operator creates no RayCluster, so nothing checks it.
  if (runs(Op::kUpgradeStrategy) && rc_->upgrade_strategy_type && !selector_mode()) {
    rejects(base + ".upgradeStrategy.type",
            "a RayJob's RayCluster cannot set an upgrade strategy (the operator rejects the "
            "RayCluster it creates, and the RayJob waits in Initializing)",
            "remove upgradeStrategy", {Edit::remove(base + ".upgradeStrategy")});
  }
  if (runs(Op::kGcsBackend) && rc_->has_gcs_fault_tolerance_options) {
    gcs_backend(base);
  }
  if (!runs(Op::kGatedClusterOptions)) {
    return;
  }
  if (rc_->has_history_server_options) {
    if (!gate("RayClusterHistoryServer")) {
      rejects(base + ".historyServerOptions",
              "needs the RayClusterHistoryServer feature gate, which this operator runs with off",
              "remove historyServerOptions", {Edit::remove(base + ".historyServerOptions")});
    } else if (!rc_->has_collector_options) {
      rejects(base + ".historyServerOptions.collectorOptions", "must be set",
              "set collectorOptions with an image and its storage env");
    } else {
      if (!rc_->collector_image || rc_->collector_image->empty()) {
        rejects(base + ".historyServerOptions.collectorOptions.image", "must be set",
                "set the collector image");
      }
      if (runs(Op::kCollectorOptions)) {
        collector(base);
      }
    }
  }
  if (rc_->has_network_policy && !gate("RayClusterNetworkPolicy")) {
    rejects(base + ".networkPolicy",
            "needs the RayClusterNetworkPolicy feature gate, which this operator runs with off",
            "remove networkPolicy", {Edit::remove(base + ".networkPolicy")});
  } else if (rc_->has_network_policy) {
    network_policy(base + ".networkPolicy");
  }
  if (rc_->has_tls_options) {
    if (!gate("RayClusterMTLS")) {
      rejects(base + ".tlsOptions",
              "needs the RayClusterMTLS feature gate, which this operator runs with off",
              "remove tlsOptions", {Edit::remove(base + ".tlsOptions")});
    } else if (runs(Op::kTlsManagedByOperator) && rc_->tls_enabled.value_or(false)) {
      tls_managed(base);
    }
  }
}

// validateGcsFaultToleranceBackend. rocksdb: the gate, no Redis fields, claimName without the
// fields of an operator-managed PVC, and nothing of what the operator adds to the head Pod (the
// RAY_gcs_storage* env vars, the gcs-storage volume mounted at /data/gcs). Any other backend
// (redis, the default): no storage.
void Checker::gcs_backend(const std::string& base) {
  const std::string gcs = base + ".gcsFaultToleranceOptions";
  if (rc_->gcs_ft_backend != "rocksdb") {
    if (rc_->gcs_ft_has_storage) {
      rejects(gcs + ".storage", "storage applies only to the rocksdb backend", "remove storage");
    }
    return;
  }
  if (!gate("GCSFaultToleranceEmbeddedStorage")) {
    rejects(gcs + ".backend",
            "rocksdb needs the GCSFaultToleranceEmbeddedStorage feature gate, which this "
            "operator runs with off",
            "use the redis backend (the default)");
    return;
  }
  for (const std::string& f : rc_->gcs_ft_redis_fields) {
    rejects(gcs + "." + f, "not allowed with the rocksdb backend",
            "remove it (the embedded store needs no Redis)");
  }
  if (!rc_->gcs_ft_storage_claim_name.empty() && !rc_->gcs_ft_storage_pvc_fields.empty()) {
    std::string fields;
    for (const std::string& f : rc_->gcs_ft_storage_pvc_fields) {
      fields += (fields.empty() ? "" : ", ") + f;
    }
    rejects(gcs + ".storage.claimName",
            "an existing claim cannot be combined with " + fields +
                " (size, storageClassName and accessModes describe a PVC the operator creates)",
            "keep claimName and remove " + fields + ", or remove claimName");
  }
  const PodTemplate& head = rc_->head.pod_template;
  if (head.containers.empty()) {
    return;
  }
  const std::string container = base + ".headGroupSpec.template.spec.containers[0]";
  for (std::string_view name : {"RAY_gcs_storage", "RAY_gcs_storage_path"}) {
    if (env_var(head, name) != nullptr) {
      rejects(container + ".env",
              std::string(name) + " is managed by KubeRay with the rocksdb backend", "remove it",
              remove_items(container + ".env", head.containers.front().env, name));
    }
  }
  const std::vector<VolumeMount>& mounts = head.containers.front().volume_mounts;
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    if (mounts[i].name == "gcs-storage" || mounts[i].mount_path == "/data/gcs") {
      rejects(container + ".volumeMounts[" + std::to_string(i) + "]",
              "the volume mount " + quoted(mounts[i].name) + " at " +
                  quoted(mounts[i].mount_path) +
                  " takes the name gcs-storage or the path /data/gcs, which the operator uses "
                  "for the rocksdb store",
              "rename it and mount it elsewhere, or remove it");
    }
  }
  for (std::size_t i = 0; i < head.volume_names.size(); ++i) {
    if (head.volume_names[i] == "gcs-storage") {
      rejects(base + ".headGroupSpec.template.spec.volumes[" + std::to_string(i) + "].name",
              "the volume name gcs-storage is the operator's for the rocksdb store",
              "rename the volume (and its mounts), or remove it");
    }
  }
}

// validateCollectorOptions (after the image) and the collector container's name: env vars the
// operator injects may not be set; STORAGE_BACKEND must be a literal and its backend's settings
// present (a value or valueFrom); no head or worker container may be named ray-history-collector.
void Checker::collector(const std::string& base) {
  const std::string cp = base + ".historyServerOptions.collectorOptions";
  const std::vector<EnvVar>& env = rc_->collector_env;
  // The operator keys the list by name, the last entry winning.
  auto last = [&env](std::string_view name) -> const EnvVar* {
    const EnvVar* found = nullptr;
    for (const EnvVar& e : env) {
      found = e.name == name ? &e : found;
    }
    return found;
  };
  auto has_value = [&last](std::string_view name) {
    const EnvVar* e = last(name);
    return e != nullptr && (!e->value.value_or("").empty() || e->value_from);
  };
  constexpr std::array<std::string_view, 8> kInjected = {
      "POD_IP",   "FQ_RAY_IP",  "RAY_CLUSTER_NAME", "RAY_CLUSTER_NAMESPACE",
      "RAY_ROLE", "OWNER_KIND", "OWNER_NAME",       "EVENTS_PORT"};
  for (std::string_view name : kInjected) {
    if (last(name) != nullptr) {
      rejects(cp + ".env", std::string(name) + " is injected by KubeRay into the collector",
              "remove it", remove_items(cp + ".env", env, name));
    }
  }
  auto needs = [&](std::string_view name, const std::string& when) {
    if (!has_value(name)) {
      rejects(cp + ".env", std::string(name) + " must be set " + when,
              "add " + std::string(name) + " with a value or valueFrom");
    }
  };
  const EnvVar* backend = last("STORAGE_BACKEND");
  if (backend == nullptr || backend->value.value_or("").empty()) {
    rejects(cp + ".env", "STORAGE_BACKEND must be set with a literal value",
            "add STORAGE_BACKEND with value GCS, S3, AZUREBLOB or ALIYUNOSS, and that backend's "
            "settings");
  } else {
    const std::string kind = go_upper(*backend->value);
    if (kind == "GCS") {
      needs("GCS_BUCKET", "when STORAGE_BACKEND is GCS");
    } else if (kind == "S3") {
      needs("S3_REGION", "when STORAGE_BACKEND is S3");
    } else if (kind == "AZUREBLOB") {
      const EnvVar* mode_env = last("AZURE_STORAGE_AUTH_MODE");
      const std::string mode =
          mode_env != nullptr ? go_lower(go_trim_space(mode_env->value.value_or(""))) : "";
      if (mode == "connection_string") {
        needs("AZURE_STORAGE_CONNECTION_STRING",
              "when STORAGE_BACKEND is AZUREBLOB and AZURE_STORAGE_AUTH_MODE is connection_string");
      } else if (mode == "workload_identity" || mode == "default") {
        needs("AZURE_STORAGE_ACCOUNT_URL",
              "when STORAGE_BACKEND is AZUREBLOB and AZURE_STORAGE_AUTH_MODE is " + mode);
      } else if (!has_value("AZURE_STORAGE_CONNECTION_STRING") &&
                 !has_value("AZURE_STORAGE_ACCOUNT_URL")) {
        rejects(cp + ".env",
                "AZURE_STORAGE_CONNECTION_STRING or AZURE_STORAGE_ACCOUNT_URL must be set when "
                "STORAGE_BACKEND is AZUREBLOB",
                "add one of them with a value or valueFrom");
      }
    } else if (kind == "ALIYUNOSS") {
      for (std::string_view name : {"OSS_BUCKET", "OSS_ENDPOINT", "OSS_REGION"}) {
        needs(name, "when STORAGE_BACKEND is ALIYUNOSS");
      }
    }
  }
  auto containers = [&](const PodTemplate& t, const std::string& group) {
    for (std::size_t i = 0; i < t.containers.size(); ++i) {
      if (t.containers[i].name == "ray-history-collector") {
        rejects(group + ".template.spec.containers[" + std::to_string(i) + "].name",
                "ray-history-collector is the name of the collector container the operator adds",
                "rename the container");
      }
    }
  };
  containers(rc_->head.pod_template, base + ".headGroupSpec");
  for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
    containers(rc_->worker_groups[i].pod_template, worker_group_field(i));
  }
}

// validateTLSOptions, with tlsOptions.enabled true: the Ray container of the head and of each
// worker group, and the autoscaler, set no TLS env var and mount nothing named ray-tls or at
// /etc/ray/tls; the operator adds all of these.
void Checker::tls_managed(const std::string& base) {
  constexpr std::array<std::string_view, 4> kTlsEnv = {"RAY_USE_TLS", "RAY_TLS_SERVER_CERT",
                                                       "RAY_TLS_SERVER_KEY", "RAY_TLS_CA_CERT"};
  auto mounts = [&](const std::vector<VolumeMount>& list, const std::string& field) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string item = field + "[" + std::to_string(i) + "]";
      if (list[i].name == "ray-tls") {
        rejects(item, "the volume mount name ray-tls is the operator's TLS volume",
                "rename the mount, or remove it (tlsOptions mounts the certificates)");
      } else if (list[i].mount_path == "/etc/ray/tls") {
        rejects(item, "mounted at /etc/ray/tls, where the operator mounts the TLS certificates",
                "mount it elsewhere, or remove it (tlsOptions mounts the certificates)");
      }
    }
  };
  auto scan = [&](const PodTemplate& t, const std::string& group) {
    if (t.containers.empty()) {
      return;
    }
    const std::string container = group + ".template.spec.containers[0]";
    for (std::string_view name : kTlsEnv) {
      if (env_var(t, name) != nullptr) {
        rejects(container + ".env",
                std::string(name) + " is managed by the operator when tlsOptions is set",
                "remove it", remove_items(container + ".env", t.containers.front().env, name));
      }
    }
    mounts(t.containers.front().volume_mounts, container + ".volumeMounts");
  };
  scan(rc_->head.pod_template, base + ".headGroupSpec");
  for (std::size_t i = 0; i < rc_->worker_groups.size(); ++i) {
    scan(rc_->worker_groups[i].pod_template, worker_group_field(i));
  }
  if (!rc_->autoscaler_options) {
    return;
  }
  const std::vector<EnvVar>& env = rc_->autoscaler_options->env;
  for (std::string_view name : kTlsEnv) {
    if (find_env(env, name) != nullptr) {
      rejects(base + ".autoscalerOptions.env",
              std::string(name) + " is managed by the operator when tlsOptions is set",
              "remove it", remove_items(base + ".autoscalerOptions.env", env, name));
    }
  }
  mounts(rc_->autoscaler_options->volume_mounts, base + ".autoscalerOptions.volumeMounts");
}

// validateNetworkPolicy: rule lists only for the direction the mode restricts; every worker group
// name a DNS-1123 label (it is part of the NetworkPolicy's name); workerGroups entries name
// existing groups.
void Checker::network_policy(const std::string& np) {
  const NetworkPolicy& p = rc_->network_policy;
  const std::string mode = p.mode.value_or("DenyAll");
  auto directions = [&](const NetworkPolicyRules& r, const std::string& field) {
    if (mode == "DenyAllEgress" && r.ingress) {
      rejects(field + ".ingressRules", "not allowed with mode DenyAllEgress (ingress is not "
              "restricted)", "remove ingressRules, or use mode DenyAll");
    }
    if (mode == "DenyAllIngress" && r.egress) {
      rejects(field + ".egressRules", "not allowed with mode DenyAllIngress (egress is not "
              "restricted)", "remove egressRules, or use mode DenyAll");
    }
  };
  if (p.head) {
    directions(*p.head, np + ".head");
  }
  if (p.worker) {
    directions(*p.worker, np + ".worker");
  }
  bool names_ok = true;
  for (std::size_t i = 0; i < rc_->worker_groups.size() && names_ok; ++i) {
    const std::string& name = rc_->worker_groups[i].group_name;
    if (!is_dns1123_label(name)) {
      rejects(worker_group_field(i) + ".groupName",
              quoted(name) + " is not a DNS-1123 label, which networkPolicy needs (the group name "
              "is part of the NetworkPolicy's name)",
              "use lowercase letters, digits and '-'");
      names_ok = false;  // the operator stops at the first
    }
  }
  if (!names_ok) {
    return;
  }
  for (std::size_t i = 0; i < p.worker_groups.size(); ++i) {
    const auto& [name, rules] = p.worker_groups[i];
    const std::string field = np + ".workerGroups[" + std::to_string(i) + "]";
    directions(rules, field);
    bool found = false;
    for (const WorkerGroup& g : rc_->worker_groups) {
      found = found || g.group_name == name;
    }
    if (!found) {
      rejects(field + ".groupName", quoted(name) + " names no worker group",
              "use the groupName of one of workerGroupSpecs");
    }
  }
}

}  // namespace rjg::policy::kuberay
