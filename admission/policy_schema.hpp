// The policy's JSON schema (admission/policy.schema.json, embedded at build time): the one
// description of the policy's keys, types and enums, shared with the Helm chart's
// values.schema.json (generated from it by charts/generate.py). Validated with valijson.
#pragma once

#include <string_view>

#include "admission/json_reader.hpp"
#include "common/result.hpp"

namespace rjg::admission {

// The schema text, exactly as in admission/policy.schema.json.
std::string_view policy_schema_json();

// Validates a policy document (the YAML already converted to JSON) against the schema.
// Returns kInvalidArgument naming the key path of the first violation ("lifecycle.mode: ...",
// "rules.reap-slef: ..."); kInternal when the embedded schema itself cannot be used (a build
// defect, covered by the unit test). Thread-safe; the parsed schema is built once.
Status validate_policy_schema(const json::Value& doc);

}  // namespace rjg::admission
