// Policy schema validation (see policy_schema.hpp): valijson over RapidJSON, the schema parsed
// once from the text CMake embeds.
#include "admission/policy_schema.hpp"

#include <exception>
#include <memory>
#include <string>
#include <utility>

#include <rapidjson/document.h>

// valijson reports a schema it cannot parse by throwing (std::abort() otherwise), in the headers
// included while VALIJSON_USE_EXCEPTIONS is set. Its RapidJSON adapter is included after the macro
// is withdrawn: with it set, the adapter would define RAPIDJSON_ASSERT (or warn that RapidJSON came
// first), and every translation unit must keep RapidJSON's own (one definition of its inline
// templates).
#define VALIJSON_USE_EXCEPTIONS 1
#include <valijson/exceptions.hpp>
#include <valijson/internal/adapter.hpp>
#include <valijson/internal/basic_adapter.hpp>
#include <valijson/internal/frozen_value.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
#undef VALIJSON_USE_EXCEPTIONS
#include <valijson/adapters/rapidjson_adapter.hpp>

namespace rjg::admission {

// Defined in the .cpp that CMake generates from policy.schema.json.
extern const char* const kPolicySchemaJson;

namespace {

struct ParsedSchema {
  std::unique_ptr<valijson::Schema> schema;
  std::string error;  // non-empty when the embedded text is not a usable schema
};

ParsedSchema parse_schema() {
  ParsedSchema out;
  rapidjson::Document doc;
  doc.Parse(kPolicySchemaJson);
  if (doc.HasParseError()) {
    out.error = "the embedded policy schema is not JSON (offset " +
                std::to_string(doc.GetErrorOffset()) + ")";
    return out;
  }
  try {
    auto schema = std::make_unique<valijson::Schema>();
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    parser.populateSchema(valijson::adapters::RapidJsonAdapter(doc), *schema);
    out.schema = std::move(schema);
  } catch (const std::exception& e) {
    out.error = std::string("the embedded policy schema cannot be parsed: ") + e.what();
  }
  return out;
}

const ParsedSchema& parsed_schema() {
  static const ParsedSchema parsed = parse_schema();
  return parsed;
}

// valijson's context ["<root>", "[lifecycle]", "[mode]"] as "lifecycle.mode"; array indexes
// ("[0]") stay as they are: "images.deny[0].reason".
std::string path_of(const std::vector<std::string>& context) {
  std::string out;
  for (const std::string& part : context) {
    if (part == "<root>" || part.size() < 2 || part.front() != '[' || part.back() != ']') {
      continue;
    }
    const std::string inner = part.substr(1, part.size() - 2);
    const bool index = !inner.empty() && inner.find_first_not_of("0123456789") == std::string::npos;
    if (index) {
      out += part;
    } else {
      out += out.empty() ? inner : "." + inner;
    }
  }
  return out.empty() ? "(the policy document)" : out;
}

}  // namespace

std::string_view policy_schema_json() { return kPolicySchemaJson; }

Status validate_policy_schema(const json::Value& doc) {
  const ParsedSchema& parsed = parsed_schema();
  if (!parsed.schema) {
    return internal_error(parsed.error);
  }
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  bool valid = false;
  try {
    valid = validator.validate(*parsed.schema, valijson::adapters::RapidJsonAdapter(doc), &results);
  } catch (const std::exception& e) {
    return internal_error(std::string("policy schema validation failed: ") + e.what());
  }
  if (valid) {
    return {};
  }
  // valijson reports the innermost violation first, before the enclosing "failed to validate
  // against schema associated with property X" entries: it names the key and what is wrong.
  valijson::ValidationResults::Error first;
  if (!results.popError(first)) {
    return invalid_argument("the policy does not match admission/policy.schema.json");
  }
  return invalid_argument(path_of(first.context) + ": " + first.description +
                          " (admission/policy.schema.json)");
}

}  // namespace rjg::admission
