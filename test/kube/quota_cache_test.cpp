// QuotaCache and list_quotas without sockets: each collection's sink replaces, adds and removes
// only its own objects in the published snapshot; an unreadable object is left out and counted;
// `check`'s one-off list reads ResourceQuotas and LocalQueues of one namespace and every
// ClusterQueue, takes Kueue's 404 as "not installed", and names an unreadable object.
#include "kube/quota_cache.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "test/kube/fake_transport.hpp"

namespace rjg::kube {
namespace {

using testing::FakeTransport;
using testing::response;

admission::WatchedObject object(const std::string& ns, const std::string& name,
                                const std::string& json) {
  return admission::WatchedObject{ns, name, json};
}

admission::WatchedObject quota(const std::string& ns, const std::string& name,
                               const std::string& cpu) {
  return object(ns, name,
                R"({"metadata":{"namespace":")" + ns + R"(","name":")" + name +
                    R"("},"spec":{"hard":{"requests.cpu":")" + cpu + R"("}}})");
}

admission::WatchedObject local_queue(const std::string& ns, const std::string& name,
                                     const std::string& cluster_queue) {
  return object(ns, name,
                R"({"metadata":{"namespace":")" + ns + R"(","name":")" + name +
                    R"("},"spec":{"clusterQueue":")" + cluster_queue + R"("}})");
}

admission::WatchedObject cluster_queue(const std::string& name, const std::string& cpu) {
  return object("", name,
                R"({"metadata":{"name":")" + name +
                    R"("},"spec":{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[)"
                    R"({"name":"default","resources":[{"name":"cpu","nominalQuota":")" +
                    cpu + R"("}]}]}]}})");
}

TEST(QuotaCache, EachSinkKeepsItsOwnCollection) {
  QuotaCache cache;
  EXPECT_EQ(cache.snapshot(), nullptr);
  cache.sink(QuotaCollection::kResourceQuotas)
      .replace({quota("b", "z", "1"), quota("b", "a", "2"), quota("a", "q", "3")});
  cache.sink(QuotaCollection::kLocalQueues).replace({local_queue("a", "batch", "team")});
  cache.sink(QuotaCollection::kClusterQueues).replace({cluster_queue("team", "8")});
  auto s = cache.snapshot();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->namespaces.size(), 2u);
  ASSERT_EQ(s->namespaces.at("b").size(), 2u);
  EXPECT_EQ(s->namespaces.at("b")[0].name, "a");  // name order
  EXPECT_EQ(s->local_queues.at("a/batch"), "team");
  EXPECT_EQ(s->cluster_queues.at("team").quotas.at(0).nominal, *policy::Quantity::parse("8"));

  // A change to one collection leaves the others as they were; the old snapshot is unchanged.
  cache.sink(QuotaCollection::kClusterQueues).upsert(cluster_queue("team", "16"));
  cache.sink(QuotaCollection::kResourceQuotas).erase("b", "z");
  cache.sink(QuotaCollection::kLocalQueues).replace({});
  auto t = cache.snapshot();
  EXPECT_EQ(t->namespaces.at("b").size(), 1u);
  EXPECT_TRUE(t->local_queues.empty());
  EXPECT_EQ(t->cluster_queues.at("team").quotas.at(0).nominal, *policy::Quantity::parse("16"));
  EXPECT_EQ(s->namespaces.at("b").size(), 2u);
  EXPECT_EQ(s->local_queues.size(), 1u);
}

TEST(QuotaCache, AnUnreadableObjectIsLeftOutAndCounted) {
  QuotaCache cache;
  cache.sink(QuotaCollection::kResourceQuotas).replace({quota("a", "q", "3")});
  // The same object changed to something this decoder cannot read: the old one is not kept.
  cache.sink(QuotaCollection::kResourceQuotas).upsert(quota("a", "q", "lots"));
  cache.sink(QuotaCollection::kClusterQueues).upsert(object("", "cq", R"({"metadata":{}})"));
  EXPECT_EQ(cache.unreadable(), 2);
  EXPECT_TRUE(cache.snapshot()->namespaces.empty());
  EXPECT_TRUE(cache.snapshot()->cluster_queues.empty());
}

std::string list_of(const std::vector<admission::WatchedObject>& items) {
  std::string out = R"({"metadata":{"resourceVersion":"9"},"items":[)";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : ",") + items[i].json;
  }
  return out + "]}";
}

KubeApi api_over(FakeTransport& t) {
  Backoff b;
  b.max_attempts = 1;
  return KubeApi(t, b, [](std::chrono::milliseconds) {}, 1);
}

TEST(ListQuotas, OneNamespaceAndEveryClusterQueue) {
  FakeTransport t([](const HttpRequest& r) -> Result<HttpResponse> {
    if (r.target.starts_with("/api/v1/namespaces/a/resourcequotas?")) {
      return response(200, list_of({quota("a", "q", "3")}));
    }
    if (r.target.starts_with("/apis/kueue.x-k8s.io/v1beta2/namespaces/a/localqueues?")) {
      return response(200, list_of({local_queue("a", "batch", "team")}));
    }
    if (r.target.starts_with("/apis/kueue.x-k8s.io/v1beta2/clusterqueues?")) {
      return response(200, list_of({cluster_queue("team", "8")}));
    }
    return response(500, "unexpected " + r.target);
  });
  KubeApi api = api_over(t);
  Result<std::shared_ptr<const policy::ClusterQuotas>> r = list_quotas(api, "a");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value()->namespaces.at("a").at(0).name, "q");
  EXPECT_EQ(r.value()->local_queues.at("a/batch"), "team");
  EXPECT_EQ(r.value()->cluster_queues.count("team"), 1u);
  EXPECT_EQ(t.requests.size(), 3u);
}

TEST(ListQuotas, KueueNotInstalledIsNoQueues) {
  FakeTransport t([](const HttpRequest& r) -> Result<HttpResponse> {
    if (r.target.starts_with("/api/v1/")) {
      return response(200, list_of({quota("a", "q", "3")}));
    }
    return response(404, R"({"kind":"Status","code":404})");
  });
  KubeApi api = api_over(t);
  Result<std::shared_ptr<const policy::ClusterQuotas>> r = list_quotas(api, "");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value()->namespaces.size(), 1u);
  EXPECT_TRUE(r.value()->local_queues.empty());
  EXPECT_TRUE(r.value()->cluster_queues.empty());
}

TEST(ListQuotas, ResourceQuotasNotServedOrUnreadableAreErrors) {
  {
    FakeTransport t([](const HttpRequest&) -> Result<HttpResponse> { return response(404); });
    KubeApi api = api_over(t);
    Result<std::shared_ptr<const policy::ClusterQuotas>> r = list_quotas(api, "a");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  }
  FakeTransport t([](const HttpRequest& r) -> Result<HttpResponse> {
    if (r.target.starts_with("/api/v1/")) {
      return response(200, list_of({}));
    }
    if (r.target.find("localqueues") != std::string::npos) {
      return response(200, list_of({local_queue("a", "batch", "")}));
    }
    return response(200, list_of({}));
  });
  KubeApi api = api_over(t);
  Result<std::shared_ptr<const policy::ClusterQuotas>> r = list_quotas(api, "a");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().message,
            "localqueues a/batch: spec.clusterQueue: required string is missing");
}

}  // namespace
}  // namespace rjg::kube
