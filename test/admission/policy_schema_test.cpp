// Tests admission/policy_schema: the embedded schema parses, agrees with the C++ tables (rule
// ids, feature gates, lifecycle modes), accepts the default policy and refuses misspelt keys and
// wrong enums with the key path.
#include "admission/policy_schema.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "admission/policy_file.hpp"
#include "admission/yaml_to_json.hpp"
#include "policy/kuberay/catalogue.hpp"
#include "policy/rule_id.hpp"

namespace rjg::admission {
namespace {

constexpr const char* kHeader = "apiVersion: rayjob-guard.io/v1\nkind: Policy\n";

json::Document schema_doc() {
  json::Document d;
  d.Parse(policy_schema_json().data(), policy_schema_json().size());
  EXPECT_FALSE(d.HasParseError());
  return d;
}

std::set<std::string> keys_of(const json::Value& v) {
  std::set<std::string> out;
  for (auto it = v["properties"].MemberBegin(); it != v["properties"].MemberEnd(); ++it) {
    out.insert(it->name.GetString());
  }
  return out;
}

std::set<std::string> enum_of(const json::Value& v) {
  std::set<std::string> out;
  for (const json::Value& e : v["enum"].GetArray()) {
    out.insert(e.GetString());
  }
  return out;
}

Status validate_yaml(const std::string& text) {
  Result<std::vector<YamlDocument>> docs = yaml_to_json(text);
  EXPECT_TRUE(docs.ok()) << docs.error().message;
  return validate_policy_schema(docs.value().front().doc);
}

TEST(PolicySchema, RuleIdsAreTheRulesOfTheBinary) {
  json::Document d = schema_doc();
  std::set<std::string> ids;
  for (policy::RuleId id : policy::kAllRules) {
    ids.insert(std::string(policy::rule_id_name(id)));
  }
  EXPECT_EQ(keys_of(d["definitions"]["policyRuleActions"]), ids);
}

TEST(PolicySchema, FeatureGatesAreTheGatesOfTheVersionTable) {
  json::Document d = schema_doc();
  std::set<std::string> gates;
  for (const policy::kuberay::GateRow& g : policy::kuberay::feature_gates()) {
    gates.insert(std::string(g.name));
  }
  EXPECT_EQ(keys_of(d["properties"]["kuberay"]["properties"]["featureGates"]), gates);
}

TEST(PolicySchema, EveryLifecycleModeOfTheSchemaLoads) {
  json::Document d = schema_doc();
  const std::set<std::string> modes = enum_of(d["properties"]["lifecycle"]["properties"]["mode"]);
  EXPECT_EQ(modes.size(), 4u);
  for (const std::string& mode : modes) {
    // A KubeRay version and gate each mode is valid with.
    const std::string kuberay =
        mode == "deletionPolicy" ? "{version: \"1.4\", featureGates: {RayJobDeletionPolicy: true}}"
                                 : "{version: \"1.6\"}";
    Result<LoadedPolicy> p = decode_policy(std::string(kHeader) + "kuberay: " + kuberay +
                                           "\nlifecycle: {mode: " + mode + "}\n");
    EXPECT_TRUE(p.ok()) << mode << ": " << p.error().message;
  }
}

// What only the schema refuses reaches decode_policy too: a quota entry for a namespace name
// Kubernetes cannot have (it would never match), which the hand-written checks accept.
TEST(PolicySchema, DecodePolicyAppliesTheSchema) {
  Result<LoadedPolicy> p =
      decode_policy(std::string(kHeader) + "quota: {namespaces: {Tenant_A: {pods: \"1\"}}}\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(p.error().message.rfind("quota.namespaces: ", 0), 0u) << p.error().message;
  EXPECT_NE(p.error().message.find("'Tenant_A'"), std::string::npos) << p.error().message;
  EXPECT_NE(p.error().message.find("admission/policy.schema.json"), std::string::npos);
  const std::string good =
      std::string(kHeader) + "quota: {namespaces: {tenant-b: {pods: \"1\"}}}\n";
  EXPECT_TRUE(decode_policy(good).ok());
}

TEST(PolicySchema, DefaultPolicyIsValid) {
  const Status st = validate_yaml(std::string(default_policy_yaml()));
  EXPECT_TRUE(st.ok()) << st.error().message;
}

TEST(PolicySchema, RefusesWithTheKeyPath) {
  struct Bad {
    std::string body;
    std::string path;  // the message starts with it
  };
  const Bad cases[] = {
      {"rules: {reap-slef: warn}\n", "rules"},
      {"rules: {image-pinned: deny}\n", "rules.image-pinned"},
      {"lifecycle: {mode: deletionRule}\n", "lifecycle.mode"},
      {"lifecycle: {mod: reaper}\n", "lifecycle"},
      {"lifecycle: {maxBackoffLimit: \"2\"}\n", "lifecycle.maxBackoffLimit"},
      {"images: {deny: [{pattern: \"x:*\"}]}\n", "images.deny[0]"},
      {"quota: {default: {requests.cpu: lots}}\n", "quota.default.requests.cpu"},
      {"quota: {unknownNamespace: allow}\n", "quota.unknownNamespace"},
      {"kuberay: {featureGates: {RayJobDeletionPolcy: true}}\n", "kuberay.featureGates"},
      {"extra: 1\n", "(the policy document)"},
  };
  for (const Bad& c : cases) {
    const Status st = validate_yaml(kHeader + c.body);
    ASSERT_FALSE(st.ok()) << c.body;
    EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument) << c.body;
    EXPECT_EQ(st.error().message.rfind(c.path + ":", 0), 0u)
        << c.body << " -> " << st.error().message;
  }
  const Status st = validate_yaml("kind: Policy\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("apiVersion"), std::string::npos) << st.error().message;
}

}  // namespace
}  // namespace rjg::admission
