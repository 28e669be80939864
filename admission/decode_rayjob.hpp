// decode_rayjob: a ray.io/v1 RayJob as JSON -> the typed policy::RayJob the rules read.
// Types are checked field by field; fields the model does not carry are ignored (the apiserver
// has already pruned unknown ones). runtimeEnvYAML is parsed here into policy::RuntimeEnv.
#pragma once

#include <string_view>

#include "admission/json_reader.hpp"
#include "common/result.hpp"
#include "policy/rayjob.hpp"

namespace rjg::admission {

// Decodes `object` (whose JSON path is `path`, e.g. "request.object", or "" for a manifest).
// Returns kInvalidArgument naming the path for a wrong type (an object where a string belongs, a
// fraction or an out-of-range value in an int32 field, a non-string label...). Never fails on an
// unparsable runtimeEnvYAML: that is recorded in spec.runtime_env for the rules to report.
Result<policy::RayJob> decode_rayjob(const json::Value& object, const json::Path& path);

// Parses runtimeEnvYAML text into what the rules need. Never fails: YAML errors become
// RuntimeEnv::Parse::kInvalid with the parser's message. Empty text is kAbsent.
policy::RuntimeEnv parse_runtime_env(std::string_view yaml_text);

}  // namespace rjg::admission
