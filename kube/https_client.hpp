// HttpsClient: one HTTPS request at a time to the Kubernetes API, over Boost.Beast + OpenSSL,
// with a deadline on every request. It knows nothing about Kubernetes objects; kube_api.hpp
// builds the requests and classifies the answers.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "kube/api_endpoint.hpp"
#include "kube/credentials.hpp"

namespace rjg::kube {

struct HttpRequest {
  std::string method;  // "GET", "DELETE", ...
  std::string target;  // path and query, already encoded
  std::string body;    // empty: no body
  std::string content_type = "application/json";
};

struct HttpResponse {
  int status = 0;
  std::string body;
  std::string retry_after;  // the Retry-After header, when present
};

// Receives a streamed body piece by piece; returns false to stop reading.
using BodySink = std::function<bool(std::string_view)>;

// A streamed request's limits: no byte for `idle` ends it (kUnavailable, timed out), and so does
// `stop` turning true (checked at least every 200 ms; the call then returns the status it had).
struct StreamLimits {
  std::chrono::seconds idle{90};
  const std::atomic<bool>* stop = nullptr;
};

// What the reaper, audit and the watch cache need from the network; an interface so that the
// reap loop, the retry policy and the watch cache are tested without sockets.
class Transport {
 public:
  virtual ~Transport() = default;
  // Sends `request` and returns the response, whatever its status code. Returns kUnavailable
  // when no HTTP response came back (resolve, connect, TLS, timeout, a cut connection).
  virtual Result<HttpResponse> send(const HttpRequest& request) = 0;
  // Sends `request`; for a 2xx answer hands the body to `sink` as it arrives, first an empty piece
  // as soon as the header is read (the returned body is empty), for any other status returns the
  // whole body as send does. Returns kUnavailable
  // when no response came back, or when the stream broke or idled out before the server ended it
  // or `sink` returned false.
  virtual Result<HttpResponse> stream(const HttpRequest& request, const BodySink& sink,
                                      const StreamLimits& limits) = 0;
};

class HttpsClient final : public Transport {
 public:
  // Returns kInvalidArgument when the CA PEM cannot be loaded. `endpoint` is copied; its login
  // becomes Credentials that run exec plugins with kube/exec_plugin.hpp, bounded by `timeout`.
  static Result<std::unique_ptr<HttpsClient>> create(const ApiEndpoint& endpoint,
                                                     std::chrono::seconds timeout);
  ~HttpsClient() override;

  // A new TLS connection per request: the reaper sends a handful of requests a minute, and a
  // fresh connection never inherits a half-closed one. The certificate is verified against the
  // CA and the endpoint host or tls-server-name (unless insecure-skip-tls-verify). The request
  // carries the credentials of the moment; after a 401 they are refreshed and, when that may
  // change them (a file, a plugin), the request is sent once more. Returns kUnavailable also
  // when the credentials cannot be had (the message says why).
  Result<HttpResponse> send(const HttpRequest& request) override;

  // A watch: the same connection and login as send, the body read as it arrives.
  Result<HttpResponse> stream(const HttpRequest& request, const BodySink& sink,
                              const StreamLimits& limits) override;

 private:
  struct Impl;
  explicit HttpsClient(std::unique_ptr<Impl> impl);
  // send and stream: the login of the moment, refreshed and tried once more after a 401.
  Result<HttpResponse> stream_or_send(const HttpRequest& request, const BodySink* sink,
                                      const StreamLimits& limits);
  // Whole body when `sink` is null, streamed to it otherwise.
  Result<HttpResponse> send_once(const HttpRequest& request, const Auth& auth,
                                 const BodySink* sink, const StreamLimits& limits);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rjg::kube
