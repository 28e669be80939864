// The policy file: YAML text <-> policy::PolicyConfig, validated once, then immutable.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "policy/policy_config.hpp"

namespace rjg::admission {

// A validated policy plus what identifies it.
struct LoadedPolicy {
  policy::PolicyConfig config;
  // First 16 hex digits of the SHA-256 of the policy's canonical form (independent of comments,
  // key order and formatting). Carried into auditAnnotations and the reload log line.
  std::string hash;
};

// Parses and validates a policy file (apiVersion rayjob-guard.io/v1, kind Policy).
// Returns kInvalidArgument naming the key path for unknown keys, wrong types, bad quantities,
// inconsistent bounds, or a lifecycle mode the pinned KubeRay version cannot do; kUnsupported
// for a KubeRay version outside 1.0-1.7. Nothing is silently ignored.
Result<LoadedPolicy> decode_policy(std::string_view yaml_text);

// The built-in default policy, as YAML text with comments (what `rayjob-guard policy default`
// prints). decode_policy(default_policy_yaml()) always succeeds.
std::string_view default_policy_yaml();

// Reads and decodes the file at `path`. kUnavailable when it cannot be read.
Result<LoadedPolicy> load_policy_file(const std::string& path);

// What every command does with its --policy flag: load_policy_file(path), or the built-in
// default policy when `path` is empty (the flag was not given).
Result<LoadedPolicy> load_policy_or_default(const std::string& path);

}  // namespace rjg::admission
