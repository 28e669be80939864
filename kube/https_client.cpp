// HttpsClient: Beast HTTP/1.1 over an Asio SSL stream, each step bounded by a deadline.
#include "kube/https_client.hpp"

#include <openssl/ssl.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/version.hpp>

#include <array>

#include "common/clock.hpp"
#include "kube/exec_plugin.hpp"

namespace rjg::kube {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

struct HttpsClient::Impl {
  Impl(const ApiEndpoint& ep, std::chrono::seconds t)
      : endpoint(ep),
        timeout(t),
        credentials(
            ep.login, ep.exec_info,
            [t](const admission::ExecConfig& exec, const std::string& info) {
              return run_exec_plugin(exec, info, t);
            },
            unix_seconds) {}
  ApiEndpoint endpoint;
  std::chrono::seconds timeout{30};
  ssl::context ctx{ssl::context::tls_client};
  Credentials credentials;
};

namespace {

// Runs one asynchronous step until it completes or `deadline` passes. Sync Asio calls cannot be
// bounded in time, so each step is started asynchronously and the io_context is run for at most
// the time left; a step that overruns is cancelled by closing the socket.
template <typename Start>
error_code run_step(asio::io_context& io, beast::tcp_stream& lowest, Start start,
                    std::chrono::steady_clock::time_point deadline) {
  error_code result = asio::error::would_block;
  start([&result](error_code ec, auto&&...) { result = ec; });
  io.restart();
  io.run_until(deadline);
  if (result == asio::error::would_block) {
    lowest.close();
    io.restart();
    io.run();
    return asio::error::timed_out;
  }
  return result;
}

Error fail(const std::string& where, const std::string& endpoint, const error_code& ec) {
  return unavailable(where + " " + endpoint + ": " + ec.message());
}

// run_step for a watch: no byte for `limits.idle`, or `limits.stop`, ends the step (checked
// every 200 ms) by closing the socket; returns timed_out or operation_aborted then.
template <typename Start>
error_code run_watch_step(asio::io_context& io, beast::tcp_stream& lowest, Start start,
                          const StreamLimits& limits) {
  error_code result = asio::error::would_block;
  start([&result](error_code ec, auto&&...) { result = ec; });
  const auto idle_end = std::chrono::steady_clock::now() + limits.idle;
  error_code ended_by;
  io.restart();
  while (result == asio::error::would_block) {
    io.run_for(std::chrono::milliseconds(200));
    if (result != asio::error::would_block) {
      break;
    }
    if (limits.stop != nullptr && limits.stop->load()) {
      ended_by = asio::error::operation_aborted;
    } else if (std::chrono::steady_clock::now() >= idle_end) {
      ended_by = asio::error::timed_out;
    } else {
      continue;
    }
    lowest.close();
    io.restart();
    io.run();
    return ended_by;
  }
  return result;
}

using SslStream = beast::ssl_stream<beast::tcp_stream>;

// The status and Retry-After header of a response whose header has been read; no body.
template <typename Body>
HttpResponse head_of(const http::response<Body>& message) {
  HttpResponse out;
  out.status = static_cast<int>(message.result_int());
  if (const auto it = message.find(http::field::retry_after); it != message.end()) {
    out.retry_after = std::string(it->value());
  }
  return out;
}

// Reads the response header by `deadline`, then the body as it arrives: to `sink` for a 2xx
// status, whole into the result otherwise.
Result<HttpResponse> read_streamed(asio::io_context& io, SslStream& stream,
                                   beast::flat_buffer& buffer, const BodySink& sink,
                                   const StreamLimits& limits,
                                   std::chrono::steady_clock::time_point deadline,
                                   const std::string& where) {
  beast::tcp_stream& lowest = beast::get_lowest_layer(stream);
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(boost::none);  // a watch has no end; each piece is bounded below
  error_code ec = run_step(
      io, lowest,
      [&](auto handler) {
        http::async_read_header(stream, buffer, parser,
                                [handler](error_code e, std::size_t) { handler(e); });
      },
      deadline);
  if (ec) {
    return fail("read from", where, ec);
  }
  HttpResponse out = head_of(parser.get());
  const bool ok = out.status >= 200 && out.status < 300;
  if (ok && !sink(std::string_view())) {  // the stream is open
    lowest.close();
    return out;
  }
  constexpr std::size_t kErrorBodyLimit = 1024 * 1024;
  std::array<char, 64 * 1024> piece{};
  while (!parser.is_done()) {
    parser.get().body().data = piece.data();
    parser.get().body().size = piece.size();
    ec = run_watch_step(
        io, lowest,
        [&](auto handler) {
          http::async_read_some(stream, buffer, parser,
                                [handler](error_code e, std::size_t) { handler(e); });
        },
        limits);
    if (ec == http::error::need_buffer) {
      ec = {};
    }
    const std::size_t got = piece.size() - parser.get().body().size;
    if (got > 0) {
      if (!ok) {
        out.body.append(piece.data(), got);
        if (out.body.size() > kErrorBodyLimit) {
          return out;
        }
      } else if (!sink(std::string_view(piece.data(), got))) {
        lowest.close();
        return out;
      }
    }
    if (ec == asio::error::operation_aborted) {
      return out;  // asked to stop
    }
    if (ec) {
      return fail("watch read from", where, ec);
    }
  }
  return out;
}

}  // namespace

HttpsClient::HttpsClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpsClient::~HttpsClient() = default;

Result<std::unique_ptr<HttpsClient>> HttpsClient::create(const ApiEndpoint& endpoint,
                                                         std::chrono::seconds timeout) {
  auto impl = std::make_unique<Impl>(endpoint, timeout);
  error_code ec;
  impl->ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                        ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  if (endpoint.insecure_skip_tls_verify) {
    impl->ctx.set_verify_mode(ssl::verify_none);
  } else {
    if (endpoint.ca_pem.empty()) {
      return invalid_argument("no CA certificate for " + endpoint.describe());
    }
    impl->ctx.add_certificate_authority(asio::buffer(endpoint.ca_pem), ec);
    if (ec) {
      return invalid_argument("CA certificate for " + endpoint.describe() +
                              " is not PEM: " + ec.message());
    }
    impl->ctx.set_verify_mode(ssl::verify_peer);
  }
  return std::unique_ptr<HttpsClient>(new HttpsClient(std::move(impl)));
}

Result<HttpResponse> HttpsClient::send(const HttpRequest& request) {
  return stream_or_send(request, nullptr, StreamLimits{});
}

Result<HttpResponse> HttpsClient::stream(const HttpRequest& request, const BodySink& sink,
                                         const StreamLimits& limits) {
  return stream_or_send(request, &sink, limits);
}

Result<HttpResponse> HttpsClient::stream_or_send(const HttpRequest& request, const BodySink* sink,
                                                 const StreamLimits& limits) {
  for (int attempt = 0;; ++attempt) {
    Result<Auth> auth = impl_->credentials.current();
    if (!auth) {
      return unavailable("credentials (" + impl_->credentials.describe() +
                         "): " + auth.error().message);
    }
    Result<HttpResponse> response = send_once(request, auth.value(), sink, limits);
    if (!response || response.value().status != 401 || attempt > 0 ||
        !impl_->credentials.refresh_after_unauthorized()) {
      return response;
    }
  }
}

Result<HttpResponse> HttpsClient::send_once(const HttpRequest& request, const Auth& auth,
                                            const BodySink* sink, const StreamLimits& limits) {
  const ApiEndpoint& ep = impl_->endpoint;
  const std::string& name = ep.tls_server_name.empty() ? ep.host : ep.tls_server_name;
  const std::string where = ep.describe();
  const auto deadline = std::chrono::steady_clock::now() + impl_->timeout;
  asio::io_context io;
  beast::ssl_stream<beast::tcp_stream> stream(io, impl_->ctx);
  beast::tcp_stream& lowest = beast::get_lowest_layer(stream);

  error_code ec;
  (void)asio::ip::make_address(name, ec);
  const bool is_ip = !ec;
  if (!ep.insecure_skip_tls_verify) {
    // Verify the name (or IP SAN) in the certificate, as kubectl does.
    stream.set_verify_callback(ssl::host_name_verification(name));
  }
  if (!is_ip && !SSL_set_tlsext_host_name(stream.native_handle(), name.c_str())) {
    return unavailable("SNI " + where + ": cannot set the server name");
  }
  if (auth.cert && !auth.cert->use_in(stream.native_handle())) {
    return unavailable("TLS with " + where + ": OpenSSL refused the client certificate");
  }

  tcp::resolver resolver(io);
  tcp::resolver::results_type endpoints;
  ec = run_step(
      io, lowest,
      [&](auto handler) {
        resolver.async_resolve(ep.host, ep.port,
                               [&endpoints, handler](error_code e, tcp::resolver::results_type r) {
                                 endpoints = std::move(r);
                                 handler(e);
                               });
      },
      deadline);
  if (ec) {
    return fail("resolve", where, ec);
  }
  ec = run_step(
      io, lowest,
      [&](auto handler) {
        lowest.async_connect(endpoints,
                             [handler](error_code e, const tcp::endpoint&) { handler(e); });
      },
      deadline);
  if (ec) {
    return fail("connect", where, ec);
  }
  ec = run_step(
      io, lowest, [&](auto handler) { stream.async_handshake(ssl::stream_base::client, handler); },
      deadline);
  if (ec) {
    return fail("TLS handshake with", where, ec);
  }

  http::request<http::string_body> req{http::string_to_verb(request.method), request.target, 11};
  req.set(http::field::host, ep.host);
  req.set(http::field::user_agent, "rayjob-guard-reaper");
  req.set(http::field::accept, "application/json");
  if (!auth.bearer_token.empty()) {
    req.set(http::field::authorization, "Bearer " + auth.bearer_token);
  }
  if (!request.body.empty()) {
    req.set(http::field::content_type, request.content_type);
    req.body() = request.body;
  }
  req.keep_alive(false);
  req.prepare_payload();
  ec = run_step(
      io, lowest,
      [&](auto handler) {
        http::async_write(stream, req, [handler](error_code e, std::size_t) { handler(e); });
      },
      deadline);
  if (ec) {
    return fail("write to", where, ec);
  }

  beast::flat_buffer buffer;
  if (sink != nullptr) {
    return read_streamed(io, stream, buffer, *sink, limits, deadline, where);
  }
  http::response_parser<http::string_body> parser;
  // A RayJobList page of `limit` items with full specs stays well below this.
  parser.body_limit(64 * 1024 * 1024);
  ec = run_step(
      io, lowest,
      [&](auto handler) {
        http::async_read(stream, buffer, parser,
                         [handler](error_code e, std::size_t) { handler(e); });
      },
      deadline);
  if (ec) {
    return fail("read from", where, ec);
  }
  HttpResponse out = head_of(parser.get());
  out.body = std::move(parser.get().body());
  // The response is complete; a peer that drops the connection instead of a clean TLS
  // shutdown costs nothing here, so the shutdown result is ignored.
  (void)run_step(
      io, lowest, [&](auto handler) { stream.async_shutdown(handler); },
      std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(2)));
  return out;
}

}  // namespace rjg::kube
