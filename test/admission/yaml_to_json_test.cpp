// Tests admission/yaml_to_json: the kubectl (go-yaml v2, YAML 1.1) scalar resolution table,
// quoting, anchors, merge keys and errors with line and column.
#include "admission/yaml_to_json.hpp"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace rjg::admission {
namespace {

std::string to_json(const json::Value& v) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  v.Accept(w);
  return b.GetString();
}

// Converts `value: <scalar>` and returns the JSON of the value.
std::string value_of(const std::string& scalar) {
  auto docs = yaml_to_json("value: " + scalar + "\n");
  if (!docs.ok()) {
    return "ERROR: " + docs.error().message;
  }
  return to_json(docs.value().at(0).doc["value"]);
}

struct Row {
  const char* yaml;
  const char* json;
};

class ScalarResolution : public ::testing::TestWithParam<Row> {};

TEST_P(ScalarResolution, MatchesKubectl) {
  EXPECT_EQ(value_of(GetParam().yaml), GetParam().json) << GetParam().yaml;
}

INSTANTIATE_TEST_SUITE_P(
    Table, ScalarResolution,
    ::testing::Values(
        Row{"true", "true"}, Row{"True", "true"}, Row{"TRUE", "true"}, Row{"yes", "true"},
        Row{"Yes", "true"}, Row{"YES", "true"}, Row{"on", "true"}, Row{"On", "true"},
        Row{"ON", "true"}, Row{"y", "true"}, Row{"Y", "true"}, Row{"false", "false"},
        Row{"False", "false"}, Row{"FALSE", "false"}, Row{"no", "false"}, Row{"No", "false"},
        Row{"NO", "false"}, Row{"off", "false"}, Row{"Off", "false"}, Row{"OFF", "false"},
        Row{"n", "false"}, Row{"N", "false"}, Row{"tRUE", "\"tRUE\""}, Row{"yEs", "\"yEs\""},
        Row{"null", "null"}, Row{"Null", "null"}, Row{"NULL", "null"}, Row{"~", "null"},
        Row{"", "null"}, Row{"nULL", "\"nULL\""}, Row{"42", "42"}, Row{"-7", "-7"},
        Row{"+12", "12"}, Row{"0", "0"}, Row{"0x1F", "31"}, Row{"0o17", "15"}, Row{"017", "15"},
        Row{"0b101", "5"}, Row{"1_000", "1000"}, Row{"08", "8"}, Row{"09.5", "9.5"},
        Row{"1.5", "1.5"}, Row{"-0.25", "-0.25"}, Row{".5", "0.5"}, Row{"1e3", "1000"},
        Row{"1.0", "1"}, Row{"9223372036854775807", "9223372036854775807"},
        Row{"-9223372036854775808", "-9223372036854775808"},
        Row{"18446744073709551615", "18446744073709551615"}, Row{"1.2.3", "\"1.2.3\""},
        Row{"0x", "\"0x\""}, Row{"64Gi", "\"64Gi\""}, Row{"500m", "\"500m\""},
        Row{"2.52.0", "\"2.52.0\""}, Row{"'true'", "\"true\""}, Row{"\"42\"", "\"42\""},
        Row{"'null'", "\"null\""}, Row{"!!str 42", "\"42\""}, Row{"2001-12-14", "\"2001-12-14\""},
        Row{"abc", "\"abc\""}));

TEST(YamlToJson, InfAndNanCannotBeJson) {
  for (const char* s : {".inf", "-.Inf", "+.INF", ".nan", ".NaN"}) {
    const std::string got = value_of(s);
    EXPECT_EQ(got.rfind("ERROR: line 1, column 8", 0), 0u) << s << " -> " << got;
  }
}

TEST(YamlToJson, BlockScalarsStayStrings) {
  auto docs = yaml_to_json("a: |\n  true\n  42\nb: >-\n  yes\n");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ(to_json(docs.value()[0].doc), R"({"a":"true\n42\n","b":"yes"})");
}

TEST(YamlToJson, KeysAreStringifiedAsKubectlDoes) {
  auto docs = yaml_to_json("on: 1\n2: b\n'on': c\n");
  ASSERT_TRUE(docs.ok()) << docs.error().message;
  EXPECT_EQ(to_json(docs.value()[0].doc), R"({"true":1,"2":"b","on":"c"})");
}

TEST(YamlToJson, AnchorsAliasesAndMerge) {
  auto docs = yaml_to_json(
      "base: &b {cpu: \"1\", memory: 2Gi}\n"
      "copy: *b\n"
      "merged:\n  <<: *b\n  cpu: \"2\"\n");
  ASSERT_TRUE(docs.ok()) << docs.error().message;
  EXPECT_EQ(to_json(docs.value()[0].doc),
            R"({"base":{"cpu":"1","memory":"2Gi"},"copy":{"cpu":"1","memory":"2Gi"},)"
            R"("merged":{"cpu":"2","memory":"2Gi"}})");
}

TEST(YamlToJson, MultipleDocumentsSkipEmptyOnes) {
  auto docs = yaml_to_json("a: 1\n---\n---\n# only a comment\n---\nb: 2\n");
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs.value().size(), 2u);
  EXPECT_EQ(docs.value()[0].line, 1);
  EXPECT_EQ(docs.value()[1].line, 6);
}

TEST(YamlToJson, SyntaxErrorHasLineAndColumn) {
  auto docs = yaml_to_json("a: 1\nb: [1, 2\nc: 3\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(docs.error().message.find("line "), std::string::npos) << docs.error().message;
  EXPECT_NE(docs.error().message.find("column "), std::string::npos) << docs.error().message;
}

TEST(YamlToJson, DuplicateKeyIsAnError) {
  auto docs = yaml_to_json("spec:\n  backoffLimit: 0\n  backoffLimit: 3\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.error().message, "line 3, column 3: duplicate key \"backoffLimit\"");
}

TEST(YamlToJson, BillionLaughsIsCapped) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) {
      text += (k ? ", *a" : "*a") + std::to_string(i - 1);
    }
    text += "]\n";
  }
  auto docs = yaml_to_json(text);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.error().message.find("values after expanding aliases"), std::string::npos);
}

TEST(YamlToJson, ResolvePlainScalarDirectly) {
  EXPECT_EQ(resolve_plain_scalar("0777").int_value, 511);
  EXPECT_EQ(resolve_plain_scalar("-0x10").int_value, -16);
  EXPECT_EQ(resolve_plain_scalar("+.inf").kind, ResolvedScalar::Kind::kFloat);
  EXPECT_EQ(resolve_plain_scalar("1e").kind, ResolvedScalar::Kind::kString);
  EXPECT_EQ(resolve_plain_scalar("-").kind, ResolvedScalar::Kind::kString);
}

}  // namespace
}  // namespace rjg::admission
