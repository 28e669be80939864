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

// document_spans gives byte offsets: libyaml's marks count characters (and not a leading
// byte-order mark), which once cut documents short or shifted them whenever a comment, key or
// value held a multi-byte character. Each span must hold exactly its document's bytes.
struct SpanRow {
  const char* name;
  std::string text;
  std::vector<std::string> documents;  // text.substr(begin, end - begin) of each span
};

TEST(YamlEvents, DocumentSpansAreByteOffsets) {
  const std::string bom = "\xEF\xBB\xBF";
  const std::vector<SpanRow> rows = {
      {"ascii", "a: 1\n---\nb: 2\n", {"a: 1\n", "---\nb: 2\n"}},
      {"2-byte comment", "a: 1 # caf\xC3\xA9\n---\nb: 2\n",
       {"a: 1 # caf\xC3\xA9\n", "---\nb: 2\n"}},
      {"3-byte dash comment", "# \xE2\x80\x94\xE2\x80\x94\na: 1\n---\nb: 2\n",
       {"a: 1\n", "---\nb: 2\n"}},
      {"4-byte key and value", "\xF0\x9F\x98\x80: \xF0\x9F\x98\x81\n---\nb: 2\n",
       {"\xF0\x9F\x98\x80: \xF0\x9F\x98\x81\n", "---\nb: 2\n"}},
      {"CRLF", "a: \xC3\xA9\r\n---\r\nb: 2\r\n", {"a: \xC3\xA9\r\n", "---\r\nb: 2\r\n"}},
      {"leading byte-order mark", bom + "a: 1\n---\nb: \xC3\xA9\n",
       {bom + "a: 1\n", "---\nb: \xC3\xA9\n"}},
      {"byte-order mark before a later document", "a: 1\n---\n" + bom + "b: 2\n",
       {"a: 1\n", "---\n" + bom + "b: 2\n"}},
  };
  for (const SpanRow& row : rows) {
    auto spans = document_spans(row.text);
    ASSERT_TRUE(spans.ok()) << row.name << ": " << spans.error().message;
    ASSERT_EQ(spans.value().size(), row.documents.size()) << row.name;
    for (std::size_t i = 0; i < row.documents.size(); ++i) {
      const DocumentSpan& s = spans.value()[i];
      EXPECT_EQ(row.text.substr(s.begin, s.end - s.begin), row.documents[i])
          << row.name << " #" << i;
    }
  }
}

// The byte offsets come from one forward pass: a stream of many documents full of multi-byte
// characters is read in time linear in its size (a rescan per document would be quadratic).
TEST(YamlEvents, DocumentSpansOfManyMultiByteDocuments) {
  std::string text;
  const std::string doc = "k\xC3\xA9y: \xE2\x80\x94 # \xF0\x9F\x98\x80\n---\n";
  for (int i = 0; i < 20'000; ++i) {
    text += doc;
  }
  auto spans = document_spans(text);
  ASSERT_TRUE(spans.ok()) << spans.error().message;
  ASSERT_EQ(spans.value().size(), 20'001u);  // the last `---` opens an empty document
  const DocumentSpan& last_full = spans.value()[19'999];
  EXPECT_EQ(text.substr(last_full.begin, last_full.end - last_full.begin),
            "---\n" + doc.substr(0, doc.size() - 4));
}

// kubectl_stream: what apimachinery's splitter (kubectl's) refuses or reads differently from
// libyaml is refused, with the line; the byte-order marks kubectl drops are dropped.
TEST(YamlEvents, KubectlStream) {
  struct Row {
    const char* name;
    std::string text;
    std::string out;  // the text to parse, or the error's start
  };
  const std::string bom = "\xEF\xBB\xBF";
  const std::vector<Row> rows = {
      {"separators with comments", "--- # first\na: 1\n---  \t# c\nb: 2\n---\r\nc: 3\n",
       "--- # first\na: 1\n---  \t# c\nb: 2\n---\r\nc: 3\n"},
      {"mark at the start", bom + "a: 1\n", "a: 1\n"},
      {"no final line break", "a: |+\n  x", "a: |+\n  x\n"},
      {"only a tab", "\n\t\n", "ERROR line 2: found character that cannot start any token"},
      {"only spaces", " \n  \n", " \n  \n"},
      {"mark at the start of a document", "a: 1\n---\n" + bom + "- b\n", "a: 1\n---\n- b\n"},
      {"mark inside a value", "a: x" + bom + "y\n", "a: x" + bom + "y\n"},
      {"content after ---", "a: 1\n--- {b: 2}\n", "ERROR line 2: a line that starts with `---`"},
      {"content on the first ---", "--- a: 1\n", "ERROR line 1: a line that starts with `---`"},
      {"block scalar on ---", "a: 1\n--- |\n  y\n", "ERROR line 2: a line that starts with `---`"},
      {"key that starts with ---", "---x: 1\n", "ERROR line 1: a line that starts with `---`"},
      {"four dashes", "a: 1\n----\n", "ERROR line 2: a line that starts with `---`"},
      {"comment right after ---", "1e-5\n---# c\nb: 2\n", "ERROR line 2: `---#`: kubectl ends"},
      {"comment right after the first ---", "---#c\na: 1\n", "ERROR line 1: `---#`: kubectl ends"},
      {"after the mark", bom + "--- 1\n", "ERROR line 1: a line that starts with `---`"},
      {"mark on a later line", "a: 1\n# c\n" + bom + "b: 2\n", "ERROR line 3: a byte-order mark"},
      {"mark after a comment in a document", "---\n# c\n" + bom + "b: 2\n",
       "ERROR line 3: a byte-order mark"},
      {"empty document ended", "a: 1\n---\n# c\n...\n", "ERROR line 4: `...` ends a document"},
      {"empty document ended after its ---", "---\n# c\n...\n---\na: 1\n",
       "---\n# c\n...\n---\na: 1\n"},
      {"mark after the first ---", "---\n" + bom + "a: 1\n", "ERROR line 2: a byte-order mark"},
      {"mark before a ---", "a: 1\n---\n" + bom + "---\nb: 2\n", "a: 1\n---\n---\nb: 2\n"},
      {"UTF-16LE", std::string("\xFF\xFE" "a\0:\0 \0" "1\0", 10),
       "ERROR byte offset 0: the text is UTF-16"},
      {"UTF-16BE", std::string("\xFE\xFF\0a", 4), "ERROR byte offset 0: the text is UTF-16"},
  };
  for (const Row& row : rows) {
    std::string storage;
    auto out = kubectl_stream(row.text, storage);
    if (row.out.starts_with("ERROR ")) {
      ASSERT_FALSE(out.ok()) << row.name;
      EXPECT_EQ(out.error().message.rfind(row.out.substr(6), 0), 0u)
          << row.name << ": " << out.error().message;
    } else {
      ASSERT_TRUE(out.ok()) << row.name << ": " << out.error().message;
      EXPECT_EQ(out.value(), row.out) << row.name;
    }
  }
}

TEST(YamlEvents, DirectivesAreRefused) {
  auto directive = document_spans("%YAML 1.1\n---\na: 1\n");
  ASSERT_FALSE(directive.ok());
  EXPECT_NE(directive.error().message.find("directives are not supported"), std::string::npos);
}

// go-yaml v2 (kubectl, the operator) does not know YAML 1.2's escape \/, which libyaml 0.2.5 reads.
TEST(YamlEvents, SlashEscapeIsRefused) {
  auto doc = parse_first_document("a: \"x\\/y\"\n");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().message.rfind("line 1, column 4: the escape \\/ is YAML 1.2", 0), 0u)
      << doc.error().message;
  EXPECT_TRUE(parse_first_document("a: \"x\\\\/y\"\nb: 'x\\/y'\n").ok());
}

// go-yaml v2 reads a `,` right after a tag as part of the tag ("[!!str, a]" is ["a"]
// there): refused; a space after the tag reads the same in both.
TEST(YamlEvents, TagRightBeforeAFlowIndicatorIsRefused) {
  for (const char* text : {"[!!str, a]\n", "{a: !!str, b: 1}\n", "[a, !x, b]\n"}) {
    auto doc = parse_first_document(text);
    ASSERT_FALSE(doc.ok()) << text;
    EXPECT_NE(doc.error().message.find("right after this tag as part of it"), std::string::npos)
        << doc.error().message;
  }
  EXPECT_TRUE(parse_first_document("[!!str , a, !!null '', b]\n").ok());
}

}  // namespace
}  // namespace rjg::admission::yaml
