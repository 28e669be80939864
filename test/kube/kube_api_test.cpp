// KubeApi without sockets: request targets and bodies, status classification, and the retry
// policy (capped exponential backoff with jitter, Retry-After, no retry on 404/409/403).
#include "kube/kube_api.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "admission/rayjob_list.hpp"
#include "test/kube/fake_transport.hpp"

namespace rjg::kube {
namespace {

using std::chrono::milliseconds;
using testing::FakeTransport;
using testing::response;

TEST(KubeApiRequests, ListTargets) {
  EXPECT_EQ(list_target("tenant-a", 100, ""),
            "/apis/ray.io/v1/namespaces/tenant-a/rayjobs?limit=100");
  EXPECT_EQ(list_target("", 5, ""), "/apis/ray.io/v1/rayjobs?limit=5");
  EXPECT_EQ(list_target("", 5, "eyJ2Ijoi/+=="),
            "/apis/ray.io/v1/rayjobs?limit=5&continue=eyJ2Ijoi%2F%2B%3D%3D");
}

TEST(KubeApiRequests, DeleteTargetAndBody) {
  EXPECT_EQ(delete_target("tenant-a", "rj-1"), "/apis/ray.io/v1/namespaces/tenant-a/rayjobs/rj-1");
  EXPECT_EQ(admission::encode_delete_options("6f1c-uid"),
            R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background",)"
            R"("preconditions":{"uid":"6f1c-uid"}})");
  // A uid is the server's, but the body stays valid JSON whatever it holds.
  EXPECT_EQ(admission::encode_delete_options("a\"b\\c\n"),
            R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background",)"
            R"("preconditions":{"uid":"a\"b\\c\n"}})");
}

TEST(KubeApiRequests, UrlEscape) {
  EXPECT_EQ(url_escape("aZ09-_.~"), "aZ09-_.~");
  EXPECT_EQ(url_escape("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
}

TEST(KubeApiClassify, Statuses) {
  struct Case {
    int status;
    ApiOutcome want;
  };
  for (const Case& c : std::vector<Case>{{200, ApiOutcome::kOk},
                                         {202, ApiOutcome::kOk},
                                         {404, ApiOutcome::kNotFound},
                                         {409, ApiOutcome::kConflict},
                                         {429, ApiOutcome::kRetryable},
                                         {500, ApiOutcome::kRetryable},
                                         {503, ApiOutcome::kRetryable},
                                         {504, ApiOutcome::kRetryable},
                                         {400, ApiOutcome::kFatal},
                                         {401, ApiOutcome::kFatal},
                                         {403, ApiOutcome::kFatal},
                                         {422, ApiOutcome::kFatal},
                                         {301, ApiOutcome::kFatal}}) {
    SCOPED_TRACE(c.status);
    EXPECT_EQ(classify_status(c.status), c.want);
  }
}

TEST(KubeApiBackoff, CeilingDoublesToTheCap) {
  Backoff b;
  b.base = milliseconds(100);
  b.cap = milliseconds(1000);
  EXPECT_EQ(b.ceiling(0), milliseconds(100));
  EXPECT_EQ(b.ceiling(1), milliseconds(200));
  EXPECT_EQ(b.ceiling(3), milliseconds(800));
  EXPECT_EQ(b.ceiling(4), milliseconds(1000));
  EXPECT_EQ(b.ceiling(60), milliseconds(1000));
}

struct Recorder {
  std::vector<milliseconds> waits;
  Sleeper sleeper() {
    return [this](milliseconds d) { waits.push_back(d); };
  }
};

TEST(KubeApiRetry, RetriesTransientThenSucceeds) {
  int n = 0;
  FakeTransport t([&](const HttpRequest&) -> Result<HttpResponse> {
    ++n;
    if (n == 1) {
      return unavailable("connect https://127.0.0.1:1: Connection refused");
    }
    if (n == 2) {
      return response(500, R"({"kind":"Status","code":500})");
    }
    if (n == 3) {
      return response(429, "{}");
    }
    return response(200, "{}");
  });
  Recorder rec;
  Backoff b;
  b.base = milliseconds(100);
  b.cap = milliseconds(250);
  KubeApi api(t, b, rec.sleeper(), 1);
  const CallResult r = api.call(HttpRequest{"GET", "/x", "", "application/json"});
  EXPECT_EQ(r.outcome, ApiOutcome::kOk);
  EXPECT_EQ(r.attempts, 4);
  ASSERT_EQ(rec.waits.size(), 3u);
  // Full jitter: each wait lies in [0, ceiling(attempt)], the ceiling capped.
  EXPECT_LE(rec.waits[0], milliseconds(100));
  EXPECT_LE(rec.waits[1], milliseconds(200));
  EXPECT_LE(rec.waits[2], milliseconds(250));
}

TEST(KubeApiRetry, JitterVaries) {
  FakeTransport t([](const HttpRequest&) -> Result<HttpResponse> { return response(503); });
  Recorder rec;
  Backoff b;
  b.max_attempts = 40;
  b.base = milliseconds(1000);
  b.cap = milliseconds(1000);
  KubeApi api(t, b, rec.sleeper(), 7);
  const CallResult r = api.call(HttpRequest{"GET", "/x", "", "application/json"});
  EXPECT_EQ(r.outcome, ApiOutcome::kRetryable);
  EXPECT_EQ(r.attempts, 40);
  ASSERT_EQ(rec.waits.size(), 39u);
  milliseconds lo = rec.waits[0], hi = rec.waits[0];
  for (const milliseconds w : rec.waits) {
    EXPECT_LE(w, milliseconds(1000));
    lo = std::min(lo, w);
    hi = std::max(hi, w);
  }
  EXPECT_GT(hi - lo, milliseconds(300));  // 39 uniform draws in [0, 1000] spread out
}

TEST(KubeApiRetry, HonoursRetryAfterWithinTheCap) {
  int n = 0;
  FakeTransport t([&](const HttpRequest&) -> Result<HttpResponse> {
    return ++n == 1 ? response(429, "{}", "2")
                    : (n == 2 ? response(429, "{}", "99") : response(200));
  });
  Recorder rec;
  Backoff b;
  b.cap = milliseconds(5000);
  KubeApi api(t, b, rec.sleeper(), 1);
  EXPECT_EQ(api.call(HttpRequest{"GET", "/x", "", ""}).outcome, ApiOutcome::kOk);
  ASSERT_EQ(rec.waits.size(), 2u);
  EXPECT_EQ(rec.waits[0], milliseconds(2000));
  EXPECT_EQ(rec.waits[1], milliseconds(5000));
}

TEST(KubeApiRetry, GivesUpAfterMaxAttempts) {
  FakeTransport t([](const HttpRequest&) -> Result<HttpResponse> {
    return unavailable("read from https://h:1: end of stream");
  });
  Recorder rec;
  Backoff b;
  b.max_attempts = 3;
  KubeApi api(t, b, rec.sleeper(), 1);
  const CallResult r = api.call(HttpRequest{"DELETE", "/x", "{}", "application/json"});
  EXPECT_EQ(r.outcome, ApiOutcome::kRetryable);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_NE(r.error.find("end of stream"), std::string::npos);
  EXPECT_EQ(rec.waits.size(), 2u);
  EXPECT_EQ(t.requests.size(), 3u);
}

TEST(KubeApiRetry, NeverRetriesFinalAnswers) {
  for (const int status : {404, 409, 403, 400}) {
    SCOPED_TRACE(status);
    FakeTransport t([&](const HttpRequest&) -> Result<HttpResponse> { return response(status); });
    Recorder rec;
    KubeApi api(t, Backoff{}, rec.sleeper(), 1);
    const CallResult r = api.call(HttpRequest{"DELETE", "/x", "{}", ""});
    EXPECT_EQ(r.attempts, 1);
    EXPECT_TRUE(rec.waits.empty());
    EXPECT_EQ(r.outcome, classify_status(status));
  }
}

TEST(KubeApiCalls, DeleteSendsPreconditionBody) {
  FakeTransport t([](const HttpRequest&) -> Result<HttpResponse> { return response(200); });
  Recorder rec;
  KubeApi api(t, Backoff{}, rec.sleeper(), 1);
  const CallResult r = api.delete_rayjob("tenant-a", "rj-1", "uid-1");
  EXPECT_EQ(r.outcome, ApiOutcome::kOk);
  ASSERT_EQ(t.requests.size(), 1u);
  EXPECT_EQ(t.requests[0].method, "DELETE");
  EXPECT_EQ(t.requests[0].target, "/apis/ray.io/v1/namespaces/tenant-a/rayjobs/rj-1");
  EXPECT_EQ(t.requests[0].body, admission::encode_delete_options("uid-1"));
  EXPECT_EQ(t.requests[0].content_type, "application/json");
}

TEST(KubeApiCalls, ApplyIsAForcedServerSidePatchAsTheManager) {
  FakeTransport t([](const HttpRequest&) -> Result<HttpResponse> { return response(201); });
  Recorder rec;
  KubeApi api(t, Backoff{}, rec.sleeper(), 1);
  const std::string object = R"({"apiVersion":"openreports.io/v1alpha1","kind":"Report"})";
  const CallResult r = api.apply("/apis/openreports.io/v1alpha1/namespaces/a/reports/r", object,
                                 "rayjob-guard audit");
  EXPECT_EQ(r.outcome, ApiOutcome::kOk);
  ASSERT_EQ(t.requests.size(), 1u);
  EXPECT_EQ(t.requests[0].method, "PATCH");
  EXPECT_EQ(t.requests[0].target,
            "/apis/openreports.io/v1alpha1/namespaces/a/reports/r"
            "?fieldManager=rayjob-guard%20audit&force=true");
  EXPECT_EQ(t.requests[0].body, object);
  EXPECT_EQ(t.requests[0].content_type, "application/apply-patch+yaml");
}

TEST(KubeApiCalls, FailureTextNamesTheCallAndTheAnswer) {
  FakeTransport t([](const HttpRequest&) -> Result<HttpResponse> {
    return response(403, R"({"kind":"Status","reason":"Forbidden"})");
  });
  Recorder rec;
  KubeApi api(t, Backoff{}, rec.sleeper(), 1);
  const CallResult r = api.remove("/api/v1/namespaces/a/configmaps/c", "u-1");
  EXPECT_EQ(r.outcome, ApiOutcome::kFatal);
  EXPECT_EQ(t.requests[0].body, admission::encode_delete_options("u-1"));
  EXPECT_EQ(failure_text("DELETE", "/api/v1/namespaces/a/configmaps/c", r),
            R"(DELETE /api/v1/namespaces/a/configmaps/c failed after 1 attempt(s): HTTP 403 )"
            R"({"kind":"Status","reason":"Forbidden"})");
}

TEST(KubeApiCalls, ListFailureSaysWhy) {
  FakeTransport t([](const HttpRequest&) -> Result<HttpResponse> {
    return response(403, R"({"kind":"Status","reason":"Forbidden"})");
  });
  Recorder rec;
  KubeApi api(t, Backoff{}, rec.sleeper(), 1);
  Result<admission::RayJobListPage> page = api.list_page("", 10, "");
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(page.error().message.find("HTTP 403"), std::string::npos);
  EXPECT_NE(page.error().message.find("Forbidden"), std::string::npos);
}

TEST(KubeApiCalls, ListBodyThatIsNotAListIsInvalid) {
  FakeTransport t([](const HttpRequest&) -> Result<HttpResponse> {
    return response(200, R"({"kind":"Status"})");
  });
  Recorder rec;
  KubeApi api(t, Backoff{}, rec.sleeper(), 1);
  Result<admission::RayJobListPage> page = api.list_page("", 10, "");
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace rjg::kube
