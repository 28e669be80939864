// run_reap_pass over a scripted transport: paging, what gets deleted, dry-run, 404/409 races,
// a failed deletion, a failed listing.
#include "reaper/reap_pass.hpp"

#include <gtest/gtest.h>

#include <string>

#include "test/kube/fake_transport.hpp"

namespace rjg::reaper {
namespace {

using kube::testing::FakeTransport;
using kube::testing::response;

constexpr std::int64_t kNow = 1'795'964'849 + 100;  // 100 s after 2026-11-29T15:07:29Z
constexpr const char* kEnd = "2026-11-29T15:07:29Z";

std::string rayjob(const std::string& name, const std::string& status, const std::string& deploy,
                   const std::string& success_ttl, const std::string& failure_ttl,
                   bool with_end = true) {
  std::string s = R"({"metadata":{"name":")" + name + R"(","namespace":"tenant-a","uid":"uid-)" +
                  name + R"(","annotations":{"rayjob-guard.io/ttl-after-success":")" + success_ttl +
                  R"(","rayjob-guard.io/ttl-after-failure":")" + failure_ttl +
                  R"("}},"status":{"jobStatus":")" + status + R"(","jobDeploymentStatus":")" +
                  deploy + R"(","message":"exit 1")";
  if (with_end) {
    s += R"(,"endTime":")" + std::string(kEnd) + "\"";
  }
  return s + "}}";
}

std::string page(const std::string& items, const std::string& cont) {
  return R"({"kind":"RayJobList","apiVersion":"ray.io/v1","metadata":{"continue":")" + cont +
         R"("},"items":[)" + items + "]}";
}

ReapOptions options() {
  ReapOptions o;
  o.namespace_ = "tenant-a";
  o.page_size = 2;
  o.lifecycle.max_succeeded_ttl_seconds = 600;
  o.lifecycle.min_failed_ttl_seconds = 60;
  o.lifecycle.max_failed_ttl_seconds = 3600;
  return o;
}

kube::KubeApi make_api(FakeTransport& t) {
  kube::Backoff b;
  b.max_attempts = 3;
  return kube::KubeApi(
      t, b, [](std::chrono::milliseconds) {}, 1);
}

// Two pages: done-ok (succeeded, ttl 30: due), running (never), done-bad (failed, ttl 200: not
// due), no-end (succeeded without endTime: skip), old-bad (failed, ttl 60: due).
Result<kube::HttpResponse> two_pages(const kube::HttpRequest& r, int delete_status) {
  if (r.method == "GET" && r.target == "/apis/ray.io/v1/namespaces/tenant-a/rayjobs?limit=2") {
    return response(200, page(rayjob("done-ok", "SUCCEEDED", "Complete", "30", "200") + "," +
                                  rayjob("running", "RUNNING", "Running", "0", "0"),
                              "p2"));
  }
  if (r.method == "GET" &&
      r.target == "/apis/ray.io/v1/namespaces/tenant-a/rayjobs?limit=2&continue=p2") {
    return response(200, page(rayjob("done-bad", "FAILED", "Failed", "30", "200") + "," +
                                  rayjob("no-end", "SUCCEEDED", "Complete", "0", "0", false) + "," +
                                  rayjob("old-bad", "FAILED", "Failed", "30", "60"),
                              ""));
  }
  if (r.method == "DELETE") {
    return response(delete_status);
  }
  return response(400, "unexpected " + r.method + " " + r.target);
}

TEST(ReapPass, DeletesOnlyDueRayJobsAcrossPages) {
  FakeTransport t([](const kube::HttpRequest& r) { return two_pages(r, 200); });
  kube::KubeApi api = make_api(t);
  const ReapStats s = run_reap_pass(api, options(), [] { return kNow; });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.listed, 5);
  EXPECT_EQ(s.deleted, 2);
  EXPECT_EQ(s.kept, 2);
  EXPECT_EQ(s.skipped, 1);
  std::vector<std::string> deleted;
  for (const kube::HttpRequest& r : t.requests) {
    if (r.method == "DELETE") {
      deleted.push_back(r.target);
      EXPECT_NE(r.body.find(R"("propagationPolicy":"Background")"), std::string::npos);
    }
  }
  EXPECT_EQ(deleted,
            (std::vector<std::string>{"/apis/ray.io/v1/namespaces/tenant-a/rayjobs/done-ok",
                                      "/apis/ray.io/v1/namespaces/tenant-a/rayjobs/old-bad"}));
  EXPECT_NE(t.requests.back().body.find(R"("uid":"uid-old-bad")"), std::string::npos);
}

TEST(ReapPass, DryRunNeverDeletes) {
  FakeTransport t([](const kube::HttpRequest& r) { return two_pages(r, 200); });
  kube::KubeApi api = make_api(t);
  ReapOptions o = options();
  o.dry_run = true;
  const ReapStats s = run_reap_pass(api, o, [] { return kNow; });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.deleted, 2);
  for (const kube::HttpRequest& r : t.requests) {
    EXPECT_EQ(r.method, "GET");
  }
}

TEST(ReapPass, RacesAreNotErrors) {
  for (const int status : {404, 409}) {
    SCOPED_TRACE(status);
    FakeTransport t([&](const kube::HttpRequest& r) { return two_pages(r, status); });
    kube::KubeApi api = make_api(t);
    const ReapStats s = run_reap_pass(api, options(), [] { return kNow; });
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(s.deleted, 0);
    EXPECT_EQ(s.already_gone, 2);
    EXPECT_EQ(s.failed, 0);
  }
}

TEST(ReapPass, FinallyFailedDeletionFailsThePass) {
  for (const int status : {500, 403}) {
    SCOPED_TRACE(status);
    FakeTransport t([&](const kube::HttpRequest& r) { return two_pages(r, status); });
    kube::KubeApi api = make_api(t);
    const ReapStats s = run_reap_pass(api, options(), [] { return kNow; });
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.failed, 2);
    // 500 is retried up to max_attempts (3) per deletion; 403 is final at once.
    int deletes = 0;
    for (const kube::HttpRequest& r : t.requests) {
      deletes += r.method == "DELETE" ? 1 : 0;
    }
    EXPECT_EQ(deletes, status == 500 ? 6 : 2);
  }
}

TEST(ReapPass, ListFailureStopsAndFails) {
  FakeTransport t([](const kube::HttpRequest& r) -> Result<kube::HttpResponse> {
    if (r.target.find("continue=p2") != std::string::npos) {
      return response(200, R"({"kind":"RayJobList","items":"oops"})");
    }
    return two_pages(r, 200);
  });
  kube::KubeApi api = make_api(t);
  const ReapStats s = run_reap_pass(api, options(), [] { return kNow; });
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.list_failed);
  EXPECT_NE(s.list_error.find("items"), std::string::npos);
  EXPECT_EQ(s.listed, 2);
  EXPECT_EQ(s.deleted, 1);  // the first page was handled before the second failed
}

}  // namespace
}  // namespace rjg::reaper
