// JSON -> YAML -> JSON round trips through kubectl's reading of YAML (yaml_to_json, go-yaml v2's
// YAML 1.1): strings a plain scalar would turn into something else stay strings.
#include "admission/json_to_yaml.hpp"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <vector>

#include "admission/yaml_to_json.hpp"

namespace rjg::admission {
namespace {

std::string canonical(const json::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

TEST(JsonToYaml, RoundTripsThroughKubectlsReading) {
  const std::vector<std::string> cases = {
      R"({"a":"true","b":"False","c":"yes","d":"on","e":"n","f":"null","g":"~","h":""})",
      R"({"a":"1","b":"1.0","c":"-1e3","d":"0x1F","e":"0o17","f":"017","g":"1_000","h":".inf"})",
      R"({"a":".NaN","b":"+12","c":"0b101","d":"1:20","e":"2026-12-04"})",
      R"({"a":"- x","b":"x: y","c":"#c","d":" lead","e":"trail ","f":"multi\nline\n","g":"@x"})",
      R"({"a":"é€😀","b":"\u0001\u001b[2J","c":"tab\there","d":"quote\"'","e":"\\back"})",
      R"({"true":1,"1":2,"":3,"null":4,"x y":5})",
      R"({"n":[1,-1.5,1e300,18446744073709551615,-9223372036854775808,0.1]})",
      R"({"b":[true,false,null],"e":[],"o":{},"deep":[[{"k":["v"]}]]})",
      R"([{"file":"-","ok":true},"s",3])",
      R"("just a string")",
  };
  for (const std::string& text : cases) {
    SCOPED_TRACE(text);
    Result<json::Document> in = json::parse(text);
    ASSERT_TRUE(in.ok()) << in.error().message;
    Result<std::string> yaml = json_to_yaml(in.value());
    ASSERT_TRUE(yaml.ok()) << yaml.error().message;
    Result<std::vector<YamlDocument>> back = yaml_to_json(yaml.value());
    ASSERT_TRUE(back.ok()) << back.error().message << "\n" << yaml.value();
    ASSERT_EQ(back.value().size(), 1u) << yaml.value();
    EXPECT_EQ(canonical(back.value()[0].doc), canonical(in.value())) << yaml.value();
  }
}

TEST(JsonToYaml, BlockStyleAndQuotingOnlyWhereNeeded) {
  Result<std::string> yaml = json_text_to_yaml(R"({"kind":"RayJob","ok":"true","list":["a"]})");
  ASSERT_TRUE(yaml.ok()) << yaml.error().message;
  EXPECT_EQ(yaml.value(), "kind: RayJob\nok: \"true\"\nlist:\n- a\n");
  EXPECT_EQ(json_text_to_yaml("{").error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace rjg::admission
