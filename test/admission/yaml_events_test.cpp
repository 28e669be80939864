// Tests admission/yaml_events: the libyaml event reader behind runtimeEnvYAML and the YAML screen.
#include "admission/yaml_events.hpp"

#include <gtest/gtest.h>

#include <string>
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

// parse_first_document and parse_first_document_with_libyaml agree on `text`: both fail with the
// same message, or both build the same nodes (kinds, texts, lines, columns, structure).
void expect_agree(const std::string& text) {
  auto fast = parse_first_document(text, Limits{10'000, 64});
  auto slow = parse_first_document_with_libyaml(text, Limits{10'000, 64});
  ASSERT_EQ(fast.ok(), slow.ok()) << text;
  if (!fast.ok()) {
    EXPECT_EQ(fast.error().message, slow.error().message) << text;
    return;
  }
  EXPECT_EQ(debug_string(fast.value()), debug_string(slow.value())) << text;
}

TEST(YamlEvents, ShortPathBuildsWhatLibyamlBuilds) {
  const std::vector<std::string> texts = {
      "pip:\n  - requests==2.26.0\n  - boto3>=1.35.0\nenv_vars:\n  counter_name: "
      "\"test_counter\"\n",
      "pip:\n  packages:\n    - boto3>=1.35.0\n    - botocore>=1.34.41\nenv_vars:\n"
      "  OMP_NUM_THREADS: \"1\"\n",
      "pip:\n- boto3>=1.35.0\n- 'botocore>=1.34.41'\nworking_dir: s3://bucket/code.zip\n",
      "# runtime env\npip:   # the SDK floor\n\n  - boto3>=1.35.0   # comment\n  - \"x\"  # c\n"
      "py_modules:\n  - s3://b/m.zip\nconda: env.yaml",
      "a: ~\nb: null\nc: Null\nd: NULL\ne: 'null'\nf: \"~\"\ng: 1\nh: 1.5\n",
      "key: value with spaces   \nk2: a#b\nk3: a:b\nk4: x, y [z] {w}\n",
      "$ref: x\n_k: y\nk.e-y/z: w\n",
      "dup: 1\ndup: 2\n",
      "a:\n  b:\n    c:\n      d: deep\n  e: f\ng: h\n",
      "pip: \"\"\nq: ''\n",
      "pip:\n  - a\n  - b\nnext: 1\n",
      "x:\n    - a\n    - b\ny:\n  z: 1\n",
  };
  for (const std::string& text : texts) {
    EXPECT_TRUE(takes_short_path(text, Limits{10'000, 64})) << text;
    expect_agree(text);
  }
}

TEST(YamlEvents, ShortPathLeavesEverythingElseToLibyaml) {
  const std::vector<std::string> texts = {
      "",
      "# only a comment\n",
      "scalar",
      "- a\n- b\n",
      "  indented: root\n",
      "a: 1\n---\nb: 2\n",
      "---\na: 1\n",
      "%YAML 1.1\n---\na: 1\n",
      "a: 1\n...\n",
      "a:\tb\n",
      "a: b\r\n",
      "a: \xc3\xa9\n",
      "a:\n",
      "a:\nb: 1\n",
      "a: [x, y]\n",
      "a: {x: 1}\n",
      "a: &anchor x\nb: *anchor\n",
      "a: !!str 1\n",
      "a: |\n  text\n",
      "a: >\n  text\n",
      "a: b\n  continued\n",
      "a: \"esc\\n\"\n",
      "a: 'it''s'\n",
      "a: \"x\" y\n",
      "a: \"x\"# c\n",
      "a: \"unclosed\n",
      "a: b: c\n",
      "a: b:\n",
      "a: -1\n",
      "a: - x\n",
      "a: @x\n",
      "a: `x\n",
      "a: %x\n",
      "a: ?x\n",
      "\"quoted\": key\n",
      "-dash: key\n",
      "a b: spaced key\n",
      "a : spaced colon\n",
      "a:b\n",
      "pip:\n  -\n  - x\n",
      "pip:\n  - \n",
      "pip:\n  - a: 1\n",
      "pip:\n  - - x\n",
      "pip:\n  - x\n  y: 1\n",
      "pip:\n  - x\n    y\n",
      "a:\n    b: 1\n  c: 2\n",
      "a:\n  b: 1\n c: 2\n",
      "a: 1\n b: 2\n",
      "a:\n  # only a comment\n",
      std::string(1001, 'k') + ": long key\n",
      "a: 1\n\x01\n",
  };
  for (const std::string& text : texts) {
    EXPECT_FALSE(takes_short_path(text, Limits{10'000, 64})) << text;
    expect_agree(text);
  }
  // Budgets: the short path declines what would overrun them, and libyaml reports it.
  EXPECT_FALSE(takes_short_path("a: 1\nb: 2\n", Limits{4, 64}));
  EXPECT_TRUE(takes_short_path("a: 1\nb: 2\n", Limits{5, 64}));
  EXPECT_FALSE(takes_short_path("a:\n  b:\n    c: 1\n", Limits{100, 2}));
}

// Every text built from these lines, one to three of them in any order, either takes the short
// path and builds what libyaml builds, or is left to libyaml.
TEST(YamlEvents, ShortPathAgreesOnGeneratedTexts) {
  const std::vector<std::string> parts = {
      "pip:\n", "  - a==1\n", "- b\n",    "  c: d\n",    "e: f\n",     "    - g\n", "  h:\n",
      "# c\n",  "\n",         "i: 'j'\n", "  - \"k\"\n", "l: m # n\n", "  o\n",     "p: ~\n",
  };
  int short_path = 0;
  int total = 0;
  for (const std::string& a : parts) {
    for (const std::string& b : parts) {
      for (const std::string& c : parts) {
        for (const std::string& text : {a, a + b, a + b + c}) {
          expect_agree(text);
          short_path += takes_short_path(text, Limits{10'000, 64}) ? 1 : 0;
          ++total;
        }
      }
    }
  }
  // The generator reaches both paths often (the figures pin it, so that a change to either the
  // parts or the reader is noticed).
  EXPECT_GT(short_path, 300) << total;
  EXPECT_GT(total - short_path, 1000) << total;
}

TEST(YamlEvents, RuntimeEnvCommentOnlyIsNullNotMapping) {
  const policy::RuntimeEnv env = parse_runtime_env("# nothing\n");
  EXPECT_EQ(env.parse, policy::RuntimeEnv::Parse::kNotMapping);
  EXPECT_EQ(env.parse_error, "YAML null, not a mapping");
}

TEST(YamlEvents, RuntimeEnvLeadingCommaIsInvalid) {
  const policy::RuntimeEnv env = parse_runtime_env(",");
  EXPECT_EQ(env.parse, policy::RuntimeEnv::Parse::kInvalid);
  EXPECT_NE(env.parse_error.find("line 1, column 1"), std::string::npos) << env.parse_error;
}

}  // namespace
}  // namespace rjg::admission::yaml
