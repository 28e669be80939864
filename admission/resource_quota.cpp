// decode_resource_quota (see resource_quota.hpp).
#include "admission/resource_quota.hpp"

#include <array>
#include <utility>

#include "policy/quantity.hpp"

namespace rjg::admission {
namespace {

using json::error_at;
using json::Path;
using json::Value;

// Kubernetes' IsIntegerResourceName, as far as a quota's hard keys go: the object counts it
// lists, and `count/<resource>` (an extended resource name to it). Never more than it refuses.
bool integer_resource(std::string_view key) {
  static constexpr std::array<std::string_view, 9> kIntegers = {
      "pods",    "resourcequotas", "services",  "replicationcontrollers", "secrets",
      "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"};
  for (std::string_view k : kIntegers) {
    if (k == key) {
      return true;
    }
  }
  return key.starts_with("count/");
}

Status decode_hard(const Value& hard, const Path& path, policy::QuotaLimits& out) {
  for (auto it = hard.MemberBegin(); it != hard.MemberEnd(); ++it) {
    const std::string_view key = json::key_of(*it);
    const Path kp = path.field(key);
    RJG_ASSIGN_OR_RETURN(const policy::Quantity q, decode_quantity(it->value, kp));
    if (integer_resource(key) && q.nanos() % 1'000'000'000 != 0) {
      return error_at(kp, "must be an integer, got \"" + q.to_string() + "\"");
    }
    out.emplace(std::string(key), q);
  }
  return {};
}

Status decode_scope_selector(const Value& selector, const Path& path,
                             std::vector<policy::ResourceQuotaSpec::ScopeExpression>& out) {
  RJG_ASSIGN_OR_RETURN(const Value* expressions,
                       json::read_array(selector, "matchExpressions", path));
  if (expressions == nullptr) {
    return {};
  }
  const Path ep = path.field("matchExpressions");
  out.reserve(expressions->Size());
  for (rapidjson::SizeType i = 0; i < expressions->Size(); ++i) {
    const Value& e = (*expressions)[i];
    const Path ip = ep.index(i);
    RJG_RETURN_IF_ERROR(json::check_object(e, ip));
    policy::ResourceQuotaSpec::ScopeExpression expr;
    RJG_RETURN_IF_ERROR(json::read_string(e, "scopeName", ip, expr.scope_name));
    RJG_RETURN_IF_ERROR(json::read_string(e, "operator", ip, expr.op));
    RJG_RETURN_IF_ERROR(json::read_string_list(e, "values", ip, expr.values));
    if (expr.scope_name.empty()) {
      return error_at(ip.field("scopeName"), "required string is missing");
    }
    if (expr.op == "In" || expr.op == "NotIn") {
      if (expr.values.empty()) {
        return error_at(ip.field("values"),
                        "must be at least one value when operator is " + expr.op);
      }
    } else if (expr.op == "Exists" || expr.op == "DoesNotExist") {
      if (!expr.values.empty()) {
        return error_at(ip.field("values"), "must be no value when operator is " + expr.op);
      }
    } else {
      return error_at(ip.field("operator"), "expected In, NotIn, Exists or DoesNotExist, got \"" +
                                          expr.op + "\"");
    }
    out.push_back(std::move(expr));
  }
  return {};
}

Status decode_metadata(const Value& object, const Path& path, DecodedResourceQuota& out) {
  const Path mp = path.field("metadata");
  RJG_ASSIGN_OR_RETURN(const Value* meta, json::read_required_object(object, "metadata", path));
  for (const auto& [key, value] :
       {std::pair{"name", &out.spec.name}, std::pair{"namespace", &out.namespace_}}) {
    RJG_RETURN_IF_ERROR(json::read_string(*meta, key, mp, *value));
    if (value->empty()) {
      return error_at(mp.field(key), "required string is missing");
    }
  }
  return {};
}

Status decode_spec(const Value& object, const Path& path, policy::ResourceQuotaSpec& out) {
  RJG_ASSIGN_OR_RETURN(const Value* spec, json::read_object(object, "spec", path));
  if (spec == nullptr) {
    return {};  // a quota without spec limits nothing
  }
  const Path sp = path.field("spec");
  RJG_ASSIGN_OR_RETURN(const Value* hard, json::read_object(*spec, "hard", sp));
  if (hard != nullptr) {
    RJG_RETURN_IF_ERROR(decode_hard(*hard, sp.field("hard"), out.hard));
  }
  RJG_RETURN_IF_ERROR(json::read_string_list(*spec, "scopes", sp, out.scopes));
  RJG_ASSIGN_OR_RETURN(const Value* selector, json::read_object(*spec, "scopeSelector", sp));
  if (selector != nullptr) {
    RJG_RETURN_IF_ERROR(
        decode_scope_selector(*selector, sp.field("scopeSelector"), out.scope_selector));
  }
  return {};
}

}  // namespace

Result<policy::Quantity> decode_quantity(const json::Value& value, const json::Path& path) {
  std::string text;
  if (value.IsString()) {
    text.assign(value.GetString(), value.GetStringLength());
  } else if (value.IsInt64()) {
    text = std::to_string(value.GetInt64());
  } else if (value.IsUint64()) {
    text = std::to_string(value.GetUint64());
  } else {
    return json::type_error(path, "a quantity (string or integer)", value);
  }
  const std::optional<policy::Quantity> q = policy::Quantity::parse(text);
  if (!q) {
    return error_at(path,
                    "\"" + text + "\" is not a Kubernetes quantity (e.g. \"16\", 500m, 64Gi)");
  }
  if (*q < policy::Quantity()) {
    return error_at(path, "must be greater than or equal to 0, got \"" + text + "\"");
  }
  return *q;
}

Result<DecodedResourceQuota> decode_resource_quota(const json::Value& object,
                                                   const json::Path& path) {
  if (!object.IsObject()) {
    const std::string where = path.str();
    return invalid_argument((where.empty() ? "" : where + ": ") +
                            "expected a ResourceQuota object, got " + json::type_name(object));
  }
  RJG_RETURN_IF_ERROR(json::check_object(object, path));
  for (const auto& [key, want] :
       {std::pair{"kind", "ResourceQuota"}, std::pair{"apiVersion", "v1"}}) {
    std::optional<std::string> got;
    RJG_RETURN_IF_ERROR(json::read_string(object, key, path, got));
    if (got && *got != want) {
      return error_at(path.field(key), std::string("expected ") + want + ", got \"" + *got + "\"");
    }
  }
  DecodedResourceQuota out;
  RJG_RETURN_IF_ERROR(decode_metadata(object, path, out));
  RJG_RETURN_IF_ERROR(decode_spec(object, path, out.spec));
  return out;
}

Result<DecodedResourceQuota> decode_resource_quota(const json::Value& object) {
  const Path root("");
  return decode_resource_quota(object, root);
}

Result<DecodedResourceQuota> decode_resource_quota(std::string_view text) {
  RJG_ASSIGN_OR_RETURN(json::ParsedJson parsed, json::parse_in_place(text));
  return decode_resource_quota(parsed.root());
}

}  // namespace rjg::admission
