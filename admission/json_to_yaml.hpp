// JSON -> YAML for `-o yaml`, with libyaml's emitter: block style, two-space indent, and every
// string that a YAML 1.1 reader (kubectl's, PyYAML) would take for something else ("true",
// "1.0", "null", "") double-quoted, so that reading the YAML back gives the JSON it came from.
#pragma once

#include <string>

#include "admission/json_reader.hpp"
#include "common/result.hpp"

namespace rjg::admission {

// The YAML document for `value`, ending in a newline. Returns kInternal when libyaml refuses an
// event (a string that is not UTF-8).
Result<std::string> json_to_yaml(const json::Value& value);

// As json_to_yaml, for JSON text this program encoded (`-o json` output). Returns
// kInvalidArgument when it does not parse.
Result<std::string> json_text_to_yaml(std::string_view json_text);

}  // namespace rjg::admission
