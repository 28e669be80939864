// The policy file (see policy_file.hpp). The YAML goes through the same YAML -> JSON conversion
// as manifests, then every key is checked against the schema below; nothing is ignored.
#include "admission/policy_file.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <sstream>

#include "admission/json_reader.hpp"
#include "admission/policy_schema.hpp"
#include "admission/yaml_to_json.hpp"
#include "common/file.hpp"
#include "policy/image_ref.hpp"
#include "policy/k8s_names.hpp"
#include "policy/kuberay/catalogue.hpp"
#include "policy/kuberay/validate.hpp"
#include "policy/pod_footprint.hpp"

namespace rjg::admission {

// Defined in the .cpp that CMake generates from default_policy.yaml.
extern const char* const kDefaultPolicyYaml;

namespace {

using json::error_at;
using json::Path;
using json::Value;
using policy::LifecycleMode;
using policy::RuleAction;

// Every lifecycle mode by its name in the policy: the one table that decoding (read_mode) and
// the canonical form (mode_name) read.
constexpr std::array<std::pair<std::string_view, LifecycleMode>, 4> kModes = {{
    {"deletionRules", LifecycleMode::kDeletionRules},
    {"deletionPolicy", LifecycleMode::kDeletionPolicy},
    {"operatorDeletesRayJob", LifecycleMode::kOperatorDeletesRayJob},
    {"reaper", LifecycleMode::kReaper},
}};

std::string_view mode_name(LifecycleMode m) {
  for (const auto& [name, mode] : kModes) {
    if (mode == m) {
      return name;
    }
  }
  return "?";
}

// Every key of `obj` must be in `known`.
Status only_keys(const Value& obj, const Path& path,
                 std::initializer_list<std::string_view> known) {
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    const std::string_view k = json::key_of(*it);
    bool found = false;
    for (std::string_view x : known) {
      found = found || x == k;
    }
    if (!found) {
      std::string list;
      for (std::string_view x : known) {
        list += list.empty() ? "" : ", ";
        list += x;
      }
      return error_at(path.field(json::key_of(*it)), "unknown key; expected one of: " + list);
    }
  }
  return {};
}

// An object member that must be a mapping when present. Sets `out` to nullptr when absent.
Status object_member(const Value& obj, std::string_view key, const Path& path, const Value*& out) {
  auto r = json::read_object(obj, key, path);
  if (!r.ok()) {
    return r.error();
  }
  out = r.value();
  return {};
}

Status read_seconds(const Value& obj, std::string_view key, const Path& path, long long& out,
                    long long min) {
  std::optional<std::int64_t> v;
  RJG_RETURN_IF_ERROR(json::read_int64(obj, key, path, v));
  if (!v) {
    return {};
  }
  if (*v < min || *v > std::numeric_limits<std::int32_t>::max()) {
    return error_at(path.field(key), "must be between " + std::to_string(min) +
                                         " and 2147483647, got " + std::to_string(*v));
  }
  out = *v;
  return {};
}

// An image pattern that can match no image (an unclosed `[`...) would allow or deny nothing.
Status check_pattern(const std::string& pattern, const Path& path) {
  const Status s = policy::check_glob_pattern(pattern);
  if (!s.ok()) {
    return error_at(path,
                    "pattern \"" + pattern + "\" can never match an image: " + s.error().message);
  }
  return {};
}

Status read_patterns(const Value& obj, std::string_view key, const Path& path,
                     std::vector<std::string>& out) {
  RJG_RETURN_IF_ERROR(json::read_string_list(obj, key, path, out));
  const Path list = path.field(key);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].empty()) {
      return error_at(list.index(i), "an image pattern must not be empty");
    }
    RJG_RETURN_IF_ERROR(check_pattern(out[i], list.index(i)));
  }
  return {};
}

Status read_min_version(const Value& obj, std::string_view key, const Path& path,
                        std::string& out) {
  std::optional<std::string> v;
  RJG_RETURN_IF_ERROR(json::read_string(obj, key, path, v));
  if (!v) {
    return {};
  }
  bool ok = !v->empty() && v->front() != '.' && v->back() != '.';
  for (char c : *v) {
    ok = ok && ((c >= '0' && c <= '9') || c == '.');
  }
  if (!ok || v->find("..") != std::string::npos) {
    return error_at(path.field(key), "expected a version like \"1.34.41\", got \"" + *v + "\"");
  }
  out = *v;
  return {};
}

Status decode_kuberay(const Value& k, const Path& path, policy::KubeRayConfig& out,
                      std::optional<bool>& gate) {
  RJG_RETURN_IF_ERROR(only_keys(k, path, {"version", "featureGates"}));
  if (const Value* v = json::member(k, "version")) {
    if (!v->IsString()) {
      return json::type_error(path.field("version"), "a quoted string like \"1.6\"", *v);
    }
    const std::string text = v->GetString();
    int major = -1;
    int minor = -1;
    const std::size_t dot = text.find('.');
    auto number = [](std::string_view s) {
      if (s.empty() || s.size() > 3 ||
          s.find_first_not_of("0123456789") != std::string_view::npos) {
        return -1;
      }
      return std::stoi(std::string(s));
    };
    if (dot != std::string::npos) {
      major = number(std::string_view(text).substr(0, dot));
      minor = number(std::string_view(text).substr(dot + 1));
    }
    if (major < 0 || minor < 0) {
      return error_at(path.field("version"),
                "expected MAJOR.MINOR such as \"1.6\", got \"" + text + "\"");
    }
    if (!policy::kuberay::supported({major, minor})) {
      return unsupported(path.field("version").str() + ": KubeRay " + text +
                         " is not supported; supported versions are " +
                         policy::kuberay::version_text(policy::kuberay::kOldest) + " to " +
                         policy::kuberay::version_text(policy::kuberay::kNewest));
    }
    out.version = policy::KubeRayVersion{major, minor};
  }
  const Value* gates = nullptr;
  RJG_RETURN_IF_ERROR(object_member(k, "featureGates", path, gates));
  if (gates != nullptr) {
    // Every gate of the version is accepted (policy/kuberay/catalogue.cpp), none of another.
    const Path gp = path.field("featureGates");
    for (auto it = gates->MemberBegin(); it != gates->MemberEnd(); ++it) {
      const std::string_view name = json::key_of(*it);
      if (!policy::kuberay::feature_gate_default(name, out.version)) {
        const std::string vt = policy::kuberay::version_text(out.version);
        const std::string known = policy::kuberay::feature_gate_names(out.version);
        bool elsewhere = false;
        for (const policy::kuberay::GateRow& g : policy::kuberay::feature_gates()) {
          elsewhere = elsewhere || g.name == name;
        }
        return invalid_argument(
            gp.field(name).str() +
            (elsewhere ? ": the gate does not exist in KubeRay " + vt
                       : std::string(": unknown key: no KubeRay version has this feature gate")) +
            " (kuberay.version " + vt + " has " +
            (known.empty() ? std::string("no feature gates") : "the gates " + known) + ")");
      }
      std::optional<bool> value;
      RJG_RETURN_IF_ERROR(json::read_bool(*gates, name, gp, value));
      if (name == "RayJobDeletionPolicy") {
        gate = value;
      } else if (value) {
        out.feature_gates.emplace(std::string(name), *value);
      }
    }
  }
  return {};
}

// Reads `key` of `obj`, when present, as one of `allowed` (in the order the error lists them);
// any other text is an error naming the allowed modes, followed by `why` when it is not empty.
Status read_mode(const Value& obj, std::string_view key, const Path& path,
                 std::initializer_list<LifecycleMode> allowed, std::string_view why,
                 LifecycleMode& out) {
  std::optional<std::string> text;
  RJG_RETURN_IF_ERROR(json::read_string(obj, key, path, text));
  if (!text) {
    return {};
  }
  std::string names;
  std::size_t i = 0;
  for (const LifecycleMode m : allowed) {
    if (mode_name(m) == *text) {
      out = m;
      return {};
    }
    names += i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ";
    names += mode_name(m);
    ++i;
  }
  return error_at(path.field(key), "expected " + names + ", got \"" + *text + "\"" +
                                 (why.empty() ? "" : " (" + std::string(why) + ")"));
}

Status decode_lifecycle(const Value& l, const Path& path, policy::LifecycleConfig& out) {
  RJG_RETURN_IF_ERROR(
      only_keys(l, path,
                {"mode", "maxSucceededTTLSeconds", "minFailedTTLSeconds", "maxFailedTTLSeconds",
                 "maxActiveDeadlineSeconds", "maxPreRunningDeadlineSeconds", "maxBackoffLimit",
                 "allowClusterSelector"}));
  RJG_RETURN_IF_ERROR(read_mode(l, "mode", path,
                                {LifecycleMode::kDeletionRules, LifecycleMode::kDeletionPolicy,
                                 LifecycleMode::kOperatorDeletesRayJob, LifecycleMode::kReaper},
                                "", out.mode));
  RJG_RETURN_IF_ERROR(
      read_seconds(l, "maxSucceededTTLSeconds", path, out.max_succeeded_ttl_seconds, 0));
  RJG_RETURN_IF_ERROR(read_seconds(l, "minFailedTTLSeconds", path, out.min_failed_ttl_seconds, 0));
  RJG_RETURN_IF_ERROR(read_seconds(l, "maxFailedTTLSeconds", path, out.max_failed_ttl_seconds, 0));
  RJG_RETURN_IF_ERROR(
      read_seconds(l, "maxActiveDeadlineSeconds", path, out.max_active_deadline_seconds, 1));
  RJG_RETURN_IF_ERROR(read_seconds(l, "maxPreRunningDeadlineSeconds", path,
                                   out.max_pre_running_deadline_seconds, 1));
  RJG_RETURN_IF_ERROR(read_seconds(l, "maxBackoffLimit", path, out.max_backoff_limit, 0));
  RJG_RETURN_IF_ERROR(json::read_bool(l, "allowClusterSelector", path, out.allow_cluster_selector));
  if (out.min_failed_ttl_seconds <= out.max_succeeded_ttl_seconds) {
    return error_at(path.field("minFailedTTLSeconds"),
              "must be greater than lifecycle.maxSucceededTTLSeconds (" +
                  std::to_string(out.max_succeeded_ttl_seconds) + "), got " +
                  std::to_string(out.min_failed_ttl_seconds) +
                  "; failed runs must stay longer than successful ones");
  }
  if (out.min_failed_ttl_seconds > out.max_failed_ttl_seconds) {
    return error_at(path.field("maxFailedTTLSeconds"),
              "must be at least lifecycle.minFailedTTLSeconds (" +
                  std::to_string(out.min_failed_ttl_seconds) + "), got " +
                  std::to_string(out.max_failed_ttl_seconds));
  }
  return {};
}

Status decode_images(const Value& i, const Path& path, policy::ImagesConfig& out) {
  RJG_RETURN_IF_ERROR(only_keys(i, path, {"allow", "stock", "deny", "requireDigest"}));
  RJG_RETURN_IF_ERROR(read_patterns(i, "allow", path, out.allow));
  const Value* stock = nullptr;
  RJG_RETURN_IF_ERROR(object_member(i, "stock", path, stock));
  if (stock != nullptr) {
    const Path sp = path.field("stock");
    RJG_RETURN_IF_ERROR(only_keys(*stock, sp, {"patterns", "botocoreMin", "boto3Min"}));
    RJG_RETURN_IF_ERROR(read_patterns(*stock, "patterns", sp, out.stock_patterns));
    RJG_RETURN_IF_ERROR(read_min_version(*stock, "botocoreMin", sp, out.botocore_min));
    RJG_RETURN_IF_ERROR(read_min_version(*stock, "boto3Min", sp, out.boto3_min));
  }
  auto deny = json::read_array(i, "deny", path);
  if (!deny.ok()) {
    return deny.error();
  }
  if (deny.value() != nullptr) {
    const Path dp = path.field("deny");
    out.deny.clear();
    for (rapidjson::SizeType n = 0; n < deny.value()->Size(); ++n) {
      const Value& e = (*deny.value())[n];
      const Path ep = dp.index(n);
      if (!e.IsObject()) {
        return json::type_error(ep, "an object with pattern and reason", e);
      }
      RJG_RETURN_IF_ERROR(only_keys(e, ep, {"pattern", "reason"}));
      policy::ImageDenyEntry entry;
      RJG_RETURN_IF_ERROR(json::read_string(e, "pattern", ep, entry.pattern));
      RJG_RETURN_IF_ERROR(json::read_string(e, "reason", ep, entry.reason));
      if (entry.pattern.empty()) {
        return error_at(ep.field("pattern"), "required, a non-empty image pattern");
      }
      RJG_RETURN_IF_ERROR(check_pattern(entry.pattern, ep.field("pattern")));
      if (entry.reason.empty()) {
        return error_at(ep.field("reason"), "required: say why the image is refused");
      }
      out.deny.push_back(std::move(entry));
    }
  }
  RJG_RETURN_IF_ERROR(json::read_bool(i, "requireDigest", path, out.require_digest));
  return {};
}

Status decode_limits(const Value& obj, const Path& path, policy::QuotaLimits& out) {
  out.clear();
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    const std::string key(json::key_of(*it));
    const Path kp = path.field(json::key_of(*it));
    if (!policy::is_supported_quota_key(key)) {
      return error_at(kp,
                "unsupported quota key; use pods, count/pods, requests.cpu, requests.memory, "
                "limits.cpu, limits.memory, requests.ephemeral-storage, "
                "limits.ephemeral-storage or requests.<extended resource>");
    }
    std::string text;
    if (it->value.IsString()) {
      text = it->value.GetString();
    } else if (it->value.IsInt64()) {
      text = std::to_string(it->value.GetInt64());
    } else {
      return json::type_error(kp, "a quantity such as \"16\" or 64Gi", it->value);
    }
    std::optional<policy::Quantity> q = policy::Quantity::parse(text);
    if (!q) {
      return error_at(kp,
                      "\"" + text + "\" is not a Kubernetes quantity (e.g. \"16\", 500m, 64Gi)");
    }
    if (q->nanos() < 0) {
      return error_at(kp, "must not be negative, got \"" + text + "\"");
    }
    out[key] = *q;
  }
  return {};
}

// kueue.localQueues: "<namespace>/<LocalQueue>" -> what its ClusterQueue can ever grant one
// workload. Kueue's quota counts requests and pods, so only those keys.
Status decode_local_queues(const Value& q, const Path& path,
                           std::map<std::string, policy::QuotaLimits>& out) {
  for (auto it = q.MemberBegin(); it != q.MemberEnd(); ++it) {
    const std::string key(json::key_of(*it));
    const Path kp = path.field(json::key_of(*it));
    const std::size_t slash = key.find('/');
    if (slash == std::string::npos ||
        !policy::is_dns1123_label(std::string_view(key).substr(0, slash)) ||
        !policy::is_dns1123_subdomain(std::string_view(key).substr(slash + 1))) {
      return error_at(kp, "expected <namespace>/<LocalQueue name>, e.g. team-a/batch");
    }
    if (!it->value.IsObject()) {
      return json::type_error(kp, "a mapping of quota keys to quantities", it->value);
    }
    policy::QuotaLimits limits;
    RJG_RETURN_IF_ERROR(decode_limits(it->value, kp, limits));
    for (const auto& [name, quantity] : limits) {
      const std::string canonical = policy::canonical_quota_key(name);
      if (canonical != "pods" && !canonical.starts_with("requests.")) {
        return error_at(kp.field(name),
                        "Kueue's quota counts requests and pods; use pods or requests.<resource>");
      }
    }
    out[key] = std::move(limits);
  }
  return {};
}

Status decode_kueue(const Value& k, const Path& path, policy::KueueConfig& out) {
  RJG_RETURN_IF_ERROR(
      only_keys(k, path, {"lifecycleMode", "manageJobsWithoutQueueName", "localQueues"}));
  // deletionRules and deletionPolicy cannot carry a Kueue RayJob.
  RJG_RETURN_IF_ERROR(read_mode(k, "lifecycleMode", path,
                                {LifecycleMode::kReaper, LifecycleMode::kOperatorDeletesRayJob},
                                "Kueue demands shutdownAfterJobFinishes: true, which KubeRay refuses "
                                "next to deletion rules",
                                out.lifecycle_mode));
  RJG_RETURN_IF_ERROR(
      json::read_bool(k, "manageJobsWithoutQueueName", path, out.manage_jobs_without_queue_name));
  const Value* queues = nullptr;
  RJG_RETURN_IF_ERROR(object_member(k, "localQueues", path, queues));
  return queues == nullptr
             ? Status{}
             : decode_local_queues(*queues, path.field("localQueues"), out.local_queues);
}

Status decode_quota(const Value& q, const Path& path, policy::QuotaConfig& out) {
  RJG_RETURN_IF_ERROR(only_keys(q, path, {"source", "unknownNamespace", "default", "namespaces"}));
  std::optional<std::string> source;
  RJG_RETURN_IF_ERROR(json::read_string(q, "source", path, source));
  if (source) {
    if (*source == "policy") {
      out.source = policy::QuotaConfig::Source::kPolicy;
    } else if (*source == "cluster") {
      out.source = policy::QuotaConfig::Source::kCluster;
    } else {
      return error_at(path.field("source"),
                "expected policy or cluster, got \"" + *source +
                    "\" (policy: quota.namespaces and quota.default; cluster: the namespace's "
                    "ResourceQuota objects)");
    }
  }
  std::optional<std::string> unknown;
  RJG_RETURN_IF_ERROR(json::read_string(q, "unknownNamespace", path, unknown));
  if (unknown) {
    if (*unknown == "deny") {
      out.unknown_namespace = policy::QuotaConfig::UnknownNamespace::kDeny;
    } else if (*unknown == "useDefault") {
      out.unknown_namespace = policy::QuotaConfig::UnknownNamespace::kUseDefault;
    } else {
      return error_at(path.field("unknownNamespace"),
                "expected deny or useDefault, got \"" + *unknown + "\"");
    }
  }
  const Value* def = nullptr;
  RJG_RETURN_IF_ERROR(object_member(q, "default", path, def));
  if (def != nullptr) {
    RJG_RETURN_IF_ERROR(decode_limits(*def, path.field("default"), out.default_limits));
  }
  const Value* namespaces = nullptr;
  RJG_RETURN_IF_ERROR(object_member(q, "namespaces", path, namespaces));
  if (namespaces != nullptr) {
    const Path np = path.field("namespaces");
    for (auto it = namespaces->MemberBegin(); it != namespaces->MemberEnd(); ++it) {
      const Path nsp = np.field(json::key_of(*it));
      if (!it->value.IsObject()) {
        return json::type_error(nsp, "a mapping of quota keys to quantities", it->value);
      }
      policy::QuotaLimits limits;
      RJG_RETURN_IF_ERROR(decode_limits(it->value, nsp, limits));
      out.namespaces[it->name.GetString()] = std::move(limits);
    }
  }
  return {};
}

Status decode_rules(const Value& r, const Path& path, policy::PolicyConfig& out) {
  for (auto it = r.MemberBegin(); it != r.MemberEnd(); ++it) {
    const Path rp = path.field(json::key_of(*it));
    const std::optional<policy::RuleId> id = policy::rule_id_from_name(it->name.GetString());
    if (!id) {
      std::string list;
      for (policy::RuleId known : policy::kAllRules) {
        list += list.empty() ? "" : ", ";
        list += policy::rule_id_name(known);
      }
      return error_at(rp, "unknown rule id; expected one of: " + list);
    }
    if (it->value.IsBool()) {
      // YAML 1.1 (kubectl's YAML, and ours) reads an unquoted `off` as the boolean false, so
      // false is the action off; true (`on`, `yes`) names no action and is refused.
      if (it->value.GetBool()) {
        return error_at(rp, "true (YAML reads an unquoted on, yes, y or true so) is not an action; "
                      "write enforce, warn or off");
      }
      out.rule_actions[static_cast<std::size_t>(*id)] = RuleAction::kOff;
      continue;
    }
    if (!it->value.IsString()) {
      return json::type_error(rp, "enforce, warn or off", it->value);
    }
    const std::string_view action = it->value.GetString();
    RuleAction a = RuleAction::kEnforce;
    if (action == "enforce") {
      a = RuleAction::kEnforce;
    } else if (action == "warn") {
      a = RuleAction::kWarn;
    } else if (action == "off") {
      a = RuleAction::kOff;
    } else {
      return error_at(rp, "expected enforce, warn or off, got \"" + std::string(action) + "\"");
    }
    out.rule_actions[static_cast<std::size_t>(*id)] = a;
  }
  return {};
}

Status decode_root(const Value& root, policy::PolicyConfig& out) {
  const Path path("");
  if (!root.IsObject()) {
    return json::type_error(path, "a mapping (the policy document)", root);
  }
  RJG_RETURN_IF_ERROR(only_keys(
      root, path,
      {"apiVersion", "kind", "kuberay", "lifecycle", "kueue", "images", "quota", "rules"}));
  std::string api_version;
  std::string kind;
  RJG_RETURN_IF_ERROR(json::read_string(root, "apiVersion", path, api_version));
  RJG_RETURN_IF_ERROR(json::read_string(root, "kind", path, kind));
  if (api_version != "rayjob-guard.io/v1") {
    return invalid_argument("apiVersion: expected rayjob-guard.io/v1, got \"" + api_version + "\"");
  }
  if (kind != "Policy") {
    return invalid_argument("kind: expected Policy, got \"" + kind + "\"");
  }
  const Value* section = nullptr;
  std::optional<bool> gate;
  RJG_RETURN_IF_ERROR(object_member(root, "kuberay", path, section));
  if (section != nullptr) {
    RJG_RETURN_IF_ERROR(decode_kuberay(*section, path.field("kuberay"), out.kuberay, gate));
  }
  const policy::KubeRayVersion v = out.kuberay.version;
  out.kuberay.ray_job_deletion_policy_gate =
      gate.value_or(policy::kuberay::feature_gate_default("RayJobDeletionPolicy", v).value_or(false));
  RJG_RETURN_IF_ERROR(object_member(root, "lifecycle", path, section));
  if (section != nullptr) {
    RJG_RETURN_IF_ERROR(decode_lifecycle(*section, path.field("lifecycle"), out.lifecycle));
  }
  RJG_RETURN_IF_ERROR(object_member(root, "kueue", path, section));
  if (section != nullptr) {
    RJG_RETURN_IF_ERROR(decode_kueue(*section, path.field("kueue"), out.kueue));
  }
  RJG_RETURN_IF_ERROR(object_member(root, "images", path, section));
  if (section != nullptr) {
    RJG_RETURN_IF_ERROR(decode_images(*section, path.field("images"), out.images));
  }
  RJG_RETURN_IF_ERROR(object_member(root, "quota", path, section));
  if (section != nullptr) {
    RJG_RETURN_IF_ERROR(decode_quota(*section, path.field("quota"), out.quota));
  }
  RJG_RETURN_IF_ERROR(object_member(root, "rules", path, section));
  if (section != nullptr) {
    RJG_RETURN_IF_ERROR(decode_rules(*section, path.field("rules"), out));
  }
  return policy::kuberay::validate(out);
}

const char* action_name(RuleAction a) {
  switch (a) {
    case RuleAction::kEnforce:
      return "enforce";
    case RuleAction::kWarn:
      return "warn";
    case RuleAction::kOff:
      return "off";
  }
  return "?";
}

// One line per setting in a fixed order, values in normalised form (quantities by value, every
// rule listed), with string values length-prefixed so that no text can forge another line.
std::string canonical_form(const policy::PolicyConfig& c) {
  std::ostringstream o;
  auto str = [&o](std::string_view s) { o << s.size() << ':' << s; };
  auto list = [&](const char* name, const std::vector<std::string>& items) {
    o << name << '=' << items.size();
    for (const std::string& s : items) {
      o << ' ';
      str(s);
    }
    o << '\n';
  };
  auto limits = [&o](const policy::QuotaLimits& l) {
    o << l.size();
    for (const auto& [k, q] : l) {
      o << ' ' << k.size() << ':' << k << '=' << q.to_string();
    }
    o << '\n';
  };
  o << "rayjob-guard.io/v1 Policy\n";
  o << "kuberay.version=" << policy::kuberay::version_text(c.kuberay.version) << '\n';
  o << "kuberay.gate=" << c.kuberay.ray_job_deletion_policy_gate << '\n';
  for (const auto& [name, on] : c.kuberay.feature_gates) {
    o << "kuberay.featureGates." << name << '=' << on << '\n';
  }
  const policy::LifecycleConfig& l = c.lifecycle;
  o << "lifecycle=" << mode_name(l.mode) << ' ' << l.max_succeeded_ttl_seconds << ' '
    << l.min_failed_ttl_seconds << ' ' << l.max_failed_ttl_seconds << ' '
    << l.max_active_deadline_seconds << ' ' << l.max_backoff_limit << ' '
    << l.allow_cluster_selector << '\n';
  // Written only when it differs from its default, so every policy that leaves it there keeps the
  // hash it had before the key existed (stored audit events still name the same policy).
  if (l.max_pre_running_deadline_seconds != policy::LifecycleConfig{}.max_pre_running_deadline_seconds) {
    o << "lifecycle.maxPreRunningDeadlineSeconds=" << l.max_pre_running_deadline_seconds << '\n';
  }
  // The kueue section and the kueue-webhook rule's action, likewise, only when not the default.
  if (c.kueue.lifecycle_mode != policy::KueueConfig{}.lifecycle_mode ||
      c.kueue.manage_jobs_without_queue_name) {
    o << "kueue=" << mode_name(c.kueue.lifecycle_mode) << ' '
      << c.kueue.manage_jobs_without_queue_name << '\n';
  }
  for (const auto& [queue, l2] : c.kueue.local_queues) {
    o << "kueue.localQueue ";
    str(queue);
    o << '=';
    limits(l2);
  }
  list("images.allow", c.images.allow);
  list("images.stock.patterns", c.images.stock_patterns);
  o << "images.stock.min=";
  str(c.images.botocore_min);
  o << ' ';
  str(c.images.boto3_min);
  o << "\nimages.deny=" << c.images.deny.size();
  for (const policy::ImageDenyEntry& e : c.images.deny) {
    o << ' ';
    str(e.pattern);
    o << ' ';
    str(e.reason);
  }
  o << "\nimages.requireDigest=" << c.images.require_digest << '\n';
  // quota.source only when it is cluster, so every policy without it keeps its hash.
  if (c.quota.source == policy::QuotaConfig::Source::kCluster) {
    o << "quota.source=cluster\n";
  }
  o << "quota.unknownNamespace="
    << (c.quota.unknown_namespace == policy::QuotaConfig::UnknownNamespace::kDeny ? "deny"
                                                                                  : "useDefault")
    << "\nquota.default=";
  limits(c.quota.default_limits);
  for (const auto& [ns, l2] : c.quota.namespaces) {
    o << "quota.namespace ";
    str(ns);
    o << '=';
    limits(l2);
  }
  for (policy::RuleId id : policy::kAllRules) {
    if (id == policy::RuleId::kKueueWebhook && c.action(id) == policy::RuleAction::kEnforce) {
      continue;
    }
    o << "rule " << policy::rule_id_name(id) << '=' << action_name(c.action(id)) << '\n';
  }
  return o.str();
}

std::string sha256_prefix16(const std::string& data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &len, EVP_sha256(), nullptr) != 1) {
    return {};
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < 8 && i < len; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0x0F];
  }
  return out;
}

}  // namespace

Result<LoadedPolicy> decode_policy(std::string_view yaml_text) {
  Result<std::vector<YamlDocument>> docs = yaml_to_json(yaml_text);
  if (!docs.ok()) {
    return docs.error();
  }
  if (docs.value().size() != 1) {
    return invalid_argument("expected exactly one YAML document in the policy, got " +
                            std::to_string(docs.value().size()));
  }
  LoadedPolicy loaded;
  Status st = decode_root(docs.value().front().doc, loaded.config);
  if (!st.ok()) {
    return st.error();
  }
  // The schema the Helm chart validates values with (admission/policy.schema.json): a policy
  // helm install accepts is one the pods load, and the reverse.
  RJG_RETURN_IF_ERROR(validate_policy_schema(docs.value().front().doc));
  loaded.hash = sha256_prefix16(canonical_form(loaded.config));
  if (loaded.hash.empty()) {
    return internal_error("SHA-256 of the policy failed in OpenSSL");
  }
  return loaded;
}

std::string_view default_policy_yaml() { return kDefaultPolicyYaml; }

Result<LoadedPolicy> load_policy_file(const std::string& path) {
  Result<std::string> text = read_file(path);
  if (!text.ok()) {
    return Error{text.error().code, "policy file " + text.error().message};
  }
  Result<LoadedPolicy> policy = decode_policy(text.value());
  if (!policy.ok()) {
    return Error{policy.error().code, "policy file " + path + ": " + policy.error().message};
  }
  return policy;
}

Result<LoadedPolicy> load_policy_or_default(const std::string& path) {
  return path.empty() ? decode_policy(default_policy_yaml()) : load_policy_file(path);
}

}  // namespace rjg::admission
