// decode_rayjob (see decode_rayjob.hpp).
#include "admission/decode_rayjob.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "admission/yaml_events.hpp"
#include "admission/yaml_to_json.hpp"
#include "policy/kueue.hpp"
#include "policy/reaper_annotations.hpp"

namespace rjg::admission {
namespace {

using json::Path;
using json::Value;

// Quantities are int-or-string in the CRD: an integer arrives as a JSON number.
Status read_resource_list(const Value& obj, std::string_view key, const Path& path,
                          std::optional<policy::ResourceList>& out) {
  RJG_ASSIGN_OR_RETURN(const Value* list, json::read_object(obj, key, path));
  if (list == nullptr) {
    return {};
  }
  const Path p = path.field(key);
  // Sorted, then taken over by the FlatMap: inserting in document order is O(n^2) when the keys
  // descend (every insertion at the front). Keys are unique (read_object checked).
  std::vector<policy::ResourceList::value_type> entries;
  entries.reserve(list->MemberCount());
  for (auto it = list->MemberBegin(); it != list->MemberEnd(); ++it) {
    const std::string_view name = json::key_of(*it);
    const Value& q = it->value;
    if (q.IsString()) {
      entries.emplace_back(std::string(name), std::string(q.GetString(), q.GetStringLength()));
    } else if (q.IsInt64()) {
      entries.emplace_back(std::string(name), std::to_string(q.GetInt64()));
    } else if (q.IsUint64()) {
      entries.emplace_back(std::string(name), std::to_string(q.GetUint64()));
    } else {
      return json::type_error(p.field(name), "a quantity (string or integer)", q);
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  out = policy::ResourceList::from_sorted(std::move(entries));
  return {};
}

// env[] of a container (or of collectorOptions, autoscalerOptions): name, value, and whether
// valueFrom is set.
Status decode_env(const Value& obj, const Path& path, std::vector<policy::EnvVar>& out) {
  RJG_ASSIGN_OR_RETURN(const Value* env, json::read_array(obj, "env", path));
  if (env == nullptr) {
    return {};
  }
  const Path ep = path.field("env");
  out.reserve(env->Size());
  for (rapidjson::SizeType e = 0; e < env->Size(); ++e) {
    const Path ip = ep.index(e);
    RJG_RETURN_IF_ERROR(json::check_object((*env)[e], ip));
    policy::EnvVar var;
    RJG_RETURN_IF_ERROR(json::read_string((*env)[e], "name", ip, var.name));
    RJG_RETURN_IF_ERROR(json::read_string((*env)[e], "value", ip, var.value));
    RJG_ASSIGN_OR_RETURN(const Value* from, json::read_object((*env)[e], "valueFrom", ip));
    var.value_from = from != nullptr;
    out.push_back(std::move(var));
  }
  return {};
}

// volumeMounts[] of a container (or of autoscalerOptions): name and mountPath.
Status decode_volume_mounts(const Value& obj, const Path& path,
                            std::vector<policy::VolumeMount>& out) {
  RJG_ASSIGN_OR_RETURN(const Value* mounts, json::read_array(obj, "volumeMounts", path));
  if (mounts == nullptr) {
    return {};
  }
  const Path mp = path.field("volumeMounts");
  out.reserve(mounts->Size());
  for (rapidjson::SizeType i = 0; i < mounts->Size(); ++i) {
    const Path ip = mp.index(i);
    RJG_RETURN_IF_ERROR(json::check_object((*mounts)[i], ip));
    policy::VolumeMount mount;
    RJG_RETURN_IF_ERROR(json::read_string((*mounts)[i], "name", ip, mount.name));
    RJG_RETURN_IF_ERROR(json::read_string((*mounts)[i], "mountPath", ip, mount.mount_path));
    out.push_back(std::move(mount));
  }
  return {};
}

Status decode_containers(const Value& spec, std::string_view key, const Path& path,
                         std::vector<policy::Container>& out) {
  RJG_ASSIGN_OR_RETURN(const Value* list, json::read_array(spec, key, path));
  if (list == nullptr) {
    return {};
  }
  const Path lp = path.field(key);
  out.reserve(list->Size());
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const Value& c = (*list)[i];
    const Path cp = lp.index(i);
    RJG_RETURN_IF_ERROR(json::check_object(c, cp));
    policy::Container container;
    RJG_RETURN_IF_ERROR(json::read_string(c, "name", cp, container.name));
    RJG_RETURN_IF_ERROR(json::read_string(c, "image", cp, container.image));
    RJG_RETURN_IF_ERROR(decode_env(c, cp, container.env));
    RJG_RETURN_IF_ERROR(decode_volume_mounts(c, cp, container.volume_mounts));
    RJG_ASSIGN_OR_RETURN(const Value* resources, json::read_object(c, "resources", cp));
    if (resources != nullptr) {
      const Path rp = cp.field("resources");
      RJG_RETURN_IF_ERROR(read_resource_list(*resources, "requests", rp, container.requests));
      RJG_RETURN_IF_ERROR(read_resource_list(*resources, "limits", rp, container.limits));
    }
    out.push_back(std::move(container));
  }
  return {};
}

// Whether one pod affinity term (`term`, at `path`) reaches other namespaces: a non-empty
// `namespaces` or any `namespaceSelector`, {} included (Kubernetes' crossNamespacePodAffinityTerm).
// The list's items and the selector's content are not read: nothing else depends on them.
Status read_cross_namespace_term(const Value& term, const Path& path, bool& out) {
  RJG_RETURN_IF_ERROR(json::check_object(term, path));
  RJG_ASSIGN_OR_RETURN(const Value* namespaces, json::read_array(term, "namespaces", path));
  RJG_ASSIGN_OR_RETURN(const Value* selector, json::read_object(term, "namespaceSelector", path));
  out = out || (namespaces != nullptr && !namespaces->Empty()) || selector != nullptr;
  return {};
}

// spec.affinity: whether a podAffinity or podAntiAffinity term, required or preferred, reaches
// other namespaces, which puts the pod in the CrossNamespacePodAffinity quota scope.
Status decode_affinity(const Value& affinity, const Path& path, bool& cross_namespace) {
  for (std::string_view kind : {"podAffinity", "podAntiAffinity"}) {
    RJG_ASSIGN_OR_RETURN(const Value* a, json::read_object(affinity, kind, path));
    if (a == nullptr) {
      continue;
    }
    const Path ap = path.field(kind);
    RJG_ASSIGN_OR_RETURN(
        const Value* required,
        json::read_array(*a, "requiredDuringSchedulingIgnoredDuringExecution", ap));
    if (required != nullptr) {
      const Path rp = ap.field("requiredDuringSchedulingIgnoredDuringExecution");
      for (rapidjson::SizeType i = 0; i < required->Size(); ++i) {
        RJG_RETURN_IF_ERROR(
            read_cross_namespace_term((*required)[i], rp.index(i), cross_namespace));
      }
    }
    RJG_ASSIGN_OR_RETURN(
        const Value* preferred,
        json::read_array(*a, "preferredDuringSchedulingIgnoredDuringExecution", ap));
    if (preferred != nullptr) {
      const Path pp = ap.field("preferredDuringSchedulingIgnoredDuringExecution");
      for (rapidjson::SizeType i = 0; i < preferred->Size(); ++i) {
        const Path ip = pp.index(i);
        RJG_RETURN_IF_ERROR(json::check_object((*preferred)[i], ip));
        RJG_ASSIGN_OR_RETURN(const Value* term,
                             json::read_object((*preferred)[i], "podAffinityTerm", ip));
        if (term != nullptr) {
          RJG_RETURN_IF_ERROR(
              read_cross_namespace_term(*term, ip.field("podAffinityTerm"), cross_namespace));
        }
      }
    }
  }
  return {};
}

Status decode_pod_template(const Value& tmpl, const Path& path, policy::PodTemplate& out) {
  RJG_ASSIGN_OR_RETURN(const Value* spec, json::read_object(tmpl, "spec", path));
  if (spec == nullptr) {
    return {};
  }
  const Path sp = path.field("spec");
  RJG_RETURN_IF_ERROR(decode_containers(*spec, "containers", sp, out.containers));
  RJG_RETURN_IF_ERROR(decode_containers(*spec, "initContainers", sp, out.init_containers));
  RJG_RETURN_IF_ERROR(json::read_string(*spec, "restartPolicy", sp, out.restart_policy));
  // What the ResourceQuota scopes read (policy/cluster_quota.hpp); of spec.resources and
  // spec.affinity only whether they say anything, not their content.
  RJG_RETURN_IF_ERROR(
      json::read_int64(*spec, "activeDeadlineSeconds", sp, out.active_deadline_seconds));
  RJG_RETURN_IF_ERROR(json::read_string(*spec, "priorityClassName", sp, out.priority_class_name));
  RJG_ASSIGN_OR_RETURN(const Value* pod_resources, json::read_object(*spec, "resources", sp));
  out.pod_level_resources = pod_resources != nullptr && pod_resources->MemberCount() > 0;
  RJG_ASSIGN_OR_RETURN(const Value* affinity, json::read_object(*spec, "affinity", sp));
  if (affinity != nullptr) {
    RJG_RETURN_IF_ERROR(
        decode_affinity(*affinity, sp.field("affinity"), out.cross_namespace_pod_affinity));
  }
  RJG_ASSIGN_OR_RETURN(const Value* volumes, json::read_array(*spec, "volumes", sp));
  if (volumes != nullptr) {
    const Path vp = sp.field("volumes");
    out.volume_names.reserve(volumes->Size());
    for (rapidjson::SizeType i = 0; i < volumes->Size(); ++i) {
      RJG_RETURN_IF_ERROR(json::check_object((*volumes)[i], vp.index(i)));
      std::string name;
      RJG_RETURN_IF_ERROR(json::read_string((*volumes)[i], "name", vp.index(i), name));
      out.volume_names.push_back(std::move(name));
    }
  }
  return {};
}

// Reads the parts shared by head and worker groups: template, rayStartParams, resources, labels.
template <typename Group>
Status decode_group_common(const Value& group, const Path& path, Group& out) {
  RJG_ASSIGN_OR_RETURN(const Value* tmpl, json::read_object(group, "template", path));
  if (tmpl != nullptr) {
    RJG_RETURN_IF_ERROR(decode_pod_template(*tmpl, path.field("template"), out.pod_template));
  }
  std::optional<FlatMap<std::string>> params;
  RJG_RETURN_IF_ERROR(json::read_string_map(group, "rayStartParams", path, params));
  if (params) {
    out.ray_start_params = std::move(*params);
    for (std::string_view key : {"num-cpus", "num-gpus", "memory", "resources"}) {
      // The operator tests rayStartParams[key] != "".
      const auto it = out.ray_start_params.find(key);
      if (it != out.ray_start_params.end() && !it->second.empty()) {
        out.ray_start_params_sets_resources = true;
      }
    }
  }
  RJG_ASSIGN_OR_RETURN(const Value* resources, json::read_object(group, "resources", path));
  out.has_group_resources = resources != nullptr && resources->MemberCount() > 0;
  RJG_RETURN_IF_ERROR(json::read_string_map(group, "labels", path, out.labels));
  return {};
}

Status decode_rules(const Value& obj, const Path& path, policy::NetworkPolicyRules& out) {
  RJG_ASSIGN_OR_RETURN(const Value* ingress, json::read_array(obj, "ingressRules", path));
  RJG_ASSIGN_OR_RETURN(const Value* egress, json::read_array(obj, "egressRules", path));
  out.ingress = ingress != nullptr && !ingress->Empty();
  out.egress = egress != nullptr && !egress->Empty();
  return {};
}

Status decode_network_policy(const Value& np, const Path& path, policy::NetworkPolicy& out) {
  RJG_RETURN_IF_ERROR(json::read_string(np, "mode", path, out.mode));
  for (const auto& [key, slot] : {std::pair{std::string_view("head"), &out.head},
                                  std::pair{std::string_view("worker"), &out.worker}}) {
    RJG_ASSIGN_OR_RETURN(const Value* rules, json::read_object(np, key, path));
    if (rules != nullptr) {
      policy::NetworkPolicyRules r;
      RJG_RETURN_IF_ERROR(decode_rules(*rules, path.field(key), r));
      *slot = r;
    }
  }
  RJG_ASSIGN_OR_RETURN(const Value* groups, json::read_array(np, "workerGroups", path));
  if (groups != nullptr) {
    const Path gp = path.field("workerGroups");
    for (rapidjson::SizeType i = 0; i < groups->Size(); ++i) {
      RJG_RETURN_IF_ERROR(json::check_object((*groups)[i], gp.index(i)));
      std::string name;
      RJG_RETURN_IF_ERROR(json::read_string((*groups)[i], "groupName", gp.index(i), name));
      policy::NetworkPolicyRules r;
      RJG_RETURN_IF_ERROR(decode_rules((*groups)[i], gp.index(i), r));
      out.worker_groups.emplace_back(std::move(name), r);
    }
  }
  return {};
}

// gcsFaultToleranceOptions.storage: claimName, and which of the operator-managed PVC's fields
// are set (the operator tests size != nil, storageClassName != nil, len(accessModes) > 0).
Status decode_gcs_storage(const Value& storage, const Path& path, policy::RayClusterSpec& out) {
  RJG_RETURN_IF_ERROR(json::read_string(storage, "claimName", path, out.gcs_ft_storage_claim_name));
  RJG_RETURN_IF_ERROR(
      json::read_string(storage, "deletionPolicy", path, out.gcs_ft_storage_deletion_policy));
  if (const Value* size = json::member(storage, "size"); size != nullptr) {
    // A quantity is int-or-string in the CRD.
    if (!size->IsString() && !size->IsNumber()) {
      return json::type_error(path.field("size"), "a quantity (string or number)", *size);
    }
    out.gcs_ft_storage_pvc_fields.emplace_back("size");
  }
  std::optional<std::string> storage_class;
  RJG_RETURN_IF_ERROR(json::read_string(storage, "storageClassName", path, storage_class));
  if (storage_class) {
    out.gcs_ft_storage_pvc_fields.emplace_back("storageClassName");
  }
  std::vector<std::string> access_modes;
  RJG_RETURN_IF_ERROR(json::read_string_list(storage, "accessModes", path, access_modes));
  if (!access_modes.empty()) {
    out.gcs_ft_storage_pvc_fields.emplace_back("accessModes");
  }
  return {};
}

Status decode_cluster_spec(const Value& spec, const Path& path, policy::RayClusterSpec& out) {
  RJG_ASSIGN_OR_RETURN(const Value* head, json::read_object(spec, "headGroupSpec", path));
  if (head != nullptr) {
    RJG_RETURN_IF_ERROR(decode_group_common(*head, path.field("headGroupSpec"), out.head));
  }
  RJG_ASSIGN_OR_RETURN(const Value* workers, json::read_array(spec, "workerGroupSpecs", path));
  if (workers != nullptr) {
    const Path wp = path.field("workerGroupSpecs");
    out.worker_groups.reserve(workers->Size());
    for (rapidjson::SizeType i = 0; i < workers->Size(); ++i) {
      const Value& w = (*workers)[i];
      const Path gp = wp.index(i);
      RJG_RETURN_IF_ERROR(json::check_object(w, gp));
      policy::WorkerGroup group;
      RJG_RETURN_IF_ERROR(json::read_string(w, "groupName", gp, group.group_name));
      RJG_RETURN_IF_ERROR(json::read_int32(w, "replicas", gp, group.replicas));
      RJG_RETURN_IF_ERROR(json::read_int32(w, "minReplicas", gp, group.min_replicas));
      RJG_RETURN_IF_ERROR(json::read_int32(w, "maxReplicas", gp, group.max_replicas));
      RJG_RETURN_IF_ERROR(json::read_int32(w, "numOfHosts", gp, group.num_of_hosts));
      RJG_RETURN_IF_ERROR(json::read_bool(w, "suspend", gp, group.suspend));
      RJG_RETURN_IF_ERROR(
          json::read_int32(w, "idleTimeoutSeconds", gp, group.idle_timeout_seconds));
      RJG_RETURN_IF_ERROR(json::read_int32(w, "priority", gp, group.priority));
      RJG_RETURN_IF_ERROR(decode_group_common(w, gp, group));
      out.worker_groups.push_back(std::move(group));
    }
  }
  RJG_RETURN_IF_ERROR(
      json::read_bool(spec, "enableInTreeAutoscaling", path, out.enable_in_tree_autoscaling));
  RJG_ASSIGN_OR_RETURN(const Value* autoscaler, json::read_object(spec, "autoscalerOptions", path));
  if (autoscaler != nullptr) {
    const Path ap = path.field("autoscalerOptions");
    policy::AutoscalerOptions options;
    RJG_RETURN_IF_ERROR(json::read_string(*autoscaler, "image", ap, options.image));
    RJG_RETURN_IF_ERROR(json::read_string(*autoscaler, "version", ap, options.version));
    RJG_RETURN_IF_ERROR(json::read_int32(*autoscaler, "idleTimeoutSeconds", ap,
                                         options.idle_timeout_seconds));
    RJG_RETURN_IF_ERROR(decode_env(*autoscaler, ap, options.env));
    RJG_RETURN_IF_ERROR(decode_volume_mounts(*autoscaler, ap, options.volume_mounts));
    RJG_ASSIGN_OR_RETURN(const Value* resources, json::read_object(*autoscaler, "resources", ap));
    if (resources != nullptr) {
      const Path rp = ap.field("resources");
      RJG_RETURN_IF_ERROR(read_resource_list(*resources, "requests", rp, options.requests));
      RJG_RETURN_IF_ERROR(read_resource_list(*resources, "limits", rp, options.limits));
    }
    out.autoscaler_options = std::move(options);
  }
  RJG_RETURN_IF_ERROR(json::read_string(spec, "rayVersion", path, out.ray_version));
  RJG_ASSIGN_OR_RETURN(const Value* auth, json::read_object(spec, "authOptions", path));
  if (auth != nullptr) {
    const Path ap = path.field("authOptions");
    RJG_RETURN_IF_ERROR(json::read_string(*auth, "mode", ap, out.auth_mode));
    RJG_RETURN_IF_ERROR(
        json::read_bool(*auth, "enableK8sTokenAuth", ap, out.enable_k8s_token_auth));
  }
  RJG_RETURN_IF_ERROR(json::read_string(spec, "managedBy", path, out.managed_by));
  RJG_ASSIGN_OR_RETURN(const Value* gcs_ft, json::read_object(spec, "gcsFaultToleranceOptions", path));
  out.has_gcs_fault_tolerance_options = gcs_ft != nullptr;
  if (gcs_ft != nullptr) {
    const Path gp = path.field("gcsFaultToleranceOptions");
    RJG_RETURN_IF_ERROR(json::read_string(*gcs_ft, "backend", gp, out.gcs_ft_backend));
    RJG_ASSIGN_OR_RETURN(const Value* storage, json::read_object(*gcs_ft, "storage", gp));
    out.gcs_ft_has_storage = storage != nullptr;
    if (storage != nullptr) {
      RJG_RETURN_IF_ERROR(decode_gcs_storage(*storage, gp.field("storage"), out));
    }
    // Strings count when non-empty; redisUsername/redisPassword (objects) when present.
    for (std::string_view key : {"redisAddress", "redisUsername", "redisPassword",
                                 "externalStorageNamespace"}) {
      bool set = false;
      if (key == "redisUsername" || key == "redisPassword") {
        RJG_ASSIGN_OR_RETURN(const Value* credential, json::read_object(*gcs_ft, key, gp));
        set = credential != nullptr;
      } else {
        std::string text;
        RJG_RETURN_IF_ERROR(json::read_string(*gcs_ft, key, gp, text));
        set = !text.empty();
      }
      if (set) {
        out.gcs_ft_redis_fields.emplace_back(key);
      }
    }
  }
  RJG_ASSIGN_OR_RETURN(const Value* upgrade, json::read_object(spec, "upgradeStrategy", path));
  if (upgrade != nullptr) {
    RJG_RETURN_IF_ERROR(json::read_string(*upgrade, "type", path.field("upgradeStrategy"),
                                          out.upgrade_strategy_type));
  }
  RJG_ASSIGN_OR_RETURN(const Value* network, json::read_object(spec, "networkPolicy", path));
  out.has_network_policy = network != nullptr;
  if (network != nullptr) {
    RJG_RETURN_IF_ERROR(decode_network_policy(*network, path.field("networkPolicy"),
                                              out.network_policy));
  }
  RJG_ASSIGN_OR_RETURN(const Value* tls, json::read_object(spec, "tlsOptions", path));
  out.has_tls_options = tls != nullptr;
  if (tls != nullptr) {
    RJG_RETURN_IF_ERROR(
        json::read_bool(*tls, "enabled", path.field("tlsOptions"), out.tls_enabled));
  }
  RJG_ASSIGN_OR_RETURN(const Value* history,
                       json::read_object(spec, "historyServerOptions", path));
  out.has_history_server_options = history != nullptr;
  if (history != nullptr) {
    const Path hp = path.field("historyServerOptions");
    RJG_ASSIGN_OR_RETURN(const Value* collector, json::read_object(*history, "collectorOptions", hp));
    out.has_collector_options = collector != nullptr;
    if (collector != nullptr) {
      const Path cp = hp.field("collectorOptions");
      RJG_RETURN_IF_ERROR(json::read_string(*collector, "image", cp, out.collector_image));
      RJG_RETURN_IF_ERROR(decode_env(*collector, cp, out.collector_env));
    }
  }
  return {};
}

Status read_policy_holder(const Value& obj, std::string_view key, const Path& path, bool& has,
                          std::optional<std::string>& policy) {
  RJG_ASSIGN_OR_RETURN(const Value* holder, json::read_object(obj, key, path));
  if (holder == nullptr) {
    return {};
  }
  has = true;
  return json::read_string(*holder, "policy", path.field(key), policy);
}

Status decode_deletion_strategy(const Value& ds, const Path& path, policy::DeletionStrategy& out) {
  RJG_RETURN_IF_ERROR(
      read_policy_holder(ds, "onSuccess", path, out.has_on_success, out.on_success_policy));
  RJG_RETURN_IF_ERROR(
      read_policy_holder(ds, "onFailure", path, out.has_on_failure, out.on_failure_policy));
  RJG_ASSIGN_OR_RETURN(const Value* rules, json::read_array(ds, "deletionRules", path));
  if (rules == nullptr) {
    return {};
  }
  const Path rp = path.field("deletionRules");
  std::vector<policy::DeletionRule> list;
  list.reserve(rules->Size());
  for (rapidjson::SizeType i = 0; i < rules->Size(); ++i) {
    const Value& r = (*rules)[i];
    const Path ip = rp.index(i);
    RJG_RETURN_IF_ERROR(json::check_object(r, ip));
    policy::DeletionRule rule;
    RJG_RETURN_IF_ERROR(json::read_string(r, "policy", ip, rule.policy));
    RJG_ASSIGN_OR_RETURN(const Value* condition, json::read_object(r, "condition", ip));
    if (condition != nullptr) {
      const Path cp = ip.field("condition");
      rule.has_condition = true;
      RJG_RETURN_IF_ERROR(json::read_string(*condition, "jobStatus", cp, rule.job_status));
      RJG_RETURN_IF_ERROR(
          json::read_string(*condition, "jobDeploymentStatus", cp, rule.job_deployment_status));
      RJG_RETURN_IF_ERROR(json::read_int32(*condition, "ttlSeconds", cp, rule.ttl_seconds));
    }
    list.push_back(std::move(rule));
  }
  out.deletion_rules = std::move(list);
  return {};
}

Status decode_metadata(const Value& meta, const Path& path, policy::ObjectMeta& out) {
  RJG_RETURN_IF_ERROR(json::read_string(meta, "name", path, out.name));
  RJG_RETURN_IF_ERROR(json::read_string(meta, "generateName", path, out.generate_name));
  RJG_RETURN_IF_ERROR(json::read_string(meta, "namespace", path, out.namespace_));
  // Every label and annotation value is type-checked; only the prefixes the rules read are kept.
  RJG_RETURN_IF_ERROR(
      json::split_string_map(meta, "labels", path, {{policy::kKueuePrefix, &out.kueue_labels}}));
  RJG_RETURN_IF_ERROR(json::split_string_map(meta, "annotations", path,
                                             {{policy::kAnnotationPrefix, &out.annotations},
                                              {"ray.io/", &out.ray_annotations},
                                              {policy::kKueuePrefix, &out.kueue_annotations}}));
  RJG_RETURN_IF_ERROR(json::read_string_list(meta, "finalizers", path, out.finalizers));
  return {};
}

Status decode_spec(const Value& spec, const Path& path, policy::RayJobSpec& out) {
  RJG_RETURN_IF_ERROR(json::read_string(spec, "entrypoint", path, out.entrypoint));
  RJG_RETURN_IF_ERROR(json::read_string(spec, "runtimeEnvYAML", path, out.runtime_env_yaml));
  if (out.runtime_env_yaml) {
    out.runtime_env = parse_runtime_env(*out.runtime_env_yaml);
  }
  RJG_RETURN_IF_ERROR(
      json::read_bool(spec, "shutdownAfterJobFinishes", path, out.shutdown_after_job_finishes));
  RJG_RETURN_IF_ERROR(
      json::read_int32(spec, "ttlSecondsAfterFinished", path, out.ttl_seconds_after_finished));
  RJG_RETURN_IF_ERROR(
      json::read_int32(spec, "activeDeadlineSeconds", path, out.active_deadline_seconds));
  RJG_RETURN_IF_ERROR(
      json::read_int32(spec, "preRunningDeadlineSeconds", path, out.pre_running_deadline_seconds));
  RJG_RETURN_IF_ERROR(json::read_int32(spec, "backoffLimit", path, out.backoff_limit));
  RJG_RETURN_IF_ERROR(json::read_bool(spec, "suspend", path, out.suspend));
  RJG_RETURN_IF_ERROR(json::read_string(spec, "submissionMode", path, out.submission_mode));
  RJG_ASSIGN_OR_RETURN(const Value* submitter,
                       json::read_object(spec, "submitterPodTemplate", path));
  if (submitter != nullptr) {
    policy::PodTemplate tmpl;
    RJG_RETURN_IF_ERROR(decode_pod_template(*submitter, path.field("submitterPodTemplate"), tmpl));
    out.submitter_pod_template = std::move(tmpl);
  }
  RJG_ASSIGN_OR_RETURN(const Value* submitter_config,
                       json::read_object(spec, "submitterConfig", path));
  if (submitter_config != nullptr) {
    out.has_submitter_config = true;
    RJG_RETURN_IF_ERROR(json::read_int32(*submitter_config, "backoffLimit",
                                         path.field("submitterConfig"),
                                         out.submitter_backoff_limit));
  }
  RJG_RETURN_IF_ERROR(json::read_string_map(spec, "clusterSelector", path, out.cluster_selector));
  std::optional<FlatMap<std::string>> metadata;
  RJG_RETURN_IF_ERROR(json::read_string_map(spec, "metadata", path, metadata));
  out.has_metadata = metadata && !metadata->empty();
  RJG_ASSIGN_OR_RETURN(const Value* cluster, json::read_object(spec, "rayClusterSpec", path));
  if (cluster != nullptr) {
    policy::RayClusterSpec cs;
    RJG_RETURN_IF_ERROR(decode_cluster_spec(*cluster, path.field("rayClusterSpec"), cs));
    out.ray_cluster_spec = std::move(cs);
  }
  RJG_RETURN_IF_ERROR(json::read_string(spec, "managedBy", path, out.managed_by));
  RJG_RETURN_IF_ERROR(json::read_string(spec, "deletionPolicy", path, out.deletion_policy));
  RJG_ASSIGN_OR_RETURN(const Value* strategy, json::read_object(spec, "deletionStrategy", path));
  if (strategy != nullptr) {
    policy::DeletionStrategy ds;
    RJG_RETURN_IF_ERROR(decode_deletion_strategy(*strategy, path.field("deletionStrategy"), ds));
    out.deletion_strategy = std::move(ds);
  }
  RJG_RETURN_IF_ERROR(json::read_string(spec, "jobId", path, out.job_id));
  return {};
}

using YamlDoc = yaml::Document;
using YamlKind = yaml::Document::Kind;

// Reads pip's value the way Ray's runtime_env does: a list of requirement strings, a mapping with
// a `packages` list, or a requirements-file path. Anything else is kMalformed.
void read_pip(const YamlDoc& doc, YamlDoc::Index pip, policy::RuntimeEnv& env) {
  auto read_list = [&doc, &env](YamlDoc::Index list) {
    for (YamlDoc::Index item = doc.first_child(list); item != YamlDoc::kNone;
         item = doc.next(item)) {
      if (doc.kind(item) != YamlKind::kScalar) {
        return false;
      }
      env.pip_packages.emplace_back(doc.scalar(item));
    }
    return true;
  };
  switch (doc.kind(pip)) {
    case YamlKind::kSequence:
      env.pip_form = read_list(pip) ? policy::RuntimeEnv::PipForm::kList
                                    : policy::RuntimeEnv::PipForm::kMalformed;
      break;
    case YamlKind::kMapping: {
      const YamlDoc::Index packages = doc.find(pip, "packages");
      env.pip_form = packages != YamlDoc::kNone && doc.kind(packages) == YamlKind::kSequence &&
                             read_list(packages)
                         ? policy::RuntimeEnv::PipForm::kPackages
                         : policy::RuntimeEnv::PipForm::kMalformed;
      break;
    }
    case YamlKind::kScalar:
      env.pip_form = doc.scalar(pip).empty() ? policy::RuntimeEnv::PipForm::kMalformed
                                             : policy::RuntimeEnv::PipForm::kRequirementsPath;
      break;
    case YamlKind::kNull:
      env.pip_form = policy::RuntimeEnv::PipForm::kMalformed;
      break;
  }
  if (env.pip_form == policy::RuntimeEnv::PipForm::kMalformed) {
    env.pip_packages.clear();
  }
}

// What sigs.k8s.io/yaml's YAML-to-JSON conversion, which the operator runs on runtimeEnvYAML
// (UnmarshalRuntimeEnvYAML in its validation, and again for the submitter's --runtime-env-json),
// cannot take anywhere in the document: a mapping key that is null, a sequence or a mapping
// (it keeps only string, number and bool keys), and a plain scalar that go-yaml reads as a
// non-finite float (.nan, .inf: JSON cannot hold them). Returns what is wrong, or "" when it
// converts. `budget` counts nodes visited, aliases expanded, so that aliases cannot blow up.
std::string unconvertible(const YamlDoc& doc, YamlDoc::Index node, std::size_t& budget) {
  if (budget == 0) {
    return "too many values after expanding aliases";
  }
  --budget;
  // The position is spelled only for a finding: this runs on every node of every runtimeEnvYAML.
  auto at = [&](YamlDoc::Index n) {
    return "line " + std::to_string(doc.line(n)) + ", column " + std::to_string(doc.column(n)) +
           ": ";
  };
  switch (doc.kind(node)) {
    case YamlKind::kNull:
      return {};
    case YamlKind::kScalar:
      if (doc.plain(node)) {
        const ResolvedScalar r = resolve_plain_scalar(doc.scalar(node));
        if (r.kind == ResolvedScalar::Kind::kFloat && !std::isfinite(r.float_value)) {
          return at(node) + "\"" + std::string(doc.scalar(node)) +
                 "\" is not a finite number, which JSON cannot hold";
        }
      }
      return {};
    case YamlKind::kSequence:
      for (YamlDoc::Index item = doc.first_child(node); item != YamlDoc::kNone;
           item = doc.next(item)) {
        if (std::string why = unconvertible(doc, item, budget); !why.empty()) {
          return why;
        }
      }
      return {};
    case YamlKind::kMapping:
      for (YamlDoc::Index key = doc.first_child(node); key != YamlDoc::kNone;
           key = doc.next(doc.next(key))) {
        const YamlKind k = doc.kind(key);
        if (k != YamlKind::kScalar) {
          return at(key) + "a mapping key is " +
                 (k == YamlKind::kNull ? "null" : "a sequence or a mapping") +
                 ", which JSON cannot hold";
        }
        if (std::string why = unconvertible(doc, doc.next(key), budget); !why.empty()) {
          return why;
        }
      }
      return {};
  }
  return {};
}

}  // namespace

policy::RuntimeEnv parse_runtime_env(std::string_view yaml_text) {
  policy::RuntimeEnv env;
  if (yaml_text.find_first_not_of(" \r\n") == std::string_view::npos) {
    return env;
  }
  if (yaml_text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    // libyaml reads some of these as empty; go-yaml (the operator's reader) refuses every one.
    env.parse = policy::RuntimeEnv::Parse::kInvalid;
    env.parse_error =
        "found character that cannot start any token (a tab in a text of white space)";
    return env;
  }
  // runtimeEnvYAML is small; a tight budget keeps a hostile one cheap.
  constexpr yaml::Limits kLimits{10'000, kMaxNestingDepth};
  Result<YamlDoc> parsed = yaml::parse_first_document(yaml_text, kLimits);
  if (!parsed.ok()) {
    env.parse = policy::RuntimeEnv::Parse::kInvalid;
    env.parse_error = parsed.error().message;
    return env;
  }
  const YamlDoc& doc = parsed.value();
  constexpr YamlDoc::Index kRoot = 0;
  const YamlKind root_kind = doc.empty() ? YamlKind::kNull : doc.kind(kRoot);
  // YAML null (`null`, `~`, only comments) unmarshals into an empty map for the operator
  // (UnmarshalRuntimeEnvYAML): no runtime env, accepted.
  if (root_kind == YamlKind::kNull) {
    return env;
  }
  if (root_kind != YamlKind::kMapping) {
    env.parse = policy::RuntimeEnv::Parse::kNotMapping;
    env.parse_error = root_kind == YamlKind::kSequence ? "a YAML sequence, not a mapping"
                      : root_kind == YamlKind::kNull   ? "YAML null, not a mapping"
                                                       : "a YAML scalar, not a mapping";
    return env;
  }
  // The budget is far above the parse's own (10,000 nodes), for aliases that expand.
  std::size_t budget = 1'000'000;
  if (std::string why = unconvertible(doc, kRoot, budget); !why.empty()) {
    env.parse = policy::RuntimeEnv::Parse::kInvalid;
    env.parse_error = "cannot be converted to JSON: " + why;
    return env;
  }
  env.parse = policy::RuntimeEnv::Parse::kMapping;
  if (const YamlDoc::Index pip = doc.find(kRoot, "pip"); pip != YamlDoc::kNone) {
    read_pip(doc, pip, env);
  }
  env.has_conda = doc.find(kRoot, "conda") != YamlDoc::kNone;
  if (const YamlDoc::Index wd = doc.find(kRoot, "working_dir");
      wd != YamlDoc::kNone && doc.kind(wd) == YamlKind::kScalar) {
    env.working_dir = std::string(doc.scalar(wd));
  }
  if (const YamlDoc::Index mods = doc.find(kRoot, "py_modules");
      mods != YamlDoc::kNone && doc.kind(mods) == YamlKind::kSequence) {
    for (YamlDoc::Index m = doc.first_child(mods); m != YamlDoc::kNone; m = doc.next(m)) {
      env.py_modules.emplace_back(doc.scalar(m));
    }
  }
  return env;
}

Result<policy::RayJob> decode_rayjob(const json::Value& object, const json::Path& path) {
  RJG_RETURN_IF_ERROR(json::check_object(object, path));
  policy::RayJob job;
  Status st = json::read_string(object, "apiVersion", path, job.api_version);
  if (!st.ok()) {
    return st.error();
  }
  auto meta = json::read_object(object, "metadata", path);
  if (!meta.ok()) {
    return meta.error();
  }
  if (meta.value() != nullptr) {
    st = decode_metadata(*meta.value(), path.field("metadata"), job.metadata);
    if (!st.ok()) {
      return st.error();
    }
  }
  auto spec = json::read_object(object, "spec", path);
  if (!spec.ok()) {
    return spec.error();
  }
  if (spec.value() != nullptr) {
    st = decode_spec(*spec.value(), path.field("spec"), job.spec);
    if (!st.ok()) {
      return st.error();
    }
  }
  return job;
}

}  // namespace rjg::admission
