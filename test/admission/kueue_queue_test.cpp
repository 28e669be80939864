// decode_local_queue and decode_cluster_queue: Kueue's queues as the API serves them (v1beta2)
// decode to what quota-fit reads; each malformed input gives kInvalidArgument naming the path.
#include "admission/kueue_queue.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

namespace rjg::admission {
namespace {

using policy::Quantity;

Quantity q(const char* text) { return *Quantity::parse(text); }

json::Document doc(std::string_view text) {
  Result<json::Document> d = json::parse(text);
  EXPECT_TRUE(d.ok()) << text;
  return d.ok() ? std::move(d).value() : json::Document();
}

TEST(KueueQueue, LocalQueue) {
  const json::Document d = doc(R"({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
    "metadata": {"name": "batch", "namespace": "tenant-a"},
    "spec": {"clusterQueue": "team", "stopPolicy": "None"}, "status": {"pendingWorkloads": 3}})");
  const json::Path root("");
  Result<DecodedLocalQueue> r = decode_local_queue(d, root);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().namespace_, "tenant-a");
  EXPECT_EQ(r.value().name, "batch");
  EXPECT_EQ(r.value().cluster_queue, "team");
}

TEST(KueueQueue, ClusterQueue) {
  const json::Document d = doc(R"({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
    "metadata": {"name": "team"},
    "spec": {"cohortName": "research", "namespaceSelector": {},
      "resourceGroups": [
        {"coveredResources": ["cpu", "memory"], "flavors": [
          {"name": "on-demand", "resources": [
            {"name": "cpu", "nominalQuota": 8, "borrowingLimit": "2"},
            {"name": "memory", "nominalQuota": "32Gi", "lendingLimit": "8Gi"}]},
          {"name": "spot", "resources": [
            {"name": "cpu", "nominalQuota": "500m"}, {"name": "memory", "nominalQuota": "0"}]}]},
        {"coveredResources": ["nvidia.com/gpu"], "flavors": [
          {"name": "a100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "4"}]}]}]}})");
  const json::Path root("");
  Result<policy::ClusterQueueSpec> r = decode_cluster_queue(d, root);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const policy::ClusterQueueSpec& cq = r.value();
  EXPECT_EQ(cq.name, "team");
  EXPECT_TRUE(cq.in_cohort);
  ASSERT_EQ(cq.quotas.size(), 5u);
  EXPECT_EQ(cq.quotas[0].flavor, "on-demand");
  EXPECT_EQ(cq.quotas[0].resource, "cpu");
  EXPECT_EQ(cq.quotas[0].nominal, q("8"));
  EXPECT_EQ(cq.quotas[0].borrowing_limit, q("2"));
  EXPECT_EQ(cq.quotas[1].nominal, q("32Gi"));
  EXPECT_FALSE(cq.quotas[1].borrowing_limit.has_value());
  EXPECT_EQ(cq.quotas[2].flavor, "spot");
  EXPECT_EQ(cq.quotas[2].nominal, q("500m"));
  EXPECT_EQ(cq.quotas[4].resource, "nvidia.com/gpu");
  // No cohort, no spec: nothing borrowed, nothing granted.
  const json::Document bare = doc(R"({"metadata": {"name": "solo"}, "spec": {"cohortName": ""}})");
  Result<policy::ClusterQueueSpec> s = decode_cluster_queue(bare, root);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_FALSE(s.value().in_cohort);
  EXPECT_TRUE(s.value().quotas.empty());
}

TEST(KueueQueue, MalformedNamesThePath) {
  const struct {
    const char* text;
    bool local;
    const char* error;
  } rows[] = {
      {R"([])", true, "expected a LocalQueue object, got array"},
      {R"({"kind": "ClusterQueue", "metadata": {"name": "a", "namespace": "n"},
          "spec": {"clusterQueue": "c"}})", true, "kind: expected LocalQueue, got \"ClusterQueue\""},
      {R"({"metadata": {"name": "a", "namespace": "n"}})", true, "spec: required object is missing"},
      {R"({"metadata": {"name": "a"}, "spec": {"clusterQueue": "c"}})", true,
       "metadata.namespace: required string is missing"},
      {R"({"metadata": {"name": "a", "namespace": "n"}, "spec": {"clusterQueue": ""}})", true,
       "spec.clusterQueue: required string is missing"},
      {R"({"metadata": {}})", false, "metadata.name: required string is missing"},
      {R"({"metadata": {"name": "c"}, "spec": {"cohortName": 3}})", false,
       "spec.cohortName: expected a string, got number"},
      {R"({"metadata": {"name": "c"}, "spec": {"resourceGroups": [{"flavors": [{"resources": []}]}]}})",
       false, "spec.resourceGroups[0].flavors[0].name: required string is missing"},
      {R"({"metadata": {"name": "c"}, "spec": {"resourceGroups": [{"flavors": [
          {"name": "f", "resources": [{"name": "cpu"}]}]}]}})",
       false, "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: required quantity is missing"},
      {R"({"metadata": {"name": "c"}, "spec": {"resourceGroups": [{"flavors": [
          {"name": "f", "resources": [{"name": "cpu", "nominalQuota": "-1"}]}]}]}})",
       false, "resources[0].nominalQuota: must be greater than or equal to 0, got \"-1\""},
      {R"({"metadata": {"name": "c"}, "spec": {"resourceGroups": [{"flavors": [
          {"name": "f", "resources": [{"name": "cpu", "nominalQuota": "1", "borrowingLimit": "lots"}]}]}]}})",
       false, "borrowingLimit: \"lots\" is not a Kubernetes quantity"},
      {R"({"metadata": {"name": "c", "name": "d"}})", false, "metadata: duplicate key \"name\""},
  };
  const json::Path root("");
  for (const auto& r : rows) {
    const json::Document d = doc(r.text);
    std::optional<Error> error;
    if (r.local) {
      if (auto l = decode_local_queue(d, root); !l) error = l.error();
    } else if (auto c = decode_cluster_queue(d, root); !c) {
      error = c.error();
    }
    ASSERT_TRUE(error.has_value()) << r.text;
    EXPECT_EQ(error->code, ErrorCode::kInvalidArgument) << r.text;
    EXPECT_NE(error->message.find(r.error), std::string::npos)
        << r.text << "\n  got: " << error->message << "\n  want: " << r.error;
  }
}

}  // namespace
}  // namespace rjg::admission
