// The plain-HTTP probe connection: small GET requests answered by route_probe().
#include "server/probe_session.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <optional>
#include <string>

#include "server/http_response.hpp"
#include "server/router.hpp"

namespace rjg::server {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

constexpr std::chrono::seconds kProbeTimeout{10};
constexpr std::uint64_t kProbeBodyLimit = 4096;

class ProbeSession : public std::enable_shared_from_this<ProbeSession> {
 public:
  ProbeSession(Socket&& socket, SharedState& state) : state_(state), stream_(std::move(socket)) {}

  void run() {
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&ProbeSession::do_read, shared_from_this()));
  }

 private:
  void do_read() {
    parser_.emplace();
    parser_->header_limit(16 * 1024);
    parser_->body_limit(kProbeBodyLimit);
    stream_.expires_after(kProbeTimeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&ProbeSession::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec) {
      return close();  // EOF, timeout or garbage: a probe connection has nothing to report
    }
    const auto& req = parser_->get();
    RequestHead head;
    head.method = std::string(req.method_string());
    head.target = std::string(req.target());
    ProbeState probe;
    // With quota from the cluster, ready also waits for the first complete list of ResourceQuotas.
    probe.ready = state_.ready.load() && (state_.cluster == nullptr || state_.cluster->synced());
    probe.draining = state_.draining.load();
    probe.metrics_text = [this] {
      if (state_.cluster != nullptr) {
        state_.metrics.set_cluster_quota(state_.cluster->synced(),
                                         state_.cluster->staleness_seconds());
      }
      return state_.metrics.render();
    };
    Response response = route_probe(head, probe);

    to_http(std::move(response), req.keep_alive(), res_);
    if (req.method() == http::verb::head) {
      res_.body().clear();  // Content-Length stays that of the GET answer
    }
    stream_.expires_after(kProbeTimeout);
    http::async_write(
        stream_, res_,
        beast::bind_front_handler(&ProbeSession::on_write, shared_from_this(), res_.keep_alive()));
  }

  void on_write(bool keep_alive, beast::error_code ec, std::size_t /*bytes*/) {
    if (ec || !keep_alive) {
      return close();
    }
    do_read();
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  SharedState& state_;
  beast::basic_stream<tcp, IoExecutor> stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
};

}  // namespace

void start_probe_session(Socket&& socket, SharedState& state) {
  std::make_shared<ProbeSession>(std::move(socket), state)->run();
}

}  // namespace rjg::server
