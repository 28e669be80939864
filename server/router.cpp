// Request -> Response for the HTTPS admission port and the plain-HTTP probe port.
#include "server/router.hpp"

#include <cctype>

namespace rjg::server {
namespace {

std::string_view path_of(std::string_view target) {
  const auto q = target.find('?');
  return q == std::string_view::npos ? target : target.substr(0, q);
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// "application/json" or "application/json; charset=utf-8" (media type case-insensitive).
bool is_json_content_type(std::string_view value) {
  const auto semi = value.find(';');
  std::string_view media = value.substr(0, semi);
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) {
    media.remove_suffix(1);
  }
  while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) {
    media.remove_prefix(1);
  }
  return iequals(media, "application/json");
}

Response text(unsigned status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  r.body += '\n';
  return r;
}

Response body_too_large(std::size_t max_body_bytes) {
  return text(413,
              "request body too large: the limit is " + std::to_string(max_body_bytes) + " bytes");
}

Response empty_body() { return text(400, "empty request body: expected an AdmissionReview"); }

}  // namespace

unsigned http_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kUnsupported:
      return 400;
    case ErrorCode::kUnavailable:
      return 503;
    case ErrorCode::kInternal:
      return 500;
  }
  return 500;
}

bool is_admission_path(std::string_view target) {
  const std::string_view path = path_of(target);
  return path == "/validate" || path == "/validate-ray-io-v1-rayjob";
}

std::optional<Response> check_head(const RequestHead& head, std::size_t max_body_bytes) {
  if (!is_admission_path(head.target)) {
    return text(404, "not found: POST AdmissionReviews to /validate");
  }
  if (head.method != "POST") {
    Response r = text(405, "method not allowed: use POST");
    r.headers.emplace_back("Allow", "POST");
    return r;
  }
  if (!is_json_content_type(head.content_type)) {
    return text(415, "unsupported media type: Content-Type must be application/json");
  }
  if (head.content_length && *head.content_length > max_body_bytes) {
    return body_too_large(max_body_bytes);
  }
  if (!head.chunked && (!head.content_length || *head.content_length == 0)) {
    return empty_body();
  }
  return std::nullopt;
}

Response route(const Request& request, const Services& services) {
  if (auto early = check_head(request.head, services.max_body_bytes)) {
    return *std::move(early);
  }
  if (request.body.size() > services.max_body_bytes) {
    return body_too_large(services.max_body_bytes);
  }
  if (request.body.empty()) {
    return empty_body();
  }
  if (!services.policy) {
    return text(503, "no policy loaded");
  }
  Result<admission::ReviewResult> result = services.review
                                               ? services.review(request.body, *services.policy)
                                               : admission::review(request.body, *services.policy,
                                                                   services.cluster_quotas);
  if (!result.ok()) {
    return text(http_status(result.error().code), result.error().message);
  }
  Response r;
  r.status = 200;
  r.content_type = "application/json";
  r.body = std::move(result.value().body);
  r.summary = std::move(result.value().summary);
  return r;
}

Response read_failure(ReadFailure failure, std::string_view detail, std::size_t max_body_bytes) {
  switch (failure) {
    case ReadFailure::kHeaderTooLarge:
      return text(431, "request header too large");
    case ReadFailure::kBodyTooLarge:
      return body_too_large(max_body_bytes);
    case ReadFailure::kMalformed:
      break;
  }
  return text(400, "bad request: " + std::string(detail));
}

Response internal_error_response() { return text(500, "internal error"); }

Response overloaded_response(std::size_t large_review_bytes) {
  Response r = text(503, "overloaded: too many large reviews (bodies of " +
                             std::to_string(large_review_bytes) +
                             " bytes or more) in progress; retry");
  r.headers.emplace_back("Retry-After", "1");
  return r;
}

Response route_probe(const RequestHead& head, const ProbeState& state) {
  const std::string_view path = path_of(head.target);
  if (path != "/healthz" && path != "/readyz" && path != "/metrics") {
    return text(404, "not found: /healthz, /readyz, /metrics");
  }
  if (head.method != "GET" && head.method != "HEAD") {
    Response r = text(405, "method not allowed: use GET");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  if (path == "/healthz") {
    return text(200, "ok");
  }
  if (path == "/readyz") {
    if (state.draining) {
      return text(503, "draining");
    }
    return state.ready ? text(200, "ok") : text(503, "not ready");
  }
  Response r;
  r.status = 200;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = state.metrics_text ? state.metrics_text() : std::string();
  return r;
}

}  // namespace rjg::server
