// The router: one HTTP request in, one HTTP response out, with no sockets, clocks or globals.
// Sessions only do I/O and call these functions; every status code the webhook can answer is
// decided here, and ErrorCode -> HTTP status is mapped in exactly one place (http_status()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "admission/policy_file.hpp"
#include "admission/review.hpp"
#include "common/file.hpp"
#include "common/result.hpp"

namespace rjg::server {

// What the router needs of a request before its body is read.
struct RequestHead {
  std::string method;        // "POST", "GET", ... as received
  std::string target;        // origin-form target, query included: "/validate?timeout=5s"
  std::string content_type;  // the Content-Type header, "" when absent
  std::optional<std::uint64_t> content_length;  // Content-Length when present
  bool chunked = false;                         // Transfer-Encoding: chunked
};

struct Request {
  RequestHead head;
  std::string body;
};

struct Response {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers (Allow, ...)
  // Set when an AdmissionReview was decoded and answered: what the edge logs and counts.
  std::optional<admission::ReviewSummary> summary;
};

// The review function: rjg::admission::review in production; tests may pass another to reach
// error codes the real decoder does not produce.
using ReviewFn = std::function<Result<admission::ReviewResult>(std::string_view,
                                                               const admission::LoadedPolicy&)>;

// What route() needs besides the request. Callers keep `policy` (a snapshot taken when the
// request started) alive for the call.
struct Services {
  std::shared_ptr<const admission::LoadedPolicy> policy;
  std::size_t max_body_bytes = kMaxInputBytes;
  ReviewFn review;  // empty = rjg::admission::review
  // The cluster's ResourceQuotas (a snapshot) when the policy takes quota from the cluster.
  std::shared_ptr<const policy::ClusterQuotas> cluster_quotas;
};

// Returns the HTTP status for an input error of `code` on POST /validate:
// kInvalidArgument/kUnsupported -> 400 (the body cannot be decoded; failurePolicy applies),
// kUnavailable -> 503, kInternal -> 500.
unsigned http_status(ErrorCode code);

// Returns true for the admission paths: "/validate" and KubeRay's "/validate-ray-io-v1-rayjob",
// with any query string.
bool is_admission_path(std::string_view target);

// Checks a request header before its body is read. Returns the error response (404 unknown path,
// 405 wrong method with Allow, 415 wrong Content-Type, 413 Content-Length over the cap, 400 empty
// body) or nullopt when the body should be read and passed to route().
std::optional<Response> check_head(const RequestHead& head, std::size_t max_body_bytes);

// Returns the response to a complete HTTPS request: check_head()'s answer, or 413 when the body
// is over the cap, 400 when it is empty or cannot be decoded (the error message as text), or 200
// with the response AdmissionReview byte-identical to `rayjob-guard review` and `summary` set.
Response route(const Request& request, const Services& services);

// Why a session could not read a whole request. The session classifies its transport error; the
// status is decided here with the rest.
enum class ReadFailure {
  kHeaderTooLarge,  // the header is over the session's header limit
  kBodyTooLarge,    // Content-Length or the body read so far is over max_body_bytes
  kMalformed,       // anything else the HTTP parser refused
};

// Returns the response to a request that could not be read: 431 for kHeaderTooLarge, 413 naming
// the limit for kBodyTooLarge, 400 "bad request: <detail>" for kMalformed.
Response read_failure(ReadFailure failure, std::string_view detail, std::size_t max_body_bytes);

// Returns the 500 answered when a review threw: a bug, never a path.
Response internal_error_response();

// Returns the 503 answered when a large review (a body of at least `large_review_bytes`) finds
// its lane full (review_pool.hpp), with Retry-After: 1. The apiserver treats it as a webhook failure and applies the failurePolicy
// at once, instead of waiting for a review that could not start before its timeout.
Response overloaded_response(std::size_t large_review_bytes);

// What the probe port reports. Callers keep `metrics_text` callable for the call.
struct ProbeState {
  bool ready = false;     // certificate and policy loaded, HTTPS listener accepting
  bool draining = false;  // shutdown started: /readyz answers 503
  std::function<std::string()> metrics_text;  // Prometheus text exposition
};

// Returns the response on the plain-HTTP probe port: GET/HEAD /healthz -> 200, /readyz -> 200 when
// ready and not draining else 503, /metrics -> 200 text/plain; version=0.0.4; 404/405 otherwise.
Response route_probe(const RequestHead& head, const ProbeState& state);

}  // namespace rjg::server
