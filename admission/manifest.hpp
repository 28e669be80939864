// Manifests: a file of one or more YAML documents, or one JSON document, as kubectl reads them,
// turned into JSON objects ready for the same decoder the webhook uses.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "admission/json_reader.hpp"
#include "common/result.hpp"

namespace rjg::admission {

// One object of a manifest file.
struct ManifestObject {
  json::Document doc;        // the object (a JSON object)
  std::size_t document = 0;  // 1-based index of the YAML document it came from
  int line = 0;              // 1-based line where that document starts
  std::string api_version;   // "apiVersion" when a string, else ""
  std::string kind;          // "kind" when a string, else ""
};

// Reads every object of `text`: JSON when the text starts with '{' (or '[' for an array of
// objects), else multi-document YAML. Empty documents are skipped; a `kind: List` (v1) is expanded
// into its items. kInvalidArgument for syntax errors (JSON byte offset, YAML line/column), a
// document that is not a mapping, or a wrong-typed apiVersion/kind.
Result<std::vector<ManifestObject>> read_manifests(std::string_view text);

// True when `object` is a ray.io RayJob (apiVersion ray.io/<any version>, kind RayJob).
bool is_rayjob_manifest(const ManifestObject& object);

}  // namespace rjg::admission
