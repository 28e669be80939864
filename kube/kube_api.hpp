// KubeApi: the Kubernetes calls reap and audit make (list RayJobs, page by page; delete one
// RayJob with a uid precondition; apply and delete audit's reports), the pure request builders behind them, the classification of
// API answers, and the capped exponential backoff with jitter for transient failures.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "admission/rayjob_list.hpp"
#include "common/result.hpp"
#include "kube/https_client.hpp"

namespace rjg::kube {

// GET target for one page: /apis/ray.io/v1/namespaces/NS/rayjobs (or /apis/ray.io/v1/rayjobs
// when `namespace_` is empty) with ?limit=N and, when not empty, &continue=TOKEN (escaped).
std::string list_target(const std::string& namespace_, int limit,
                        const std::string& continue_token);

// GET target for one page of any collection: PREFIX/RESOURCE (all namespaces) or
// PREFIX/namespaces/NS/RESOURCE, with ?limit=N and, when not empty, &continue=TOKEN (escaped).
// PREFIX is "/api/v1" or "/apis/GROUP/VERSION". list_target is this for ray.io/v1 rayjobs.
std::string collection_target(const std::string& prefix, const std::string& resource,
                              const std::string& namespace_, int limit,
                              const std::string& continue_token);

// DELETE target: /apis/ray.io/v1/namespaces/NS/rayjobs/NAME.
std::string delete_target(const std::string& namespace_, const std::string& name);

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string url_escape(const std::string& text);

// What an API answer means for the reaper.
enum class ApiOutcome {
  kOk,         // 2xx
  kNotFound,   // 404: already gone
  kConflict,   // 409: the uid precondition failed (replaced by a new object) or a conflict
  kRetryable,  // 429, 5xx, or no response at all: try again after a backoff
  kFatal,      // any other status (400, 401, 403, 422...): retrying cannot help
};
ApiOutcome classify_status(int status);
const char* api_outcome_name(ApiOutcome outcome);

// Capped exponential backoff with full jitter: attempt n (0-based) waits a uniformly random
// time in [0, min(cap, base * 2^n)], or Retry-After seconds when the server sent one (capped).
struct Backoff {
  int max_attempts = 6;  // total tries, the first included
  std::chrono::milliseconds base{200};
  std::chrono::milliseconds cap{10'000};
  // The ceiling of attempt `n`'s wait before jitter.
  std::chrono::milliseconds ceiling(int n) const;
};

// Called to wait between retries; tests pass a recorder instead of sleeping.
using Sleeper = std::function<void(std::chrono::milliseconds)>;

// The result of one API call after retries.
struct CallResult {
  ApiOutcome outcome = ApiOutcome::kFatal;
  int status = 0;     // last HTTP status; 0 when no response came back
  std::string body;   // last response body
  std::string error;  // last transport error, when status == 0
  int attempts = 0;
};

// "METHOD TARGET failed after N attempt(s): " and the last status with the start of its body, or
// the transport error.
std::string failure_text(std::string_view method, const std::string& target, const CallResult& r);

class KubeApi {
 public:
  // `transport` must outlive this object. `seed` fixes the jitter sequence (tests).
  KubeApi(Transport& transport, Backoff backoff, Sleeper sleeper, std::uint64_t seed);

  // Sends `request`, retrying kRetryable answers and transport errors per the backoff.
  CallResult call(const HttpRequest& request);

  // Lists one page. Returns kUnavailable when the API call finally failed (the message has the
  // status and body), kInvalidArgument when the body is not a RayJobList.
  Result<admission::RayJobListPage> list_page(const std::string& namespace_, int limit,
                                              const std::string& continue_token);

  // GETs `target` with retries. Returns the body of a 2xx answer, nullopt for 404 (say, a
  // resource type the cluster does not serve) and kUnavailable for any other final failure
  // (the message has the status and body).
  Result<std::optional<std::string>> get(const std::string& target);

  // Deletes one RayJob with a uid precondition; the CallResult says how it ended.
  CallResult delete_rayjob(const std::string& namespace_, const std::string& name,
                           const std::string& uid);

  // Server-side apply of `object` (one JSON object) at `target` (the object's path) as field
  // manager `manager`, forced: creates the object, or makes what `manager` set equal `object`.
  CallResult apply(const std::string& target, const std::string& object,
                   const std::string& manager);

  // Deletes the object at `target` (its path), with a uid precondition.
  CallResult remove(const std::string& target, const std::string& uid);

 private:
  Transport& transport_;
  Backoff backoff_;
  Sleeper sleeper_;
  std::mt19937_64 rng_;
};

}  // namespace rjg::kube
