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

// A multi-byte character anywhere (comment, key, value; 2, 3 and 4 bytes), a byte-order mark or
// CRLF line ends must not change what is read: each text reads as its ASCII twin does, with the
// same characters in the values. The old reader sliced documents with libyaml's character counts
// as byte offsets and read other values or documents from such files.
struct TwinRow {
  const char* name;
  std::string text;
  std::string json;  // every document, one per line
};

std::string all_json(const std::string& text) {
  auto docs = yaml_to_json(text);
  if (!docs.ok()) {
    return "ERROR: " + docs.error().message;
  }
  std::string out;
  for (const YamlDocument& d : docs.value()) {
    out += to_json(d.doc) + "\n";
  }
  return out;
}

TEST(YamlToJson, MultiByteTextReadsAsWritten) {
  const std::string bom = "\xEF\xBB\xBF";
  const std::string dash = "\xE2\x80\x94";       // 3 bytes
  const std::string e_acute = "\xC3\xA9";        // 2 bytes
  const std::string emoji = "\xF0\x9F\x98\x80";  // 4 bytes
  const std::vector<TwinRow> rows = {
      {"comments before later documents",
       "# " + dash + " tenant " + e_acute + "\nkind: ConfigMap # " + emoji + "\n---\n# " + dash +
           dash + "\nkind: RayJob\nspec: {backoffLimit: 0}\n---\nkind: Secret\n",
       "{\"kind\":\"ConfigMap\"}\n{\"kind\":\"RayJob\",\"spec\":{\"backoffLimit\":0}}\n"
       "{\"kind\":\"Secret\"}\n"},
      {"last value of a single document",
       "# " + dash + dash + dash + dash + "\nimages:\n  allow:\n    - registry.corp/*:2.52.0\n",
       "{\"images\":{\"allow\":[\"registry.corp/*:2.52.0\"]}}\n"},
      {"keys and values", "k" + e_acute + ": v" + emoji + "\n" + dash + ": [" + e_acute + "]\n",
       "{\"k" + e_acute + "\":\"v" + emoji + "\",\"" + dash + "\":[\"" + e_acute + "\"]}\n"},
      {"block scalar", "a: |\n  " + emoji + " line\n  " + dash + "\nb: 1\n",
       "{\"a\":\"" + emoji + " line\\n" + dash + "\\n\",\"b\":1}\n"},
      {"CRLF", "a: 1 # " + e_acute + "\r\n---\r\nb: " + dash + "\r\n",
       "{\"a\":1}\n{\"b\":\"" + dash + "\"}\n"},
      {"byte-order mark", bom + "a: 1\n---\nb: 2\n", "{\"a\":1}\n{\"b\":2}\n"},
      {"byte-order mark and multi-byte comment", bom + "# " + dash + "\na: 1\nb: 2\n",
       "{\"a\":1,\"b\":2}\n"},
      {"byte-order mark before a later document", "a: 1\n---\n" + bom + "b: 2\n",
       "{\"a\":1}\n{\"b\":2}\n"},
  };
  for (const TwinRow& row : rows) {
    EXPECT_EQ(all_json(row.text), row.json) << row.name;
  }
}

TEST(YamlToJson, LinesCountWithMultiByteText) {
  auto docs = yaml_to_json("# \xE2\x80\x94\na: 1\n---\n# \xF0\x9F\x98\x80\nb: 2\n");
  ASSERT_TRUE(docs.ok()) << docs.error().message;
  ASSERT_EQ(docs.value().size(), 2u);
  EXPECT_EQ(docs.value()[0].line, 2);
  EXPECT_EQ(docs.value()[1].line, 5);
  auto bad = yaml_to_json("# \xE2\x80\x94\na: 1\n---\nb: [\xC3\xA9\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("line 5"), std::string::npos) << bad.error().message;
}

// kubectl's document splitter cuts at `---` lines and reads the first document of each piece, so
// a document after `...` with no `---` line is dropped by kubectl without a word. libyaml (and
// so this reader) refuses it: a later document must start with `---`.
TEST(YamlToJson, DocumentAfterEndMarkerNeedsItsSeparator) {
  auto docs = yaml_to_json("a: 1\n...\nb: 2\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.error().message,
            "YAML error at line 3, column 1: did not find expected <document start>");
  EXPECT_EQ(all_json("a: 1\n...\n# nothing after it\n"), "{\"a\":1}\n");
  EXPECT_EQ(all_json("--- # first\na: 1\n...\n--- # second\nb: 2\n"), "{\"a\":1}\n{\"b\":2}\n");
}

// Keys as sigs.k8s.io/yaml stringifies go-yaml's resolved keys (each row checked against it by
// the differential test's reference): floats as Go's FormatFloat(f, 'g', -1, 32); null keys and
// integers above int64 have no JSON form there.
TEST(YamlToJson, KeysAsKubectlWritesThem) {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"1.0: a\n", "{\"1\":\"a\"}\n"},
      {"1e20: a\n", "{\"1e+20\":\"a\"}\n"},
      {"1000000.0: a\n", "{\"1e+06\":\"a\"}\n"},
      {"123456.0: a\n", "{\"123456\":\"a\"}\n"},
      {"1234567.0: a\n", "{\"1.234567e+06\":\"a\"}\n"},
      {"0.0001: a\n", "{\"0.0001\":\"a\"}\n"},
      {"0.00001: a\n", "{\"1e-05\":\"a\"}\n"},
      {"-2.5e-7: a\n", "{\"-2.5e-07\":\"a\"}\n"},
      {"16777217.0: a\n", "{\"1.6777216e+07\":\"a\"}\n"},
      {"3.14159265358979: a\n", "{\"3.1415927\":\"a\"}\n"},
      {".inf: a\n-.Inf: b\n", "{\".inf\":\"a\",\"-.inf\":\"b\"}\n"},
      {"0x10: a\non: b\n", "{\"16\":\"a\",\"true\":\"b\"}\n"},
      // beyond float32's range: Go's float32(v) rounds it to an infinity
      {"1e39: a\n-3.5e40: b\n", "{\".inf\":\"a\",\"-.inf\":\"b\"}\n"},
      {"3.4028235e38: a\n", "{\"3.4028235e+38\":\"a\"}\n"},
      // one Go key, one entry: +0 and -0 are equal, and the key is written as last set
      {"<<: {0.0: a}\n-0.0: b\n", "{\"-0\":\"b\"}\n"},
  };
  for (const auto& [yaml, json] : rows) {
    EXPECT_EQ(all_json(yaml), json) << yaml;
  }
  for (const char* yaml : {"~: a\n", "null: a\n", "? \n: a\n"}) {
    EXPECT_NE(all_json(yaml).find("a mapping key must not be null"), std::string::npos) << yaml;
  }
  EXPECT_NE(all_json("18446744073709551615: a\n").find("above 2^63-1"), std::string::npos);
}

// Two different Go keys with one JSON text: kubectl's map holds both and keeps one value at
// random, so the file is refused, whether the keys are explicit, merged or both.
TEST(YamlToJson, KeysThatBecomeOneJsonKeyAreRefused) {
  for (const char* yaml :
       {"1: a\n1.0: b\n", "1e39: a\n1e40: b\n", "\"1\": a\n1: b\n", ".nan: a\n.NaN: b\n",
        "<<: {1e39: a}\n1e40: b\n", "<<: [{1: a}, {1.0: b}]\n", "<<: {1: a}\n<<: {\"1\": b}\n",
        "x: &m {.nan: a}\n<<: *m\n.nan: b\n"}) {
    EXPECT_NE(all_json(yaml).find("two different keys of this mapping become this one JSON key"),
              std::string::npos)
        << yaml;
  }
}

// `<<` merges as go-yaml v2 (kubectl) applies them: entries after the merge override it, of a
// list of merged mappings the earlier wins, a later `<<` over an earlier one, a merged mapping's
// own merges count; an explicit key that a later merge sets again is refused (kubectl would take
// the merged value, YAML's merge spec the explicit one).
TEST(YamlToJson, MergeKeysAsKubectlAppliesThem) {
  EXPECT_EQ(all_json("b: &x {a: 2, c: 1}\nd:\n  <<: *x\n  a: 1\n"),
            "{\"b\":{\"a\":2,\"c\":1},\"d\":{\"a\":1,\"c\":1}}\n");
  EXPECT_EQ(all_json("d:\n  <<: [{a: 1}, {a: 2, b: 1}]\n"), "{\"d\":{\"a\":1,\"b\":1}}\n");
  EXPECT_EQ(all_json("c: &c {z: 1}\nb: &b {<<: *c, w: 2}\nd: {<<: *b}\n"),
            "{\"c\":{\"z\":1},\"b\":{\"z\":1,\"w\":2},\"d\":{\"z\":1,\"w\":2}}\n");
  EXPECT_EQ(all_json("<<: {a: 1, b: 1}\n<<: {b: 2}\n"), "{\"a\":1,\"b\":2}\n");
  EXPECT_NE(all_json("a: 1\n<<: {a: 2, b: 3}\n").find("duplicate key \"a\": set before this `<<`"),
            std::string::npos);
}

// Explicit tags as go-yaml v2 (kubectl) reads them: a standard tag resolves the text, quoted or
// not, and must agree with it; !!binary is base64; !!str and local tags keep the text.
TEST(YamlToJson, TagsAsKubectlReadsThem) {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"!!str 42", "\"42\""},         {"!!int '3'", "3"},
      {"!!int 0x1F", "31"},           {"!!float 1", "1"},
      {"!!float \"2.5\"", "2.5"},     {"!!bool yes", "true"},
      {"!!bool 'off'", "false"},      {"!!null ~", "null"},
      {"!!binary aGVsbG8=", "\"hello\""}, {"!custom x", "\"x\""},
      {"! 12", "\"12\""},
  };
  for (const auto& [yaml, json] : rows) {
    EXPECT_EQ(value_of(yaml), json) << yaml;
  }
  for (const char* yaml : {"!!int abc", "!!bool 3", "!!float x"}) {
    EXPECT_NE(value_of(yaml).find("does not read as its tag says"), std::string::npos) << yaml;
  }
  EXPECT_NE(value_of("!!binary not*base64").find("invalid base64"), std::string::npos);
}

// A file that starts with `{` is read by kubectl as JSON values first (YAMLOrJSONDecoder): a
// JSON escape YAML 1.1 lacks is fine there, duplicate keys are refused as everywhere, YAML after
// one JSON value goes on as a fresh stream, and after two JSON values kubectl wants JSON only.
TEST(YamlToJson, LeadingJsonAsKubectlReadsIt) {
  EXPECT_EQ(all_json("{\"a\": \"x\\/y\"}\n"), "{\"a\":\"x/y\"}\n");
  EXPECT_EQ(all_json("\xEF\xBB\xBF{\"a\": 1}\n---\nb: 2\n"), "{\"a\":1}\n{\"b\":2}\n");
  EXPECT_EQ(all_json("{\"a\": 1}\n{\"b\": 2}\n"), "{\"a\":1}\n{\"b\":2}\n");
  EXPECT_EQ(all_json("{a: 1}\n---\nb: 2\n"), "{\"a\":1}\n{\"b\":2}\n");  // YAML from the start
  EXPECT_EQ(all_json("\t\n"),
            "ERROR: YAML error at line 1: found character that cannot start any token (a tab at "
            "the start of a line; kubectl refuses it)");
  EXPECT_EQ(all_json("{\"a\":1,\"a\":2}\n"), "ERROR: JSON error at line 1: duplicate key \"a\"");
  EXPECT_EQ(all_json("{}\n{\"a\":1}\n---\n"),
            "ERROR: YAML error at line 3: the file starts with JSON values, and kubectl reads it "
            "as JSON to the end; this is not JSON");
  EXPECT_EQ(all_json("{}\n...\n---\na: 1\n"),
            "ERROR: YAML error at line 2: `...` ends a document that has no content, which "
            "kubectl refuses; remove the line");
}

}  // namespace
}  // namespace rjg::admission
