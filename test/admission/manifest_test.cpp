// Tests admission/manifest and admission/check: one decode path for YAML and JSON manifests.
#include "admission/manifest.hpp"

#include <gtest/gtest.h>

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
  auto flag = check_manifests(without, CheckOptions{"tenant-a"}, p.value());
  ASSERT_TRUE(flag.ok());
  EXPECT_EQ(flag.value()[0].namespace_, "tenant-a");
  auto dflt = check_manifests(without, {}, p.value());
  ASSERT_TRUE(dflt.ok());
  EXPECT_EQ(dflt.value()[0].namespace_, "default");
  auto conflict = check_manifests(with_ns, CheckOptions{"tenant-a"}, p.value());
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
