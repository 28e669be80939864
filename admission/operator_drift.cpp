// The operator's Deployment -> what it runs (version, gates, delete-after-finish) -> each
// difference from the policy as an audit result.
#include "admission/operator_drift.hpp"

#include <cctype>
#include <charconv>
#include <utility>

#include "admission/json_reader.hpp"
#include "admission/rayjob_list.hpp"
#include "common/ascii.hpp"
#include "common/visible_text.hpp"
#include "policy/kuberay/catalogue.hpp"

namespace rjg::admission {
namespace {

using json::Path;
using json::Value;

constexpr std::string_view kDeleteAfterFinish = "DELETE_RAYJOB_CR_AFTER_JOB_FINISHES";

Status decode_container(const Value& c, const Path& path, OperatorDeployment& d) {
  RJG_RETURN_IF_ERROR(json::read_string(c, "name", path, d.container));
  RJG_RETURN_IF_ERROR(json::read_string(c, "image", path, d.image));
  RJG_RETURN_IF_ERROR(json::read_string_list(c, "command", path, d.args));
  RJG_RETURN_IF_ERROR(json::read_string_list(c, "args", path, d.args));
  Result<const Value*> env = json::read_array(c, "env", path);
  if (!env) {
    return env.error();
  }
  const Path env_path = path.field("env");  // a Path points at its parent: each level is named
  for (rapidjson::SizeType i = 0; env.value() != nullptr && i < env.value()->Size(); ++i) {
    const Value& e = (*env.value())[i];
    const Path epath = env_path.index(i);
    if (!e.IsObject()) {
      return json::type_error(epath, "an object", e);
    }
    std::string name;
    RJG_RETURN_IF_ERROR(json::read_string(e, "name", epath, name));
    if (name == kDeleteAfterFinish) {
      std::string value;  // valueFrom: the operator reads what it resolves to; not known here
      RJG_RETURN_IF_ERROR(json::read_string(e, "value", epath, value));
      d.delete_after_finish_env = std::move(value);
    }
  }
  return {};
}

Status decode_deployment(const Value& item, const Path& path, OperatorDeployment& d) {
  if (!item.IsObject()) {
    return json::type_error(path, "an object", item);
  }
  RJG_ASSIGN_OR_RETURN(const Value* meta, json::read_required_object(item, "metadata", path));
  const Path mpath = path.field("metadata");
  RJG_RETURN_IF_ERROR(json::read_string(*meta, "namespace", mpath, d.namespace_));
  RJG_RETURN_IF_ERROR(json::read_string(*meta, "name", mpath, d.name));
  RJG_RETURN_IF_ERROR(json::read_string(*meta, "uid", mpath, d.uid));
  const Value* spec = json::member(item, "spec");
  const Value* tmpl = spec != nullptr && spec->IsObject() ? json::member(*spec, "template") : nullptr;
  const Value* pod = tmpl != nullptr && tmpl->IsObject() ? json::member(*tmpl, "spec") : nullptr;
  if (pod == nullptr || !pod->IsObject()) {
    return {};
  }
  const Path spec_path = path.field("spec");  // a Path points at its parent: each level is named
  const Path template_path = spec_path.field("template");
  const Path ppath = template_path.field("spec");
  Result<const Value*> containers = json::read_array(*pod, "containers", ppath);
  if (!containers) {
    return containers.error();
  }
  if (containers.value() == nullptr) {
    return {};
  }
  const Value& list = *containers.value();
  const Path cpath = ppath.field("containers");
  std::optional<rapidjson::SizeType> chosen;
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    if (!list[i].IsObject()) {
      return json::type_error(cpath.index(i), "an object", list[i]);
    }
    std::string name;
    RJG_RETURN_IF_ERROR(json::read_string(list[i], "name", cpath.index(i), name));
    if (name == "kuberay-operator") {
      chosen = i;
    }
  }
  if (!chosen && list.Size() == 1) {
    chosen = 0;
  }
  if (chosen) {
    return decode_container(list[*chosen], cpath.index(*chosen), d);
  }
  return {};
}

// The tag of an image reference ("" without one): after the last ':' of the last path part,
// before any digest.
std::string_view image_tag(std::string_view image) {
  image = image.substr(0, image.find('@'));
  const std::size_t slash = image.rfind('/');
  const std::size_t colon = image.rfind(':');
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash)) {
    return {};
  }
  return image.substr(colon + 1);
}

// "v1.5.0", "1.6.2", "v1.4.0-rc.1" -> {1, 5}; nullopt for "latest", "nightly" or a digest.
std::optional<policy::KubeRayVersion> tag_version(std::string_view tag) {
  if (tag.starts_with('v')) {
    tag.remove_prefix(1);
  }
  policy::KubeRayVersion v;
  const char* end = tag.data() + tag.size();
  auto [p, ec] = std::from_chars(tag.data(), end, v.major);
  if (ec != std::errc() || p == end || *p != '.') {
    return std::nullopt;
  }
  auto [q, ec2] = std::from_chars(p + 1, end, v.minor);
  if (ec2 != std::errc() || (q != end && *q != '.' && *q != '-')) {
    return std::nullopt;
  }
  return v;
}

// strconv.ParseBool, which the operator's feature-gate flag uses.
std::optional<bool> go_bool(std::string_view s) {
  for (std::string_view t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (s == t) {
      return true;
    }
  }
  for (std::string_view f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (s == f) {
      return false;
    }
  }
  return std::nullopt;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) {
    s.remove_prefix(1);
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(1);
  }
  return s;
}

// The value of the last --feature-gates flag (`--feature-gates=V` or `--feature-gates V`, also
// with one dash, as Go's flag package reads it), or nullopt without one.
std::optional<std::string> feature_gates_flag(const std::vector<std::string>& args) {
  std::optional<std::string> value;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a.starts_with("--")) {
      a.remove_prefix(2);
    } else if (a.starts_with("-")) {
      a.remove_prefix(1);
    } else {
      continue;
    }
    if (a.starts_with("feature-gates=")) {
      value = std::string(a.substr(14));
    } else if (a == "feature-gates" && i + 1 < args.size()) {
      value = args[++i];
    }
  }
  return value;
}

AuditResult drift(const OperatorDeployment& d, std::string field, std::string message) {
  AuditResult r;
  r.api_version = "apps/v1";
  r.kind = "Deployment";
  r.namespace_ = d.namespace_;
  r.name = d.name;
  r.uid = d.uid;
  r.rule = "operator-drift";
  r.outcome = AuditOutcome::kWarn;
  r.field = std::move(field);
  r.message = "[operator-drift] " + r.field + ": " + std::move(message);
  r.status = "-";
  return r;
}

void drift_of(const OperatorDeployment& d, const policy::PolicyConfig& policy,
              std::vector<AuditResult>& out) {
  const std::string who = "the operator in " + visible(d.namespace_) + "/" + visible(d.name);
  if (d.container.empty() && d.image.empty()) {
    out.push_back(drift(d, "spec.template.spec.containers",
                        "no container named kuberay-operator, and more than one container: " +
                            who + " cannot be compared with the policy"));
    return;
  }
  const std::string field = "spec.template.spec.containers[" + visible(d.container) + "]";
  const std::optional<policy::KubeRayVersion> version = tag_version(image_tag(d.image));
  if (!version) {
    out.push_back(drift(d, field + ".image",
                        "\"" + visible(d.image) + "\" has no version tag, so " + who +
                            " cannot be matched with kuberay.version " +
                            policy::kuberay::version_text(policy.kuberay.version) +
                            "; run the operator from a version tag (vMAJOR.MINOR.PATCH)"));
  } else if (*version != policy.kuberay.version) {
    out.push_back(drift(d, field + ".image",
                        who + " is " + policy::kuberay::version_text(*version) + " (" + visible(d.image) +
                            ") and the policy says kuberay.version " +
                            policy::kuberay::version_text(policy.kuberay.version) +
                            ", so admission judges by another operator's rules; set "
                            "kuberay.version: \"" +
                            policy::kuberay::version_text(*version) + "\" (or upgrade the operator)"));
  }
  // The gates as the operator runs them: its flag over its version's compiled defaults.
  policy::KubeRayConfig running;
  running.version = version.value_or(policy.kuberay.version);
  running.ray_job_deletion_policy_gate =
      policy::kuberay::feature_gate_default("RayJobDeletionPolicy", running.version).value_or(false);
  if (const std::optional<std::string> flag = feature_gates_flag(d.args)) {
    std::string_view rest = *flag;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string_view pair = trimmed(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      if (pair.empty()) {
        continue;
      }
      const std::size_t eq = pair.find('=');
      const std::optional<bool> on =
          eq == std::string_view::npos ? std::nullopt : go_bool(trimmed(pair.substr(eq + 1)));
      if (!on) {
        out.push_back(drift(d, field + ".args",
                            "--feature-gates has \"" + visible(std::string(pair)) +
                                "\", which is not GATE=true or GATE=false: the operator refuses "
                                "to start with it"));
        continue;
      }
      const std::string gate(trimmed(pair.substr(0, eq)));
      if (!policy::kuberay::feature_gate_default(gate, running.version)) {
        out.push_back(drift(d, field + ".args",
                            who + " is given feature gate " + visible(gate) + ", which KubeRay " +
                                policy::kuberay::version_text(running.version) +
                                " does not have: the operator refuses to start with it; remove "
                                "it from --feature-gates"));
        continue;
      }
      if (gate == "RayJobDeletionPolicy") {
        running.ray_job_deletion_policy_gate = *on;
      } else {
        running.feature_gates[gate] = *on;
      }
    }
  }
  for (const policy::kuberay::GateRow& g : policy::kuberay::feature_gates()) {
    if (!policy::kuberay::holds(g.span, running.version)) {
      continue;  // one row per gate and version range: the running version's rows decide
    }
    const bool op = policy::kuberay::feature_gate_on(running, g.name);
    const bool pol = policy::kuberay::feature_gate_on(policy.kuberay, g.name);
    if (op != pol) {
      out.push_back(drift(d, field + ".args",
                          who + " runs feature gate " + std::string(g.name) +
                              (op ? " on" : " off") + " and the policy says " +
                              (pol ? "on" : "off") + "; set kuberay.featureGates." +
                              std::string(g.name) + ": " + (op ? "true" : "false") +
                              " (or change --feature-gates)"));
    }
  }
  const bool deletes = d.delete_after_finish_env &&
                       ascii_lower(*d.delete_after_finish_env) == "true";
  const bool policy_deletes =
      policy.lifecycle.mode == policy::LifecycleMode::kOperatorDeletesRayJob;
  if (deletes != policy_deletes) {
    out.push_back(drift(
        d, field + ".env",
        deletes ? who + " deletes every finished RayJob itself (" + std::string(kDeleteAfterFinish) +
                      "=true) and the policy's lifecycle.mode is not operatorDeletesRayJob, so "
                      "failed runs are not kept longer than the policy says; set lifecycle.mode: "
                      "operatorDeletesRayJob, or remove the variable"
                : who + " does not set " + std::string(kDeleteAfterFinish) +
                      "=true, and the policy's lifecycle.mode operatorDeletesRayJob relies on it: "
                      "finished RayJobs stay and hold count/rayjobs.ray.io; set it on the "
                      "operator, or choose another lifecycle.mode"));
  }
}

}  // namespace

Result<ListPage<OperatorDeployment>> decode_operator_deployments(std::string_view text) {
  ListPage<OperatorDeployment> page;
  Result<std::string> token =
      decode_list_page(text, "", [&page](const Value& item, const Path& path) -> Status {
        OperatorDeployment d;
        RJG_RETURN_IF_ERROR(decode_deployment(item, path, d));
        page.items.push_back(std::move(d));
        return {};
      });
  if (!token) {
    return token.error();
  }
  page.continue_token = std::move(token.value());
  return page;
}

std::vector<AuditResult> operator_drift(const std::vector<OperatorDeployment>& deployments,
                                        const policy::PolicyConfig& policy) {
  std::vector<AuditResult> out;
  for (const OperatorDeployment& d : deployments) {
    drift_of(d, policy, out);
  }
  return out;
}

}  // namespace rjg::admission
