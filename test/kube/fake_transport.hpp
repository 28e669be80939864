// FakeTransport: a scripted kube::Transport for tests without sockets. Each request is
// recorded; the answer comes from a handler the test supplies.
#pragma once

#include <functional>
#include <vector>

#include "kube/https_client.hpp"

namespace rjg::kube::testing {

class FakeTransport final : public Transport {
 public:
  using Handler = std::function<Result<HttpResponse>(const HttpRequest&)>;
  explicit FakeTransport(Handler handler) : handler_(std::move(handler)) {}

  Result<HttpResponse> send(const HttpRequest& request) override {
    requests.push_back(request);
    return handler_(request);
  }

  // For a 2xx answer the sink gets an empty piece (the header), then the handler's body.
  Result<HttpResponse> stream(const HttpRequest& request, const BodySink& sink,
                              const StreamLimits&) override {
    Result<HttpResponse> r = send(request);
    if (r && r.value().status >= 200 && r.value().status < 300) {
      sink({}) && sink(r.value().body);
      r.value().body.clear();
    }
    return r;
  }

  std::vector<HttpRequest> requests;

 private:
  Handler handler_;
};

inline HttpResponse response(int status, std::string body = "{}", std::string retry_after = "") {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.retry_after = std::move(retry_after);
  return r;
}

}  // namespace rjg::kube::testing
