// decode_local_queue and decode_cluster_queue (see kueue_queue.hpp).
#include "admission/kueue_queue.hpp"

#include <optional>
#include <string_view>
#include <utility>

#include "admission/resource_quota.hpp"

namespace rjg::admission {
namespace {

using json::error_at;
using json::Path;
using json::Value;

// `object` is an object of `kind` (or names none): checks it and returns ok.
Status check_kind(const Value& object, const Path& path, std::string_view kind) {
  if (!object.IsObject()) {
    const std::string where = path.str();
    return invalid_argument((where.empty() ? "" : where + ": ") + "expected a " +
                            std::string(kind) + " object, got " + json::type_name(object));
  }
  RJG_RETURN_IF_ERROR(json::check_object(object, path));
  std::optional<std::string> got;
  RJG_RETURN_IF_ERROR(json::read_string(object, "kind", path, got));
  if (got && *got != kind) {
    return error_at(path.field("kind"), "expected " + std::string(kind) + ", got \"" + *got + "\"");
  }
  return {};
}

// Reads the non-empty string `key` of `object` (at `path`) into `out`.
Status required_string(const Value& object, std::string_view key, const Path& path,
                       std::string& out) {
  RJG_RETURN_IF_ERROR(json::read_string(object, key, path, out));
  if (out.empty()) {
    return error_at(path.field(key), "required string is missing");
  }
  return {};
}

// One flavor's resources[] into `out`.
Status decode_flavor(const Value& flavor, const Path& path, policy::ClusterQueueSpec& out) {
  RJG_RETURN_IF_ERROR(json::check_object(flavor, path));
  std::string name;
  RJG_RETURN_IF_ERROR(required_string(flavor, "name", path, name));
  RJG_ASSIGN_OR_RETURN(const Value* resources, json::read_array(flavor, "resources", path));
  if (resources == nullptr) {
    return {};
  }
  const Path rp = path.field("resources");
  for (rapidjson::SizeType i = 0; i < resources->Size(); ++i) {
    const Value& r = (*resources)[i];
    const Path ip = rp.index(i);
    RJG_RETURN_IF_ERROR(json::check_object(r, ip));
    policy::ClusterQueueSpec::ResourceQuota q;
    q.flavor = name;
    RJG_RETURN_IF_ERROR(required_string(r, "name", ip, q.resource));
    const Value* nominal = json::member(r, "nominalQuota");
    if (nominal == nullptr) {
      return error_at(ip.field("nominalQuota"), "required quantity is missing");
    }
    const Path np = ip.field("nominalQuota");
    RJG_ASSIGN_OR_RETURN(q.nominal, decode_quantity(*nominal, np));
    if (const Value* limit = json::member(r, "borrowingLimit"); limit != nullptr) {
      const Path bp = ip.field("borrowingLimit");
      RJG_ASSIGN_OR_RETURN(q.borrowing_limit, decode_quantity(*limit, bp));
    }
    out.quotas.push_back(std::move(q));
  }
  return {};
}

}  // namespace

Result<DecodedLocalQueue> decode_local_queue(const json::Value& object, const json::Path& path) {
  RJG_RETURN_IF_ERROR(check_kind(object, path, "LocalQueue"));
  DecodedLocalQueue out;
  RJG_ASSIGN_OR_RETURN(const Value* meta, json::read_required_object(object, "metadata", path));
  const Path mp = path.field("metadata");
  RJG_RETURN_IF_ERROR(required_string(*meta, "name", mp, out.name));
  RJG_RETURN_IF_ERROR(required_string(*meta, "namespace", mp, out.namespace_));
  RJG_ASSIGN_OR_RETURN(const Value* spec, json::read_required_object(object, "spec", path));
  const Path sp = path.field("spec");
  RJG_RETURN_IF_ERROR(required_string(*spec, "clusterQueue", sp, out.cluster_queue));
  return out;
}

Result<policy::ClusterQueueSpec> decode_cluster_queue(const json::Value& object,
                                                      const json::Path& path) {
  RJG_RETURN_IF_ERROR(check_kind(object, path, "ClusterQueue"));
  policy::ClusterQueueSpec out;
  RJG_ASSIGN_OR_RETURN(const Value* meta, json::read_required_object(object, "metadata", path));
  const Path mp = path.field("metadata");
  RJG_RETURN_IF_ERROR(required_string(*meta, "name", mp, out.name));
  RJG_ASSIGN_OR_RETURN(const Value* spec, json::read_object(object, "spec", path));
  if (spec == nullptr) {
    return out;  // no resource groups: it grants nothing quota-fit can judge
  }
  const Path sp = path.field("spec");
  std::string cohort;
  RJG_RETURN_IF_ERROR(json::read_string(*spec, "cohortName", sp, cohort));
  out.in_cohort = !cohort.empty();
  RJG_ASSIGN_OR_RETURN(const Value* groups, json::read_array(*spec, "resourceGroups", sp));
  if (groups == nullptr) {
    return out;
  }
  const Path gp = sp.field("resourceGroups");
  for (rapidjson::SizeType g = 0; g < groups->Size(); ++g) {
    const Value& group = (*groups)[g];
    const Path ip = gp.index(g);
    RJG_RETURN_IF_ERROR(json::check_object(group, ip));
    RJG_ASSIGN_OR_RETURN(const Value* flavors, json::read_array(group, "flavors", ip));
    if (flavors == nullptr) {
      continue;
    }
    const Path fp = ip.field("flavors");
    for (rapidjson::SizeType f = 0; f < flavors->Size(); ++f) {
      const Path one = fp.index(f);
      RJG_RETURN_IF_ERROR(decode_flavor((*flavors)[f], one, out));
    }
  }
  return out;
}

}  // namespace rjg::admission
