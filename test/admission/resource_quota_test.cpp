// decode_resource_quota: a ResourceQuota as the API serves it decodes to its namespace and what
// quota-fit reads of it; each class of malformed input (what the apiserver refuses, or a wrong
// type) gives kInvalidArgument naming the JSON path.
#include "admission/resource_quota.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rjg::admission {
namespace {

using policy::Quantity;

constexpr const char* kQuota = R"({
  "apiVersion": "v1", "kind": "ResourceQuota",
  "metadata": {"name": "compute", "namespace": "tenant-a", "uid": "u-1", "resourceVersion": "7",
               "labels": {"team": "vision"}},
  "spec": {
    "hard": {"requests.cpu": "64", "limits.memory": "256Gi", "pods": "40",
             "requests.nvidia.com/gpu": 8, "count/services": "5", "cpu": "500m"},
    "scopes": ["NotTerminating"],
    "scopeSelector": {"matchExpressions": [
      {"scopeName": "PriorityClass", "operator": "In", "values": ["high", "urgent"]},
      {"scopeName": "PriorityClass", "operator": "Exists"}]}
  },
  "status": {"hard": {"pods": "1"}, "used": {"pods": "0"}}
})";

Quantity q(const char* text) { return *Quantity::parse(text); }

TEST(ResourceQuota, DecodesWhatQuotaFitReads) {
  Result<DecodedResourceQuota> r = decode_resource_quota(std::string_view(kQuota));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const DecodedResourceQuota& d = r.value();
  EXPECT_EQ(d.namespace_, "tenant-a");
  EXPECT_EQ(d.spec.name, "compute");
  // spec.hard, every key (status.hard is the controller's copy and is not read).
  EXPECT_EQ(d.spec.hard.size(), 6u);
  EXPECT_EQ(d.spec.hard.at("requests.cpu"), q("64"));
  EXPECT_EQ(d.spec.hard.at("limits.memory"), q("256Gi"));
  EXPECT_EQ(d.spec.hard.at("pods"), q("40"));
  EXPECT_EQ(d.spec.hard.at("requests.nvidia.com/gpu"), q("8"));
  EXPECT_EQ(d.spec.hard.at("count/services"), q("5"));
  EXPECT_EQ(d.spec.hard.at("cpu"), q("500m"));
  EXPECT_EQ(d.spec.scopes, std::vector<std::string>{"NotTerminating"});
  ASSERT_EQ(d.spec.scope_selector.size(), 2u);
  EXPECT_EQ(d.spec.scope_selector[0].scope_name, "PriorityClass");
  EXPECT_EQ(d.spec.scope_selector[0].op, "In");
  EXPECT_EQ(d.spec.scope_selector[0].values, (std::vector<std::string>{"high", "urgent"}));
  EXPECT_EQ(d.spec.scope_selector[1].op, "Exists");
  EXPECT_TRUE(d.spec.scope_selector[1].values.empty());
}

TEST(ResourceQuota, ListItemsAndEmptySpecs) {
  // A list's items carry no kind or apiVersion; a quota without spec, hard or scopes limits
  // nothing and covers every pod.
  for (const char* text :
       {R"({"metadata": {"name": "a", "namespace": "n"}})",
        R"({"metadata": {"name": "a", "namespace": "n"}, "spec": {}})",
        R"({"metadata": {"name": "a", "namespace": "n"}, "spec": {"hard": null, "scopes": null,
             "scopeSelector": {}}})"}) {
    Result<DecodedResourceQuota> r = decode_resource_quota(std::string_view(text));
    ASSERT_TRUE(r.ok()) << text << ": " << r.error().message;
    EXPECT_EQ(r.value().namespace_, "n");
    EXPECT_EQ(r.value().spec.name, "a");
    EXPECT_TRUE(r.value().spec.hard.empty());
    EXPECT_TRUE(r.value().spec.scopes.empty());
    EXPECT_TRUE(r.value().spec.scope_selector.empty());
  }
}

TEST(ResourceQuota, KeepsScopesOfALaterKubernetes) {
  // Not a name this build knows: kept, so that quota-fit counts every pod in it rather than lose
  // the quota.
  Result<DecodedResourceQuota> r = decode_resource_quota(std::string_view(
      R"({"metadata": {"name": "a", "namespace": "n"},
          "spec": {"scopes": ["SomeLaterScope"],
                   "scopeSelector": {"matchExpressions": [
                     {"scopeName": "AnotherScope", "operator": "Exists"}]}}})"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().spec.scopes, std::vector<std::string>{"SomeLaterScope"});
  EXPECT_EQ(r.value().spec.scope_selector.at(0).scope_name, "AnotherScope");
}

TEST(ResourceQuota, AValueWithAPath) {
  // The Value overload with a caller's path (a list item), and without (the path starts at "").
  Result<json::Document> doc = json::parse(
      R"({"metadata": {"name": "a", "namespace": "n"}, "spec": {"hard": {"cpu": "lots"}}})");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const json::Path items("items");
  const json::Path third = items.index(3);
  Result<DecodedResourceQuota> r = decode_resource_quota(doc.value(), third);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.error().message.rfind("items[3].spec.hard.cpu: \"lots\" is not a Kubernetes quantity", 0),
      0u)
      << r.error().message;
  Result<DecodedResourceQuota> bare = decode_resource_quota(doc.value());
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().message.rfind("spec.hard.cpu: ", 0), 0u) << bare.error().message;
}

struct Bad {
  std::string label;
  std::string json;
  std::string prefix;  // the message starts with this: the path, then what is wrong
};

std::string with_spec(const std::string& spec) {
  return R"({"metadata": {"name": "a", "namespace": "n"}, "spec": )" + spec + "}";
}

TEST(ResourceQuota, MalformedInputNamesThePath) {
  const std::vector<Bad> cases = {
      {"not json", "{", ""},
      {"an array", "[]", "expected a ResourceQuota object, got array"},
      {"another kind", R"({"kind": "LimitRange", "metadata": {"name": "a", "namespace": "n"}})",
       "kind: expected ResourceQuota, got \"LimitRange\""},
      {"another apiVersion",
       R"({"apiVersion": "v2", "metadata": {"name": "a", "namespace": "n"}})",
       "apiVersion: expected v1, got \"v2\""},
      {"no metadata", R"({"spec": {}})", "metadata: required object is missing"},
      {"no name", R"({"metadata": {"namespace": "n"}})", "metadata.name: required string"},
      {"no namespace", R"({"metadata": {"name": "a"}})", "metadata.namespace: required string"},
      {"a name of another type", R"({"metadata": {"name": 1, "namespace": "n"}})",
       "metadata.name: expected a string, got number"},
      {"duplicate key", R"({"metadata": {"name": "a", "name": "b", "namespace": "n"}})",
       "metadata: duplicate key \"name\""},
      {"hard not a map", with_spec(R"({"hard": ["cpu"]})"), "spec.hard: expected an object"},
      {"hard quantity not parseable", with_spec(R"({"hard": {"requests.memory": "64GB"}})"),
       "spec.hard.requests.memory: \"64GB\" is not a Kubernetes quantity"},
      {"hard quantity with a space", with_spec(R"({"hard": {"cpu": " 1"}})"),
       "spec.hard.cpu: \" 1\" is not a Kubernetes quantity"},
      {"hard quantity negative", with_spec(R"({"hard": {"limits.cpu": "-1"}})"),
       "spec.hard.limits.cpu: must be greater than or equal to 0, got \"-1\""},
      {"hard quantity a fraction of JSON", with_spec(R"({"hard": {"cpu": 1.5}})"),
       "spec.hard.cpu: expected a quantity (string or integer), got number"},
      {"pods not an integer", with_spec(R"({"hard": {"pods": "1500m"}})"),
       "spec.hard.pods: must be an integer, got \"1500m\""},
      {"count/ not an integer", with_spec(R"({"hard": {"count/pods": "0.5"}})"),
       "spec.hard.count/pods: must be an integer"},
      {"scopes not a list", with_spec(R"({"scopes": "BestEffort"})"),
       "spec.scopes: expected an array"},
      {"scope not a string", with_spec(R"({"scopes": [1]})"), "spec.scopes[0]: expected a string"},
      {"selector without scopeName",
       with_spec(R"({"scopeSelector": {"matchExpressions": [{"operator": "Exists"}]}})"),
       "spec.scopeSelector.matchExpressions[0].scopeName: required string is missing"},
      {"an unknown operator",
       with_spec(R"({"scopeSelector": {"matchExpressions": [
           {"scopeName": "PriorityClass", "operator": "Equals", "values": ["a"]}]}})"),
       "spec.scopeSelector.matchExpressions[0].operator: expected In, NotIn, Exists or "
       "DoesNotExist, got \"Equals\""},
      {"In without values",
       with_spec(R"({"scopeSelector": {"matchExpressions": [
           {"scopeName": "PriorityClass", "operator": "In"}]}})"),
       "spec.scopeSelector.matchExpressions[0].values: must be at least one value when operator "
       "is In"},
      {"NotIn with an empty list",
       with_spec(R"({"scopeSelector": {"matchExpressions": [
           {"scopeName": "PriorityClass", "operator": "NotIn", "values": []}]}})"),
       "spec.scopeSelector.matchExpressions[0].values: must be at least one value"},
      {"Exists with values",
       with_spec(R"({"scopeSelector": {"matchExpressions": [
           {"scopeName": "PriorityClass", "operator": "Exists", "values": ["a"]}]}})"),
       "spec.scopeSelector.matchExpressions[0].values: must be no value when operator is Exists"},
      {"an expression not an object",
       with_spec(R"({"scopeSelector": {"matchExpressions": ["PriorityClass"]}})"),
       "spec.scopeSelector.matchExpressions[0]: expected an object, got string"},
  };
  for (const Bad& c : cases) {
    Result<DecodedResourceQuota> r = decode_resource_quota(std::string_view(c.json));
    ASSERT_FALSE(r.ok()) << c.label;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << c.label;
    EXPECT_EQ(r.error().message.rfind(c.prefix, 0), 0u)
        << c.label << "\n  message: " << r.error().message << "\n  wanted prefix: " << c.prefix;
  }
}

}  // namespace
}  // namespace rjg::admission
