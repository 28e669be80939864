// decode_review (see decode_review.hpp).
#include "admission/decode_review.hpp"

#include "admission/decode_rayjob.hpp"
#include "admission/json_reader.hpp"

namespace rjg::admission {
namespace {

using json::Path;
using json::Value;

constexpr std::string_view kApiVersion = "admission.k8s.io/v1";

std::optional<policy::Operation> parse_operation(std::string_view op) {
  if (op == "CREATE") {
    return policy::Operation::kCreate;
  }
  if (op == "UPDATE") {
    return policy::Operation::kUpdate;
  }
  if (op == "DELETE") {
    return policy::Operation::kDelete;
  }
  if (op == "CONNECT") {
    return policy::Operation::kConnect;
  }
  return std::nullopt;
}

// Reads the name of a RayJob object without decoding it: metadata.name when it is a string.
Status object_name(const Value* object, const Path& path, std::string& out) {
  if (object == nullptr || !object->IsObject()) {
    return {};
  }
  auto meta = json::read_object(*object, "metadata", path);
  if (!meta.ok()) {
    return meta.error();
  }
  if (meta.value() == nullptr) {
    return {};
  }
  return json::read_string(*meta.value(), "name", path.field("metadata"), out);
}

Status check_envelope(const Value& root, const Path& path) {
  if (!root.IsObject()) {
    return json::type_error(path, "an AdmissionReview object", root);
  }
  RJG_RETURN_IF_ERROR(json::check_object(root, path));
  std::string api_version;
  std::string kind;
  Status st = json::read_string(root, "apiVersion", path, api_version);
  if (!st.ok()) {
    return st;
  }
  st = json::read_string(root, "kind", path, kind);
  if (!st.ok()) {
    return st;
  }
  if (api_version == "admission.k8s.io/v1beta1") {
    return unsupported(
        "apiVersion: admission.k8s.io/v1beta1 is not supported; register the webhook with "
        "admissionReviewVersions: [\"v1\"]");
  }
  if (api_version != kApiVersion) {
    return invalid_argument("apiVersion: expected \"admission.k8s.io/v1\", got \"" + api_version +
                            "\"");
  }
  if (kind != "AdmissionReview") {
    return invalid_argument("kind: expected \"AdmissionReview\", got \"" + kind + "\"");
  }
  return {};
}

}  // namespace

Result<DecodedReview> decode_review(std::string_view body) {
  Result<json::ParsedJson> parsed = json::parse_in_place(body);
  if (!parsed.ok()) {
    return parsed.error();
  }
  const Value& doc = parsed.value().root();
  const Path root("");
  Status st = check_envelope(doc, root);
  if (!st.ok()) {
    return st.error();
  }
  auto request_r = json::read_object(doc, "request", root);
  if (!request_r.ok()) {
    return request_r.error();
  }
  if (request_r.value() == nullptr) {
    return invalid_argument("request: required, the AdmissionReview has no request");
  }
  const Value& req = *request_r.value();
  const Path rp = root.field("request");

  DecodedReview out;
  const Value* uid = json::member(req, "uid");
  if (uid == nullptr) {
    return invalid_argument("request.uid: required");
  }
  if (!uid->IsString()) {
    return json::type_error(rp.field("uid"), "a string", *uid);
  }
  out.uid.assign(uid->GetString(), uid->GetStringLength());
  if (out.uid.empty()) {
    return invalid_argument("request.uid: must not be empty");
  }

  RJG_RETURN_IF_ERROR(json::read_string(req, "operation", rp, out.operation));
  const std::optional<policy::Operation> op = parse_operation(out.operation);
  if (!op) {
    return invalid_argument(
        "request.operation: expected CREATE, UPDATE, DELETE or CONNECT, got \"" + out.operation +
        "\"");
  }
  out.request.operation = *op;
  RJG_RETURN_IF_ERROR(json::read_string(req, "namespace", rp, out.namespace_));
  out.request.namespace_ = out.namespace_;
  std::optional<bool> dry_run;
  RJG_RETURN_IF_ERROR(json::read_bool(req, "dryRun", rp, dry_run));
  out.dry_run = dry_run.value_or(false);

  auto user_r = json::read_object(req, "userInfo", rp);
  if (!user_r.ok()) {
    return user_r.error();
  }
  if (user_r.value() != nullptr) {
    RJG_RETURN_IF_ERROR(
        json::read_string(*user_r.value(), "username", rp.field("userInfo"), out.username));
  }

  auto kind_r = json::read_object(req, "kind", rp);
  if (!kind_r.ok()) {
    return kind_r.error();
  }
  if (kind_r.value() == nullptr) {
    return invalid_argument("request.kind: required");
  }
  std::string group;
  const Path kp = rp.field("kind");
  RJG_RETURN_IF_ERROR(json::read_string(*kind_r.value(), "group", kp, group));
  RJG_RETURN_IF_ERROR(json::read_string(*kind_r.value(), "kind", kp, out.kind));
  std::string sub_resource;
  RJG_RETURN_IF_ERROR(json::read_string(req, "subResource", rp, sub_resource));
  out.request.is_rayjob = group == "ray.io" && out.kind == "RayJob" && sub_resource.empty();

  std::string request_name;
  RJG_RETURN_IF_ERROR(json::read_string(req, "name", rp, request_name));

  // `object`/`oldObject` may be JSON null; member() maps null to nullptr.
  const Value* object = json::member(req, "object");
  const Value* old_object = json::member(req, "oldObject");
  const Path op_path = rp.field("object");
  const Path oldp = rp.field("oldObject");
  const bool writes = *op == policy::Operation::kCreate || *op == policy::Operation::kUpdate;

  if (out.request.is_rayjob && writes) {
    if (object == nullptr) {
      return invalid_argument("request.object: required on " + out.operation + ", got null");
    }
    Result<policy::RayJob> job = decode_rayjob(*object, op_path);
    if (!job.ok()) {
      return job.error();
    }
    out.name = job.value().metadata.name;
    out.request.object = std::move(job).value();
    if (*op == policy::Operation::kUpdate) {
      if (old_object == nullptr) {
        return invalid_argument("request.oldObject: required on UPDATE, got null");
      }
      Result<policy::RayJob> old_job = decode_rayjob(*old_object, oldp);
      if (!old_job.ok()) {
        return old_job.error();
      }
      out.request.old_object = std::move(old_job).value();
    }
  } else {
    if (object != nullptr && !object->IsObject()) {
      return json::type_error(op_path, "an object", *object);
    }
    if (old_object != nullptr && !old_object->IsObject()) {
      return json::type_error(oldp, "an object", *old_object);
    }
    RJG_RETURN_IF_ERROR(object_name(object, op_path, out.name));
    if (out.name.empty()) {
      RJG_RETURN_IF_ERROR(object_name(old_object, oldp, out.name));
    }
  }
  if (out.name.empty()) {
    out.name = request_name;
  }
  if (out.request.namespace_.empty() && out.request.object) {
    out.request.namespace_ = out.request.object->metadata.namespace_;
  }
  return out;
}

}  // namespace rjg::admission
