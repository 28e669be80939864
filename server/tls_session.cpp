// The HTTPS admission connection: TLS handshake, request reading with bounded timeouts, and
// responses from route(). Runs on its socket's context, which one thread runs (IoPool), so its
// members need no locks.
#include "server/tls_session.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <exception>
#include <optional>
#include <string>

#include "server/http_response.hpp"
#include "server/log.hpp"
#include "server/router.hpp"

namespace rjg::server {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

// After drain(), an idle keep-alive connection is closed this long later. The grace lets a
// request already on the wire (a busy client writes its next request right after our response)
// arrive and be answered with Connection: close instead of being cut off.
constexpr std::chrono::milliseconds kDrainIdleGrace{250};
// Bound on the TLS close_notify exchange when we close.
constexpr std::chrono::seconds kShutdownTimeout{2};
// Lingering close after a response to a request whose body was not read (see do_linger).
constexpr std::chrono::seconds kLingerTimeout{2};
constexpr std::size_t kLingerMaxBytes = 8 * 1024 * 1024;

bool is_quiet_close(const beast::error_code& ec) {
  // stream_truncated: the peer closed the TCP connection without a TLS close_notify. Many HTTP
  // clients do this once they have their response; the message boundaries are already known from
  // the HTTP framing, so there is no truncation attack to detect and nothing to report.
  return ec == http::error::end_of_stream || ec == ssl::error::stream_truncated ||
         ec == net::error::eof || ec == net::error::operation_aborted ||
         ec == net::error::connection_reset || ec == beast::error::timeout;
}

class TlsSession : public std::enable_shared_from_this<TlsSession>, public Drainable {
 public:
  TlsSession(Socket&& socket, std::shared_ptr<const TlsContext> tls, SharedState& state)
      : state_(state),
        tls_(std::move(tls)),
        stream_(std::move(socket), *tls_->context),
        idle_timer_(stream_.get_executor()) {}

  ~TlsSession() override {
    if (registered_) {
      state_.connections.remove(id_);
    }
    if (in_flight_) {
      state_.metrics.in_flight_add(-1);
    }
  }

  void run() {
    id_ = state_.connections.add(weak_from_this());
    registered_ = true;
    // The listener calls us on its own context; all I/O of this session runs on the socket's
    // (the same one with one thread: then this runs inline).
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&TlsSession::on_run, shared_from_this()));
  }

  void drain() override {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      self->draining_ = true;
      if (self->idle_) {
        self->arm_idle_timer(kDrainIdleGrace);
      }
    });
  }

 private:
  void on_run() {
    beast::get_lowest_layer(stream_).expires_after(state_.config.header_timeout);
    stream_.async_handshake(
        ssl::stream_base::server,
        beast::bind_front_handler(&TlsSession::on_handshake, shared_from_this()));
  }

  void on_handshake(beast::error_code ec) {
    if (ec) {
      state_.metrics.tls_handshake_failed();
      log_event(Level::kDebug, "tls handshake failed", {{"error", ec.message()}});
      return close_socket();
    }
    do_wait_idle();
  }

  // Waits for the first bytes of the next request without a header deadline: an idle keep-alive
  // connection may wait idle_timeout, while a started request must finish its header quickly.
  void do_wait_idle() {
    if (buffer_.size() > 0) {
      return do_read_header();
    }
    idle_ = true;
    beast::get_lowest_layer(stream_).expires_never();
    // A new connection must send its first request within the header timeout (a silent client
    // is cut early); between requests, keep-alive connections may idle for idle_timeout.
    const auto wait = requests_ == 0 ? state_.config.header_timeout : state_.config.idle_timeout;
    arm_idle_timer(draining_ ? std::min(wait, std::chrono::milliseconds(kDrainIdleGrace)) : wait);
    stream_.async_read_some(
        buffer_.prepare(4096),
        beast::bind_front_handler(&TlsSession::on_idle_data, shared_from_this()));
  }

  void arm_idle_timer(std::chrono::milliseconds after) {
    idle_timer_.expires_after(after);
    idle_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->idle_) {
        return;  // re-armed, or the connection became busy
      }
      // Idle too long (or drained): close without ceremony; the client sees EOF on an idle
      // connection, which HTTP clients treat as "server closed idle connection".
      self->close_socket();
    });
  }

  void on_idle_data(beast::error_code ec, std::size_t n) {
    idle_ = false;
    idle_timer_.cancel();
    if (ec) {
      if (!is_quiet_close(ec)) {
        log_event(Level::kDebug, "read failed", {{"error", ec.message()}});
      }
      return close_socket();
    }
    buffer_.commit(n);
    do_read_header();
  }

  void do_read_header() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(state_.config.max_header_bytes));
    parser_->body_limit(state_.config.max_body_bytes);
    if (!in_flight_) {
      in_flight_ = true;
      state_.metrics.in_flight_add(1);
    }
    beast::get_lowest_layer(stream_).expires_after(state_.config.header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        beast::bind_front_handler(&TlsSession::on_read_header, shared_from_this()));
  }

  void on_read_header(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec == http::error::header_limit) {
      return send_and_linger(read_failure(ReadFailure::kHeaderTooLarge, {}, max_body()));
    }
    if (ec) {
      // A body_limit here means Beast checked Content-Length against the limit while parsing the
      // header: the body has not been read, and will not be.
      return on_read_error(ec);
    }
    auto& req = parser_->get();
    head_ = RequestHead{};
    head_.method = std::string(req.method_string());
    head_.target = std::string(req.target());
    if (auto it = req.find(http::field::content_type); it != req.end()) {
      head_.content_type = std::string(it->value());
    }
    if (auto len = parser_->content_length()) {
      head_.content_length = *len;
    }
    head_.chunked = parser_->chunked();
    if (auto early = check_head(head_, state_.config.max_body_bytes)) {
      // The body (if any) is not read: answer and close, so a client cannot make us swallow it.
      const bool has_body = head_.chunked || (head_.content_length && *head_.content_length > 0);
      if (has_body) {
        return send_and_linger(std::move(*early));
      }
      return send(std::move(*early), req.keep_alive());
    }
    if (head_.content_length && is_large(*head_.content_length) && state_.large_reviews.full()) {
      // The lane is full now: refuse before reading megabytes that would be refused after.
      state_.metrics.review_overloaded();
      return send_and_linger(overloaded_response(state_.config.large_review_bytes));
    }
    if (auto it = req.find(http::field::expect);
        it != req.end() && beast::iequals(it->value(), "100-continue")) {
      auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      beast::get_lowest_layer(stream_).expires_after(state_.config.header_timeout);
      return http::async_write(
          stream_, *cont, [self = shared_from_this(), cont](beast::error_code wec, std::size_t) {
            if (wec) {
              return self->close_socket();
            }
            self->do_read_body();
          });
    }
    do_read_body();
  }

  // A read of the header or the body failed: nothing for a peer that just went away, else the
  // router's answer for the failure (router.hpp read_failure); the unread rest of the request is
  // drained by do_linger.
  void on_read_error(beast::error_code ec) {
    if (is_quiet_close(ec)) {
      return close_socket();
    }
    const ReadFailure failure =
        ec == http::error::body_limit ? ReadFailure::kBodyTooLarge : ReadFailure::kMalformed;
    send_and_linger(read_failure(failure, ec.message(), max_body()));
  }

  std::size_t max_body() const { return state_.config.max_body_bytes; }

  void do_read_body() {
    beast::get_lowest_layer(stream_).expires_after(state_.config.body_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&TlsSession::on_read_body, shared_from_this()));
  }

  bool is_large(std::uint64_t body_bytes) const {
    return body_bytes >= state_.config.large_review_bytes;
  }

  void on_read_body(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec) {
      return on_read_error(ec);
    }
    const bool keep_alive = parser_->get().keep_alive();
    Request request{std::move(head_), std::move(parser_->get().body())};
    if (!is_large(request.body.size())) {
      return send(review(request), keep_alive);
    }
    // A large review runs in its own lane; the session waits (no read is pending, no timer runs)
    // until the answer is posted back to its context. The job owns the session meanwhile.
    auto job = [self = shared_from_this(), request = std::move(request), keep_alive] {
      Response response = self->review(request);
      self->state_.metrics.large_reviews_add(-1);
      net::post(self->stream_.get_executor(),
                [self, response = std::move(response), keep_alive]() mutable {
                  self->send(std::move(response), keep_alive);
                });
    };
    state_.metrics.large_reviews_add(1);
    if (!state_.large_reviews.try_submit(std::move(job))) {
      state_.metrics.large_reviews_add(-1);
      state_.metrics.review_overloaded();
      send(overloaded_response(state_.config.large_review_bytes), keep_alive);
    }
  }

  // Returns route()'s answer to a complete request, recording and logging the review. Runs on the
  // session's thread or on a large-review worker: it touches only thread-safe shared state.
  Response review(const Request& request) {
    Response response;
    // Latency is the review itself (decode, evaluate, encode): queueing behind other
    // connections on a busy loop, or in the large-review lane, is visible in the client's
    // latency, not here.
    const auto started = Clock::now();
    // The session boundary: an exception here is a bug, answered 500 and counted, never a path.
    try {
      Services services{state_.policy.load(), state_.config.max_body_bytes, state_.review,
                        state_.cluster != nullptr ? state_.cluster->quotas() : nullptr};
      response = route(request, services);
    } catch (const std::exception& e) {
      state_.metrics.internal_error();
      log_event(Level::kError, "internal error", {{"error", std::string(e.what())}});
      response = internal_error_response();
    }
    const auto latency = Clock::now() - started;
    if (response.summary) {
      state_.metrics.record_review(*response.summary, latency);
      log_decision(*response.summary, latency, response.status);
    }
    return response;
  }

  void send(Response response, bool keep_alive) {
    state_.metrics.record_http(response.status);
    ++requests_;
    to_http(std::move(response), keep_alive && !draining_ && !state_.closing.load(), res_);
    // The write is posted, not started here: it runs after the handlers already queued on this
    // context, i.e. after the other connections whose requests arrived in the same epoll_wait
    // have been reviewed (the way Redis writes its replies just before it sleeps). Responses then
    // leave back to back, and a client waiting on several connections is woken once per batch
    // instead of once per response; on loopback each such wake-up is an inter-processor
    // interrupt paid by our sendmsg. With one connection nothing else is queued and the write
    // starts at once. docs/performance-server.md has the measurements.
    beast::get_lowest_layer(stream_).expires_after(state_.config.body_timeout);
    net::post(stream_.get_executor(), [self = shared_from_this()] { self->do_write(); });
  }

  void do_write() {
    http::async_write(
        stream_, res_,
        beast::bind_front_handler(&TlsSession::on_write, shared_from_this(), res_.keep_alive()));
  }

  // Answers a request whose body was not (fully) read, then closes with do_linger.
  void send_and_linger(Response response) {
    linger_ = true;
    send(std::move(response), false);
  }

  void on_write(bool keep_alive, beast::error_code ec, std::size_t /*bytes*/) {
    if (in_flight_) {
      in_flight_ = false;
      state_.metrics.in_flight_add(-1);
    }
    if (ec) {
      return close_socket();
    }
    if (!keep_alive) {
      return linger_ ? do_linger() : do_close();
    }
    do_wait_idle();
  }

  // The client may still be sending the body we refused to read. Closing now, with its bytes
  // unread, makes the kernel answer with RST, which can destroy our response in the client's
  // receive buffer before it reads it. So, as nginx's lingering_close does: stop sending (FIN),
  // then read and discard what still arrives, for at most kLingerTimeout and kLingerMaxBytes.
  void do_linger() {
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_send, ignored);
    beast::get_lowest_layer(stream_).expires_after(kLingerTimeout);
    do_linger_read();
  }

  void do_linger_read() {
    beast::get_lowest_layer(stream_).async_read_some(
        net::buffer(linger_buffer_),
        [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
          self->lingered_ += bytes;
          if (ec || self->lingered_ > kLingerMaxBytes) {
            return self->close_socket();
          }
          self->do_linger_read();
        });
  }

  void do_close() {
    beast::get_lowest_layer(stream_).expires_after(kShutdownTimeout);
    stream_.async_shutdown(beast::bind_front_handler(&TlsSession::on_shutdown, shared_from_this()));
  }

  void on_shutdown(beast::error_code /*ec*/) {
    // Whatever the peer did with our close_notify, the connection is over.
    close_socket();
  }

  void close_socket() {
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(stream_).close();
  }

  SharedState& state_;
  std::shared_ptr<const TlsContext> tls_;  // keeps the ssl::context of stream_ alive
  beast::ssl_stream<beast::basic_stream<tcp, IoExecutor>> stream_;
  net::basic_waitable_timer<Clock, net::wait_traits<Clock>, IoExecutor> idle_timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  RequestHead head_;
  std::uint64_t id_ = 0;
  std::uint64_t requests_ = 0;
  bool registered_ = false;
  bool idle_ = false;
  bool draining_ = false;
  bool in_flight_ = false;
  bool linger_ = false;       // the last response left a request body unread
  std::size_t lingered_ = 0;  // bytes discarded while lingering
  std::array<char, 16 * 1024> linger_buffer_{};
};

}  // namespace

void start_tls_session(Socket&& socket, SharedState& state) {
  auto tls = state.tls.load();
  auto session = std::make_shared<TlsSession>(std::move(socket), std::move(tls), state);
  session->run();
}

}  // namespace rjg::server
