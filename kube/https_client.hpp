// HttpsClient: one HTTPS request at a time to the Kubernetes API, over Boost.Beast + OpenSSL,
// with a deadline on every request. It knows nothing about Kubernetes objects; kube_api.hpp
// builds the requests and classifies the answers.
#pragma once

#include <chrono>
#include <memory>
#include <string>

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

// The one operation the reaper needs from the network; an interface so that the reap loop and
// the retry policy are tested without sockets.
class Transport {
 public:
  virtual ~Transport() = default;
  // Sends `request` and returns the response, whatever its status code. Returns kUnavailable
  // when no HTTP response came back (resolve, connect, TLS, timeout, a cut connection).
  virtual Result<HttpResponse> send(const HttpRequest& request) = 0;
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

 private:
  struct Impl;
  explicit HttpsClient(std::unique_ptr<Impl> impl);
  Result<HttpResponse> send_once(const HttpRequest& request, const Auth& auth);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rjg::kube
