// Tests server/router.cpp: every path, method, content type and size case, and the one
// ErrorCode -> HTTP status mapping, without sockets.
#include "server/router.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rjg::server {
namespace {

constexpr std::size_t kCap = 1024;

RequestHead post(std::string target, std::string content_type = "application/json",
                 std::optional<std::uint64_t> length = 10) {
  RequestHead h;
  h.method = "POST";
  h.target = std::move(target);
  h.content_type = std::move(content_type);
  h.content_length = length;
  return h;
}

// A review function that echoes the body, or fails with the code named by the body.
Result<admission::ReviewResult> fake_review(std::string_view body, const admission::LoadedPolicy&) {
  if (body == "invalid") {
    return invalid_argument("request.uid: missing");
  }
  if (body == "unsupported") {
    return unsupported("apiVersion: admission.k8s.io/v1beta1 is not supported");
  }
  if (body == "unavailable") {
    return unavailable("try later");
  }
  if (body == "internal") {
    return internal_error("bug");
  }
  admission::ReviewResult r;
  r.body = "{\"echo\":\"" + std::string(body) + "\"}";
  r.summary.uid = "u1";
  r.summary.allowed = false;
  r.summary.denied_rules = {"reap-self"};
  return r;
}

Services fake_services() {
  Services s;
  s.policy = std::make_shared<const admission::LoadedPolicy>();
  s.max_body_bytes = kCap;
  s.review = fake_review;
  return s;
}

Request request(RequestHead head, std::string body) {
  head.content_length = body.size();
  return Request{std::move(head), std::move(body)};
}

TEST(Router, AdmissionPaths) {
  EXPECT_TRUE(is_admission_path("/validate"));
  EXPECT_TRUE(is_admission_path("/validate?timeout=5s"));
  EXPECT_TRUE(is_admission_path("/validate-ray-io-v1-rayjob"));
  EXPECT_TRUE(is_admission_path("/validate-ray-io-v1-rayjob?timeout=10s"));
  EXPECT_FALSE(is_admission_path("/"));
  EXPECT_FALSE(is_admission_path("/validate/"));
  EXPECT_FALSE(is_admission_path("/validatex"));
  EXPECT_FALSE(is_admission_path("/mutate"));
  EXPECT_FALSE(is_admission_path(""));
}

struct HeadCase {
  const char* name;
  RequestHead head;
  std::optional<unsigned> status;  // nullopt: read the body
};

TEST(Router, CheckHeadTable) {
  RequestHead get = post("/validate");
  get.method = "GET";
  RequestHead put = post("/validate");
  put.method = "PUT";
  RequestHead chunked = post("/validate", "application/json", std::nullopt);
  chunked.chunked = true;
  const HeadCase cases[] = {
      {"ok", post("/validate"), std::nullopt},
      {"ok with query", post("/validate?timeout=5s"), std::nullopt},
      {"ok kuberay path", post("/validate-ray-io-v1-rayjob"), std::nullopt},
      {"ok charset", post("/validate", "application/json; charset=utf-8"), std::nullopt},
      {"ok case", post("/validate", "Application/JSON"), std::nullopt},
      {"ok chunked", chunked, std::nullopt},
      {"ok at cap", post("/validate", "application/json", kCap), std::nullopt},
      {"unknown path", post("/"), 404},
      {"unknown path 2", post("/validate/extra"), 404},
      {"get", get, 405},
      {"put", put, 405},
      {"no content type", post("/validate", ""), 415},
      {"text/plain", post("/validate", "text/plain"), 415},
      {"json suffix", post("/validate", "application/json-patch+json"), 415},
      {"over cap", post("/validate", "application/json", kCap + 1), 413},
      {"huge", post("/validate", "application/json", 1ULL << 40), 413},
      {"empty", post("/validate", "application/json", 0), 400},
      {"no length", post("/validate", "application/json", std::nullopt), 400},
  };
  for (const auto& c : cases) {
    auto r = check_head(c.head, kCap);
    if (!c.status) {
      EXPECT_FALSE(r.has_value()) << c.name;
      continue;
    }
    ASSERT_TRUE(r.has_value()) << c.name;
    EXPECT_EQ(r->status, *c.status) << c.name;
    EXPECT_FALSE(r->body.empty()) << c.name;
    EXPECT_FALSE(r->summary.has_value()) << c.name;
  }
}

TEST(Router, MethodNotAllowedSaysAllow) {
  RequestHead get = post("/validate");
  get.method = "GET";
  auto r = check_head(get, kCap);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->headers.size(), 1U);
  EXPECT_EQ(r->headers[0].first, "Allow");
  EXPECT_EQ(r->headers[0].second, "POST");
}

TEST(Router, ErrorCodeToStatus) {
  EXPECT_EQ(http_status(ErrorCode::kInvalidArgument), 400U);
  EXPECT_EQ(http_status(ErrorCode::kUnsupported), 400U);
  EXPECT_EQ(http_status(ErrorCode::kUnavailable), 503U);
  EXPECT_EQ(http_status(ErrorCode::kInternal), 500U);
}

TEST(Router, ReviewErrorsBecomeShortText) {
  const Services s = fake_services();
  const struct {
    const char* body;
    unsigned status;
    const char* message;
  } cases[] = {
      {"invalid", 400, "request.uid: missing\n"},
      {"unsupported", 400, "apiVersion: admission.k8s.io/v1beta1 is not supported\n"},
      {"unavailable", 503, "try later\n"},
      {"internal", 500, "bug\n"},
  };
  for (const auto& c : cases) {
    const Response r = route(request(post("/validate"), c.body), s);
    EXPECT_EQ(r.status, c.status) << c.body;
    EXPECT_EQ(r.body, c.message) << c.body;
    EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
    EXPECT_FALSE(r.summary.has_value());
  }
}

TEST(Router, DecodedReviewIs200WithBodyAndSummary) {
  const Response r = route(request(post("/validate?timeout=5s"), "x"), fake_services());
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, "{\"echo\":\"x\"}");
  ASSERT_TRUE(r.summary.has_value());
  EXPECT_EQ(r.summary->uid, "u1");
  EXPECT_EQ(r.summary->denied_rules, std::vector<std::string>{"reap-self"});
}

TEST(Router, BodyOverCapIs413EvenWhenChunked) {
  RequestHead h = post("/validate", "application/json", std::nullopt);
  h.chunked = true;
  const Response r = route(Request{h, std::string(kCap + 1, ' ')}, fake_services());
  EXPECT_EQ(r.status, 413U);
}

TEST(Router, ReadFailureTable) {
  // The statuses a session answers when it cannot read a request come from the router too.
  struct Row {
    ReadFailure failure;
    unsigned status;
    std::string body;
  };
  const std::vector<Row> rows = {
      {ReadFailure::kHeaderTooLarge, 431, "request header too large\n"},
      {ReadFailure::kBodyTooLarge, 413, "request body too large: the limit is 1024 bytes\n"},
      {ReadFailure::kMalformed, 400, "bad request: bad method\n"},
  };
  for (const Row& row : rows) {
    const Response r = read_failure(row.failure, "bad method", kCap);
    EXPECT_EQ(r.status, row.status) << row.body;
    EXPECT_EQ(r.body, row.body);
  }
  // The head check and the read failure give a client over the cap the same words.
  EXPECT_EQ(check_head(post("/validate", "application/json", kCap + 1), kCap)->body,
            read_failure(ReadFailure::kBodyTooLarge, "", kCap).body);
  EXPECT_EQ(internal_error_response().status, 500U);
}

// A large review whose lane is full: 503 (the apiserver applies failurePolicy at once), a text
// naming the lane's size, and Retry-After.
TEST(Router, OverloadedIs503WithRetryAfter) {
  const Response r = overloaded_response(131072);
  EXPECT_EQ(r.status, 503U);
  EXPECT_EQ(r.body,
            "overloaded: too many large reviews (bodies of 131072 bytes or more) in progress; "
            "retry\n");
  ASSERT_EQ(r.headers.size(), 1U);
  EXPECT_EQ(r.headers[0].first, "Retry-After");
  EXPECT_EQ(r.headers[0].second, "1");
}

TEST(Router, EmptyChunkedBodyIs400) {
  RequestHead h = post("/validate", "application/json", std::nullopt);
  h.chunked = true;
  EXPECT_EQ(route(Request{h, ""}, fake_services()).status, 400U);
}

TEST(Router, NoPolicyIs503) {
  Services s = fake_services();
  s.policy.reset();
  EXPECT_EQ(route(request(post("/validate"), "x"), s).status, 503U);
}

TEST(Router, RealReviewRejectsGarbageWith400) {
  Services s;
  auto policy = admission::decode_policy(admission::default_policy_yaml());
  ASSERT_TRUE(policy.ok());
  s.policy = std::make_shared<const admission::LoadedPolicy>(std::move(policy).value());
  for (const char* body : {"not json", "[]", "{\"apiVersion\":\"admission.k8s.io/v1\"}"}) {
    const Response r = route(request(post("/validate"), body), s);
    EXPECT_EQ(r.status, 400U) << body;
    EXPECT_GT(r.body.size(), 1U) << body;
    EXPECT_EQ(r.body.back(), '\n');
  }
}

RequestHead get(std::string target) {
  RequestHead h;
  h.method = "GET";
  h.target = std::move(target);
  return h;
}

TEST(RouterProbe, HealthReadyMetrics) {
  ProbeState ready{true, false, [] { return std::string("m 1\n"); }};
  ProbeState starting{false, false, nullptr};
  ProbeState draining{true, true, nullptr};
  EXPECT_EQ(route_probe(get("/healthz"), ready).status, 200U);
  EXPECT_EQ(route_probe(get("/healthz"), draining).status, 200U);
  EXPECT_EQ(route_probe(get("/readyz"), ready).status, 200U);
  EXPECT_EQ(route_probe(get("/readyz"), starting).status, 503U);
  EXPECT_EQ(route_probe(get("/readyz"), draining).status, 503U);
  const Response m = route_probe(get("/metrics"), ready);
  EXPECT_EQ(m.status, 200U);
  EXPECT_EQ(m.body, "m 1\n");
  EXPECT_EQ(m.content_type.rfind("text/plain; version=0.0.4", 0), 0U);
  EXPECT_EQ(route_probe(get("/validate"), ready).status, 404U);
  RequestHead p = get("/metrics");
  p.method = "POST";
  const Response r = route_probe(p, ready);
  EXPECT_EQ(r.status, 405U);
  ASSERT_EQ(r.headers.size(), 1U);
  EXPECT_EQ(r.headers[0].first, "Allow");
}

}  // namespace
}  // namespace rjg::server
