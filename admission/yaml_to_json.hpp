// YAML -> JSON the way kubectl reads manifests (sigs.k8s.io/yaml over go-yaml v2, YAML 1.1):
// plain scalars are resolved to null/bool/int/float, quoted and block scalars stay strings,
// anchors, aliases and `<<` merge keys are resolved, duplicate keys are errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "admission/json_reader.hpp"
#include "common/result.hpp"

namespace rjg::admission {

// How go-yaml v2 resolves one plain (unquoted, untagged) scalar.
struct ResolvedScalar {
  enum class Kind { kNull, kBool, kInt, kUint, kFloat, kString };
  Kind kind = Kind::kString;
  bool boolean = false;
  std::int64_t int_value = 0;
  std::uint64_t uint_value = 0;
  double float_value = 0;
};

// Resolves `text` as a plain scalar: null (""/~/null/Null/NULL), bool (y/yes/true/on, n/no/false/
// off in their three case variants), int (decimal, 0x, 0o, 0b, leading-0 octal, `_` separators),
// float (YAML-style decimal or exponent, .inf/-.inf/.nan), else string.
ResolvedScalar resolve_plain_scalar(std::string_view text);

// One YAML document converted to JSON.
struct YamlDocument {
  json::Document doc;
  int line = 0;  // 1-based line where the document's root node starts
};

// Converts every non-empty document of `text`. Errors (kInvalidArgument) carry "line L, column C":
// YAML syntax errors, duplicate keys, non-scalar mapping keys, .inf/.nan (JSON cannot hold them),
// more than kMaxYamlNodes values after alias expansion, nesting deeper than kMaxNestingDepth (nesting_limit.hpp).
Result<std::vector<YamlDocument>> yaml_to_json(std::string_view text);

// Cap on values produced from one file, so that alias chains ("billion laughs") cannot explode.
inline constexpr std::size_t kMaxYamlNodes = 1'000'000;

}  // namespace rjg::admission
