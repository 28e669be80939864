// check (see check.hpp).
#include "admission/check.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "admission/decode_rayjob.hpp"
#include "admission/finding_format.hpp"
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
  for (ManifestObject& object : objects.value()) {
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
      checked.source = std::move(object.doc);
      out.push_back(std::move(checked));
      continue;
    }
    Result<policy::RayJob> job = decode_rayjob(object.doc, json::Path(""));
    if (!job.ok()) {
      return invalid_argument(label + ": " + job.error().message);
    }
    policy::RayJob& rj = job.value();
    checked.name = rj.metadata.name.empty() ? rj.metadata.generate_name : rj.metadata.name;
    if (checked.name.empty()) {
      checked.remark = json::member(object.doc, "metadata") == nullptr
                           ? "no metadata: judged under an empty name; the apiserver refuses a "
                             "RayJob without metadata.name"
                           : "no metadata.name or metadata.generateName: judged under an empty "
                             "name; the apiserver refuses a RayJob without one";
    }
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
    request.cluster_quotas = options.cluster_quotas;
    checked.verdict = policy::evaluate(request, policy.config);
    checked.source = std::move(object.doc);
    out.push_back(std::move(checked));
  }
  return out;
}

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void put(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void write_findings(Writer& w, const policy::Findings& list) {
  w.StartArray();
  for (const policy::Finding& f : list) {
    w.StartObject();
    w.Key("rule");
    put(w, policy::rule_id_name(f.rule));
    w.Key("kind");
    put(w, f.kind == policy::Finding::Kind::kAdvisory ? "advisory" : "violation");
    w.Key("field");
    put(w, f.field);
    w.Key("message");
    put(w, f.message);
    w.Key("text");
    put(w, format_finding(f));
    w.Key("fix");
    w.StartArray();
    for (const policy::Edit& e : f.fix) {
      w.StartObject();
      w.Key("op");
      put(w, e.op == policy::Edit::Op::kSet ? "set" : "remove");
      w.Key("field");
      put(w, e.field);
      if (e.op == policy::Edit::Op::kSet) {
        w.Key("value");
        if (const bool* b = std::get_if<bool>(&e.value)) {
          w.Bool(*b);
        } else if (const long long* n = std::get_if<long long>(&e.value)) {
          w.Int64(*n);
        } else {
          put(w, std::get<std::string>(e.value));
        }
      }
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string encode_check_results(const std::vector<CheckedFile>& files) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartArray();
  for (const CheckedFile& r : files) {
    for (const CheckedObject& o : r.objects) {
      w.StartObject();
      w.Key("file");
      put(w, r.file);
      w.Key("document");
      w.Uint64(o.document);
      w.Key("line");
      w.Int(o.line);
      w.Key("apiVersion");
      put(w, o.api_version);
      w.Key("kind");
      put(w, o.kind);
      w.Key("name");
      put(w, o.name);
      w.Key("skipped");
      w.Bool(!o.is_rayjob);
      if (!o.remark.empty()) {
        w.Key("remark");
        put(w, o.remark);
      }
      if (o.is_rayjob) {
        w.Key("namespace");
        put(w, o.namespace_);
        w.Key("allowed");
        w.Bool(o.verdict.allowed);
        w.Key("denials");
        write_findings(w, o.verdict.denials);
        w.Key("warnings");
        write_findings(w, o.verdict.warnings);
      }
      w.EndObject();
    }
  }
  w.EndArray();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace rjg::admission
