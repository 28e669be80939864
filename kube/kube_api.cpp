// KubeApi: request builders, status classification, retries.
#include "kube/kube_api.hpp"

#include <algorithm>

#include "admission/rayjob_list.hpp"
#include "logging/log.hpp"

namespace rjg::kube {
namespace {

std::string snippet(const std::string& body) {
  constexpr std::size_t kMax = 300;
  return body.size() <= kMax ? body : body.substr(0, kMax) + "...";
}

// Retry-After in whole seconds (the apiserver never sends the HTTP-date form).
std::optional<std::chrono::milliseconds> retry_after(const std::string& value) {
  if (value.empty() || value.size() > 6 ||
      value.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::chrono::milliseconds(std::stoll(value) * 1000);
}

}  // namespace

std::string url_escape(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string collection_target(const std::string& prefix, const std::string& resource,
                              const std::string& namespace_, int limit,
                              const std::string& continue_token) {
  std::string target = namespace_.empty()
                           ? prefix + "/" + resource
                           : prefix + "/namespaces/" + url_escape(namespace_) + "/" + resource;
  target += "?limit=" + std::to_string(limit);
  if (!continue_token.empty()) {
    target += "&continue=" + url_escape(continue_token);
  }
  return target;
}

std::string list_target(const std::string& namespace_, int limit,
                        const std::string& continue_token) {
  return collection_target("/apis/ray.io/v1", "rayjobs", namespace_, limit, continue_token);
}

std::string delete_target(const std::string& namespace_, const std::string& name) {
  return "/apis/ray.io/v1/namespaces/" + url_escape(namespace_) + "/rayjobs/" + url_escape(name);
}

ApiOutcome classify_status(int status) {
  if (status >= 200 && status < 300) {
    return ApiOutcome::kOk;
  }
  if (status == 404) {
    return ApiOutcome::kNotFound;
  }
  if (status == 409) {
    return ApiOutcome::kConflict;
  }
  if (status == 429 || (status >= 500 && status < 600)) {
    return ApiOutcome::kRetryable;
  }
  return ApiOutcome::kFatal;
}

const char* api_outcome_name(ApiOutcome outcome) {
  switch (outcome) {
    case ApiOutcome::kOk:
      return "ok";
    case ApiOutcome::kNotFound:
      return "not-found";
    case ApiOutcome::kConflict:
      return "conflict";
    case ApiOutcome::kRetryable:
      return "retryable";
    case ApiOutcome::kFatal:
      return "fatal";
  }
  return "fatal";
}

std::string failure_text(std::string_view method, const std::string& target,
                         const CallResult& r) {
  return std::string(method) + " " + target + " failed after " + std::to_string(r.attempts) +
         " attempt(s): " +
         (r.status == 0 ? r.error : "HTTP " + std::to_string(r.status) + " " + snippet(r.body));
}

std::chrono::milliseconds Backoff::ceiling(int n) const {
  // Doubling stops at the cap, so no shift overflows.
  std::chrono::milliseconds wait = base;
  for (int i = 0; i < n && wait < cap; ++i) {
    wait *= 2;
  }
  return std::min(wait, cap);
}

KubeApi::KubeApi(Transport& transport, Backoff backoff, Sleeper sleeper, std::uint64_t seed)
    : transport_(transport), backoff_(backoff), sleeper_(std::move(sleeper)), rng_(seed) {}

CallResult KubeApi::call(const HttpRequest& request) {
  CallResult r;
  for (int attempt = 0; attempt < backoff_.max_attempts; ++attempt) {
    r.attempts = attempt + 1;
    Result<HttpResponse> resp = transport_.send(request);
    std::optional<std::chrono::milliseconds> server_wait;
    if (resp) {
      r.status = resp.value().status;
      r.body = std::move(resp.value().body);
      r.error.clear();
      r.outcome = classify_status(r.status);
      server_wait = retry_after(resp.value().retry_after);
    } else {
      r.status = 0;
      r.body.clear();
      r.error = resp.error().message;
      r.outcome = ApiOutcome::kRetryable;
    }
    if (r.outcome != ApiOutcome::kRetryable || attempt + 1 == backoff_.max_attempts) {
      return r;
    }
    std::chrono::milliseconds wait;
    if (server_wait) {
      wait = std::min(*server_wait, backoff_.cap);
    } else {
      std::uniform_int_distribution<std::int64_t> jitter(0, backoff_.ceiling(attempt).count());
      wait = std::chrono::milliseconds(jitter(rng_));
    }
    logging::log_event(logging::Level::kWarn, "api retry",
                       {{"method", request.method},
                        {"target", request.target},
                        {"attempt", static_cast<long long>(attempt + 1)},
                        {"status", static_cast<long long>(r.status)},
                        {"error", r.status == 0 ? r.error : snippet(r.body)},
                        {"wait_ms", static_cast<long long>(wait.count())}});
    sleeper_(wait);
  }
  return r;
}

Result<std::optional<std::string>> KubeApi::get(const std::string& target) {
  HttpRequest req;
  req.method = "GET";
  req.target = target;
  CallResult r = call(req);
  if (r.outcome == ApiOutcome::kOk) {
    return std::optional<std::string>(std::move(r.body));
  }
  if (r.outcome == ApiOutcome::kNotFound) {
    return std::optional<std::string>();
  }
  return unavailable(failure_text("GET", target, r));
}

Result<admission::RayJobListPage> KubeApi::list_page(const std::string& namespace_, int limit,
                                                     const std::string& continue_token) {
  HttpRequest req;
  req.method = "GET";
  req.target = list_target(namespace_, limit, continue_token);
  CallResult r = call(req);
  if (r.outcome != ApiOutcome::kOk) {
    return unavailable(failure_text("GET", req.target, r));
  }
  return admission::decode_rayjob_list(r.body);
}

CallResult KubeApi::delete_rayjob(const std::string& namespace_, const std::string& name,
                                  const std::string& uid) {
  return remove(delete_target(namespace_, name), uid);
}

CallResult KubeApi::apply(const std::string& target, const std::string& object,
                          const std::string& manager) {
  HttpRequest req;
  req.method = "PATCH";
  req.target = target + "?fieldManager=" + url_escape(manager) + "&force=true";
  req.body = object;  // JSON is YAML
  req.content_type = "application/apply-patch+yaml";
  return call(req);
}

CallResult KubeApi::remove(const std::string& target, const std::string& uid) {
  HttpRequest req;
  req.method = "DELETE";
  req.target = target;
  req.body = admission::encode_delete_options(uid);
  return call(req);
}

}  // namespace rjg::kube
