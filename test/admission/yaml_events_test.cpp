// Tests admission/yaml_events: the libyaml event reader behind runtimeEnvYAML and the YAML screen.
#include "admission/yaml_events.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "admission/decode_rayjob.hpp"

namespace rjg::admission::yaml {
namespace {

using Kind = Document::Kind;

TEST(YamlEvents, MappingScalarsAndSequences) {
  auto doc = parse_first_document("pip:\n  - a==1\n  - 'b'\nname: x\nempty:\n");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const Document& d = doc.value();
  ASSERT_EQ(d.kind(0), Kind::kMapping);
  const Document::Index pip = d.find(0, "pip");
  ASSERT_NE(pip, Document::kNone);
  ASSERT_EQ(d.kind(pip), Kind::kSequence);
  const Document::Index first = d.first_child(pip);
  EXPECT_EQ(d.scalar(first), "a==1");
  EXPECT_EQ(d.scalar(d.next(first)), "b");
  EXPECT_EQ(d.next(d.next(first)), Document::kNone);
  EXPECT_EQ(d.scalar(d.find(0, "name")), "x");
  EXPECT_EQ(d.kind(d.find(0, "empty")), Kind::kNull);
  EXPECT_EQ(d.find(0, "absent"), Document::kNone);
  EXPECT_EQ(d.line(pip), 2u);
}

TEST(YamlEvents, NullSpellingsAndQuotedNull) {
  for (const char* text : {"~", "null", "Null", "NULL", "!!null x"}) {
    auto doc = parse_first_document(text);
    ASSERT_TRUE(doc.ok()) << text;
    EXPECT_EQ(doc.value().kind(0), Kind::kNull) << text;
  }
  auto quoted = parse_first_document("'null'");
  ASSERT_TRUE(quoted.ok());
  EXPECT_EQ(quoted.value().kind(0), Kind::kScalar);
}

TEST(YamlEvents, AliasesPointAtTheirAnchor) {
  auto doc = parse_first_document("base: &b [x, y]\npip: *b\n");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const Document& d = doc.value();
  const Document::Index pip = d.find(0, "pip");
  ASSERT_EQ(d.kind(pip), Kind::kSequence);
  EXPECT_EQ(d.scalar(d.first_child(pip)), "x");
}

TEST(YamlEvents, RecursiveAliasIsAnError) {
  auto doc = parse_first_document("a: &a [*a]\n");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(doc.error().message.find("names no finished anchor"), std::string::npos);
}

TEST(YamlEvents, AliasBombStaysLinear) {
  // Each level doubles the expanded size; the tree holds references, not copies.
  std::string text = "a0: &a0 [x, x]\n";
  for (int i = 1; i < 40; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" + std::to_string(i - 1) +
            ", *a" + std::to_string(i - 1) + "]\n";
  }
  // 40 lines of 4 nodes each (key, sequence, two aliases) and the root: a tree that copied each
  // alias's target would need 2^40 nodes, so a budget of 200 fails unless aliases are references.
  auto doc = parse_first_document(text, Limits{200, 1000});
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  // And the references lead where the anchors say: 40 first-child hops from a39 reach "x".
  const Document& d = doc.value();
  Document::Index node = d.find(0, "a39");
  for (int i = 0; i < 40; ++i) {
    ASSERT_EQ(d.kind(node), Kind::kSequence) << "level " << i;
    node = d.first_child(node);
  }
  EXPECT_EQ(d.scalar(node), "x");
}

TEST(YamlEvents, BudgetsAreErrors) {
  std::string many = "[";
  for (int i = 0; i < 200; ++i) {
    many += "x,";
  }
  many += "x]";
  auto nodes = parse_first_document(many, Limits{100, 10});
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.error().message.find("more than 100 YAML nodes"), std::string::npos);
  auto deep = parse_first_document(std::string(50, '[') + std::string(50, ']'), Limits{1000, 10});
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error().message.find("nesting deeper than 10"), std::string::npos);
}

TEST(YamlEvents, SyntaxErrorsCarryLineAndColumn) {
  auto doc = parse_first_document("a: 1\nb: [unclosed\n");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().message.rfind("line ", 0), 0u) << doc.error().message;
}

TEST(YamlEvents, LeadingCommaTerminatesWithAnError) {
  // yaml-cpp 0.7's LoadAll loops forever with unbounded memory on this input.
  Status st = check_stream(",");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("did not find expected node content"), std::string::npos)
      << st.error().message;
  EXPECT_FALSE(parse_first_document(",").ok());
}

TEST(YamlEvents, InvalidUtf8NamesTheByteOffset) {
  Status st = check_stream("a: \xff\n");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message.rfind("byte offset ", 0), 0u) << st.error().message;
}

TEST(YamlEvents, CheckStreamReadsEveryDocument) {
  EXPECT_TRUE(check_stream("a: 1\n---\nb: 2\n").ok());
  EXPECT_FALSE(check_stream("a: 1\n---\nb: [\n").ok());
  EXPECT_TRUE(parse_first_document("a: 1\n---\nb: [\n").ok());  // only the first is read
}

TEST(YamlEvents, EmptyStream) {
  auto doc = parse_first_document("# only a comment\n");
  ASSERT_TRUE(doc.ok());
  EXPECT_TRUE(doc.value().empty());
}

TEST(YamlEvents, TenantStyleTextsAreMappings) {
  // The block YAML tenants write in runtimeEnvYAML, read by libyaml (the one reader): each is a
  // root mapping whose first key is where the text puts it.
  const std::vector<std::pair<std::string, std::string>> texts = {
      {"pip:\n  - requests==2.26.0\n  - boto3>=1.35.0\nenv_vars:\n  counter_name: \"c\"\n", "pip"},
      {"# runtime env\npip:   # the SDK floor\n\n  - boto3>=1.35.0   # comment\n", "pip"},
      {"$ref: x\n_k: y\nk.e-y/z: w\n", "$ref"},
      {"x:\n    - a\n    - b\ny:\n  z: 1\n", "x"},
  };
  for (const auto& [text, first_key] : texts) {
    auto doc = parse_first_document(text, Limits{10'000, 64});
    ASSERT_TRUE(doc.ok()) << text << doc.error().message;
    ASSERT_EQ(doc.value().kind(0), Kind::kMapping) << text;
    EXPECT_EQ(doc.value().scalar(doc.value().first_child(0)), first_key) << text;
  }
}

// The operator unmarshals YAML null (comment only, `null`, `~`) into an empty runtime env and
// accepts it (UnmarshalRuntimeEnvYAML; the conformance oracle agrees).
TEST(YamlEvents, RuntimeEnvNullIsNoRuntimeEnv) {
  for (const char* text : {"# nothing\n", "null", "~\n"}) {
    const policy::RuntimeEnv env = parse_runtime_env(text);
    EXPECT_EQ(env.parse, policy::RuntimeEnv::Parse::kAbsent) << text;
    EXPECT_EQ(env.parse_error, "") << text;
  }
}

TEST(YamlEvents, RuntimeEnvLeadingCommaIsInvalid) {
  const policy::RuntimeEnv env = parse_runtime_env(",");
  EXPECT_EQ(env.parse, policy::RuntimeEnv::Parse::kInvalid);
  EXPECT_NE(env.parse_error.find("line 1, column 1"), std::string::npos) << env.parse_error;
}

}  // namespace
}  // namespace rjg::admission::yaml
