// Manifest reading (see manifest.hpp).
#include "admission/manifest.hpp"

#include "admission/yaml_to_json.hpp"

namespace rjg::admission {
namespace {

std::string doc_label(std::size_t document, int line) {
  return "document " + std::to_string(document) + " (line " + std::to_string(line) + ")";
}

// Moves `doc` (a JSON object) into `out`, expanding a v1 List into its items.
Status add_object(json::Document doc, std::size_t document, int line,
                  std::vector<ManifestObject>& out) {
  const std::string label = doc_label(document, line);
  if (!doc.IsObject()) {
    return invalid_argument(label + ": expected a mapping (an object), got " +
                            json::type_name(doc));
  }
  ManifestObject object;
  const json::Path root("");
  Status st = json::read_string(doc, "apiVersion", root, object.api_version);
  if (st.ok()) {
    st = json::read_string(doc, "kind", root, object.kind);
  }
  if (!st.ok()) {
    return invalid_argument(label + ": " + st.error().message);
  }
  if (object.kind == "List" && object.api_version == "v1") {
    auto items = json::read_array(doc, "items", root);
    if (!items.ok()) {
      return invalid_argument(label + ": " + items.error().message);
    }
    if (items.value() != nullptr) {
      for (const json::Value& item : items.value()->GetArray()) {
        json::Document copy;
        copy.CopyFrom(item, copy.GetAllocator());
        st = add_object(std::move(copy), document, line, out);
        if (!st.ok()) {
          return st;
        }
      }
    }
    return {};
  }
  object.doc = std::move(doc);
  object.document = document;
  object.line = line;
  out.push_back(std::move(object));
  return {};
}

}  // namespace

Result<std::vector<ManifestObject>> read_manifests(std::string_view text) {
  std::vector<ManifestObject> out;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return out;
  }
  if (text[first] == '{' || text[first] == '[') {
    Result<json::Document> parsed = json::parse(text);
    if (parsed.ok()) {
      json::Document& doc = parsed.value();
      if (doc.IsArray()) {
        std::size_t index = 0;
        for (const json::Value& item : doc.GetArray()) {
          json::Document copy;
          copy.CopyFrom(item, copy.GetAllocator());
          Status st = add_object(std::move(copy), ++index, 1, out);
          if (!st.ok()) {
            return st.error();
          }
        }
        return out;
      }
      Status st = add_object(std::move(doc), 1, 1, out);
      if (!st.ok()) {
        return st.error();
      }
      return out;
    }
    // A YAML flow mapping also starts with '{' ({apiVersion: v1}), but a quoted first key means
    // the author wrote JSON: report the JSON error (fuzz/regressions/manifest/ keeps the broken
    // JSON that once made the YAML reader of the time, yaml-cpp 0.7, loop without bound).
    const std::size_t next = text.find_first_not_of(" \t\r\n", first + 1);
    if (next == std::string_view::npos || text[next] == '"' || text[next] == '{' ||
        text[next] == '}' || text[next] == ']') {
      return parsed.error();
    }
    Result<std::vector<YamlDocument>> yaml = yaml_to_json(text);
    if (!yaml.ok()) {
      return parsed.error();
    }
  }
  Result<std::vector<YamlDocument>> docs = yaml_to_json(text);
  if (!docs.ok()) {
    return docs.error();
  }
  std::size_t index = 0;
  for (YamlDocument& d : docs.value()) {
    Status st = add_object(std::move(d.doc), ++index, d.line, out);
    if (!st.ok()) {
      return st.error();
    }
  }
  return out;
}

bool is_rayjob_manifest(const ManifestObject& object) {
  return object.kind == "RayJob" && object.api_version.rfind("ray.io/", 0) == 0;
}

}  // namespace rjg::admission
