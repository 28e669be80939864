// check (see check.hpp).
#include "admission/check.hpp"

#include "admission/decode_rayjob.hpp"
#include "admission/manifest.hpp"
#include "policy/crd_defaults.hpp"
#include "policy/evaluate.hpp"

namespace rjg::admission {

Result<std::vector<CheckedObject>> check_manifests(std::string_view text,
                                                   const CheckOptions& options,
                                                   const LoadedPolicy& policy) {
  Result<std::vector<ManifestObject>> objects = read_manifests(text);
  if (!objects.ok()) {
    return objects.error();
  }
  std::vector<CheckedObject> out;
  out.reserve(objects.value().size());
  for (const ManifestObject& object : objects.value()) {
    CheckedObject checked;
    checked.document = object.document;
    checked.line = object.line;
    checked.api_version = object.api_version;
    checked.kind = object.kind;
    checked.is_rayjob = is_rayjob_manifest(object);
    const std::string label = "document " + std::to_string(object.document) + " (line " +
                              std::to_string(object.line) + ")";
    if (!checked.is_rayjob) {
      // Only the name, for the "skipped" note; a malformed name is not worth failing over.
      if (const json::Value* meta = json::member(object.doc, "metadata");
          meta != nullptr && meta->IsObject()) {
        if (const json::Value* name = json::member(*meta, "name");
            name != nullptr && name->IsString()) {
          checked.name = name->GetString();
        }
      }
      out.push_back(std::move(checked));
      continue;
    }
    Result<policy::RayJob> job = decode_rayjob(object.doc, json::Path(""));
    if (!job.ok()) {
      return invalid_argument(label + ": " + job.error().message);
    }
    policy::RayJob& rj = job.value();
    checked.name = rj.metadata.name.empty() ? rj.metadata.generate_name : rj.metadata.name;
    const std::string& own = rj.metadata.namespace_;
    if (!own.empty() && options.namespace_ && *options.namespace_ != own) {
      return invalid_argument(label + ": the namespace from the provided object \"" + own +
                              "\" does not match the namespace \"" + *options.namespace_ +
                              "\". You must pass '--namespace=" + own +
                              "' to perform this operation.");
    }
    checked.namespace_ = !own.empty() ? own : options.namespace_.value_or("default");
    rj.metadata.namespace_ = checked.namespace_;
    policy::apply_crd_defaults(rj, policy.config.kuberay.version);
    policy::AdmissionRequest request;
    request.operation = policy::Operation::kCreate;
    request.namespace_ = checked.namespace_;
    request.is_rayjob = true;
    request.object = std::move(rj);
    checked.verdict = policy::evaluate(request, policy.config);
    out.push_back(std::move(checked));
  }
  return out;
}

}  // namespace rjg::admission
