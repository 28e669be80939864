// The helpers the operator checks share (see checker.hpp).
#include "policy/kuberay/checker.hpp"

#include <algorithm>

namespace rjg::policy::kuberay {

bool is_one_of(std::string_view v, const std::array<std::string_view, 4>& set) {
  for (std::string_view s : set) {
    if (s == v) {
      return true;
    }
  }
  return false;
}

bool is_autoscaling(const RayClusterSpec* rc) {
  return rc != nullptr && rc->enable_in_tree_autoscaling.value_or(false);
}

bool is_autoscaler_v2(const RayClusterSpec* rc) {
  return is_autoscaling(rc) && rc->autoscaler_options && rc->autoscaler_options->version == "v2";
}

bool restart_policy_ok(const PodTemplate& t) {
  return !t.restart_policy || t.restart_policy->empty() || *t.restart_policy == "Never";
}

const EnvVar* find_env(const std::vector<EnvVar>& env, std::string_view name) {
  const auto it =
      std::find_if(env.begin(), env.end(), [name](const EnvVar& e) { return e.name == name; });
  return it == env.end() ? nullptr : &*it;
}

const EnvVar* env_var(const PodTemplate& t, std::string_view name) {
  // The operator reads the Ray container, containers[0] (RayContainerIndex).
  return t.containers.empty() ? nullptr : find_env(t.containers.front().env, name);
}

std::vector<Edit> remove_items(const std::string& field, const std::vector<EnvVar>& env,
                               std::string_view name) {
  std::vector<Edit> edits;
  for (std::size_t i = 0; i < env.size(); ++i) {
    if (env[i].name == name) {
      edits.push_back(Edit::remove(field + "[" + std::to_string(i) + "]"));
    }
  }
  return edits;
}

bool is_true_text(const std::optional<std::string>& v) { return v && (*v == "1" || *v == "true"); }

const std::string* find_value(const FlatMap<std::string>& m, std::string_view key) {
  const auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

bool non_empty(const FlatMap<std::string>& m, std::string_view key) {
  const std::string* v = find_value(m, key);
  return v != nullptr && !v->empty();
}

}  // namespace rjg::policy::kuberay
