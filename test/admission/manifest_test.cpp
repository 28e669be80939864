// Tests admission/manifest and admission/check: one decode path for YAML and JSON manifests.
#include "admission/manifest.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "admission/check.hpp"

namespace rjg::admission {
namespace {

constexpr const char* kRayJobYaml = R"(apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: yj  # a bare `y` would be the boolean true, as in kubectl
spec:
  backoffLimit: 1
  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          containers:
          - name: head
            image: rayproject/ray:2.52.0
            resources: {limits: {cpu: 1, memory: 2Gi}}
)";

TEST(Manifest, YamlAndJsonDecodeTheSame) {
  auto y = read_manifests(kRayJobYaml);
  ASSERT_TRUE(y.ok()) << y.error().message;
  auto j = read_manifests(R"({"apiVersion":"ray.io/v1","kind":"RayJob","metadata":{"name":"yj"},
    "spec":{"backoffLimit":1,"rayClusterSpec":{"headGroupSpec":{"template":{"spec":{"containers":[
    {"name":"head","image":"rayproject/ray:2.52.0","resources":{"limits":{"cpu":1,"memory":"2Gi"}}}]}}}}}})");
  ASSERT_TRUE(j.ok()) << j.error().message;
  ASSERT_EQ(y.value().size(), 1u);
  ASSERT_EQ(j.value().size(), 1u);
  EXPECT_TRUE(y.value()[0].doc == j.value()[0].doc);
  EXPECT_TRUE(is_rayjob_manifest(y.value()[0]));
}

TEST(Manifest, ListIsExpandedAndOtherKindsKept) {
  auto m = read_manifests(
      "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: "
      "c}}\n"
      "- {apiVersion: ray.io/v1, kind: RayJob, metadata: {name: r}}\n---\n"
      "apiVersion: apps/v1\nkind: Deployment\n");
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m.value().size(), 3u);
  EXPECT_FALSE(is_rayjob_manifest(m.value()[0]));
  EXPECT_TRUE(is_rayjob_manifest(m.value()[1]));
  EXPECT_EQ(m.value()[2].kind, "Deployment");
  EXPECT_EQ(m.value()[2].document, 2u);
}

TEST(Manifest, ScalarDocumentIsAnError) {
  auto m = read_manifests("just text\n");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("document 1"), std::string::npos) << m.error().message;
}

TEST(Manifest, BrokenJsonReportsTheJsonErrorWithOffset) {
  auto m =
      read_manifests("{\n \"apiVersion\": \"ray.io/v1\",\n \"kind\": \"RayJob\",\n \"spec\": {\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(m.error().message.find("not valid JSON"), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find("offset"), std::string::npos) << m.error().message;
}

TEST(Manifest, FlowMappingYamlStartingWithBraceIsYaml) {
  auto m = read_manifests("{apiVersion: ray.io/v1, kind: RayJob}\n");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(is_rayjob_manifest(m.value().at(0)));
}

TEST(Manifest, NestingIsBoundedWithAMessageThatNamesTheLimit) {
  // 64 levels (the root mapping and 63 sequences) are read; one more is refused, before yaml-cpp
  // builds anything, with the limit in the message. 100k levels are refused the same way, in time
  // linear in the text (the first 65 levels are all that is read).
  auto nest = [](int sequences) {
    return "a: " + std::string(static_cast<std::size_t>(sequences), '[') +
           std::string(static_cast<std::size_t>(sequences), ']') + "\n";
  };
  EXPECT_TRUE(read_manifests(nest(63)).ok()) << read_manifests(nest(63)).error().message;
  for (int levels : {64, 100'000}) {
    auto deep = read_manifests(nest(levels));
    ASSERT_FALSE(deep.ok()) << levels;
    EXPECT_EQ(deep.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(deep.error().message.find("nesting deeper than 64 levels (the limit)"),
              std::string::npos)
        << deep.error().message;
  }
}

TEST(Manifest, EmptyAndCommentOnlyFilesHoldNoObject) {
  // read_manifests says "nothing" with an empty list; `check` turns that into bad input unless
  // --allow-empty (test/cli check_empty_input).
  for (const char* text : {"", "\n", "# only a comment\n", "---\n# c\n---\n"}) {
    auto objects = read_manifests(text);
    ASSERT_TRUE(objects.ok()) << text;
    EXPECT_TRUE(objects.value().empty()) << text;
  }
}

// Issue 23: multi-byte characters in comments, keys and values, a byte-order mark and CRLF line
// ends must not change which objects a multi-document manifest holds, nor their values: each
// variant reads as its ASCII twin (the old reader cut or shifted documents after such text).
TEST(Manifest, MultiByteTextKeepsEveryObject) {
  const std::string dash = "\xE2\x80\x94";
  const std::string ascii =
      "# -- tenant a --\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"
      "data: {note: plain}\n---\n# --\napiVersion: ray.io/v1\nkind: RayJob\n"
      "metadata: {name: job}\nspec: {backoffLimit: 0}\n";
  const std::vector<std::pair<std::string, std::string>> variants = {
      {"3-byte comments", "# " + dash + dash + " tenant a " + dash + dash +
                              "\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"
                              "data: {note: plain}\n---\n# " + dash +
                              "\napiVersion: ray.io/v1\nkind: RayJob\n"
                              "metadata: {name: job}\nspec: {backoffLimit: 0}\n"},
      {"2- and 4-byte comments",
       "# \xC3\xA9quipe \xF0\x9F\x98\x80\n" + ascii.substr(ascii.find('\n') + 1)},
      {"byte-order mark", "\xEF\xBB\xBF" + ascii},
      {"CRLF", [&] {
         std::string crlf;
         for (char c : ascii) {
           crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
         }
         return crlf;
       }()},
  };
  for (const auto& [name, text] : variants) {
    auto m = read_manifests(text);
    ASSERT_TRUE(m.ok()) << name << ": " << m.error().message;
    ASSERT_EQ(m.value().size(), 2u) << name;
    EXPECT_EQ(m.value()[0].kind, "ConfigMap") << name;
    EXPECT_EQ(std::string(m.value()[0].doc["data"]["note"].GetString()), "plain") << name;
    ASSERT_TRUE(is_rayjob_manifest(m.value()[1])) << name;
    EXPECT_EQ(std::string(m.value()[1].doc["metadata"]["name"].GetString()), "job") << name;
    EXPECT_EQ(m.value()[1].doc["spec"]["backoffLimit"].GetInt(), 0) << name;
  }
  // A multi-byte value is kept as written.
  auto v = read_manifests("apiVersion: v1\nkind: ConfigMap\ndata: {note: \"caf\xC3\xA9 " + dash +
                          "\"}\n");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(std::string(v.value()[0].doc["data"]["note"].GetString()), "caf\xC3\xA9 " + dash);
}

TEST(Check, RayJobWithoutNameGetsARemark) {
  const LoadedPolicy policy = decode_policy(default_policy_yaml()).value();
  auto none = check_manifests("apiVersion: ray.io/v1\nkind: RayJob\nspec: {}\n", {}, policy);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(none.value().at(0).remark.rfind("no metadata:", 0), 0u) << none.value().at(0).remark;
  auto unnamed = check_manifests(
      "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {labels: {a: b}}\nspec: {}\n", {}, policy);
  ASSERT_TRUE(unnamed.ok());
  EXPECT_EQ(unnamed.value().at(0).remark.rfind("no metadata.name or metadata.generateName", 0), 0u);
  auto named = check_manifests(
      "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {generateName: run-}\nspec: {}\n", {},
      policy);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named.value().at(0).remark, "");
}

TEST(Check, WrongTypeNamesDocumentAndPath) {
  Result<LoadedPolicy> p = decode_policy(default_policy_yaml());
  ASSERT_TRUE(p.ok());
  auto r = check_manifests("apiVersion: ray.io/v1\nkind: RayJob\nspec:\n  backoffLimit: \"1\"\n",
                           {}, p.value());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "document 1 (line 1): spec.backoffLimit: expected an integer, got string");
}

TEST(Check, NamespaceResolution) {
  Result<LoadedPolicy> p = decode_policy(default_policy_yaml());
  ASSERT_TRUE(p.ok());
  const std::string with_ns =
      "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: a, namespace: x}\n";
  const std::string without = "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: a}\n";
  auto own = check_manifests(with_ns, {}, p.value());
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own.value()[0].namespace_, "x");
  auto flag = check_manifests(without, CheckOptions{"tenant-a", nullptr}, p.value());
  ASSERT_TRUE(flag.ok());
  EXPECT_EQ(flag.value()[0].namespace_, "tenant-a");
  auto dflt = check_manifests(without, {}, p.value());
  ASSERT_TRUE(dflt.ok());
  EXPECT_EQ(dflt.value()[0].namespace_, "default");
  auto conflict = check_manifests(with_ns, CheckOptions{"tenant-a", nullptr}, p.value());
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(conflict.error().message.find("does not match the namespace"), std::string::npos);
}

TEST(Check, NonRayJobIsSkipped) {
  Result<LoadedPolicy> p = decode_policy(default_policy_yaml());
  ASSERT_TRUE(p.ok());
  auto r = check_manifests("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", {}, p.value());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().size(), 1u);
  EXPECT_FALSE(r.value()[0].is_rayjob);
  EXPECT_EQ(r.value()[0].name, "c");
  EXPECT_TRUE(r.value()[0].verdict.allowed);
}

}  // namespace
}  // namespace rjg::admission
