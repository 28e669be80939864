// The accept loop.
#include "server/listener.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <chrono>

#include "server/log.hpp"

namespace rjg::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

Listener::Listener(net::io_context& ioc, std::string name, PickFn pick, AcceptFn on_accept)
    : name_(std::move(name)),
      pick_(std::move(pick)),
      on_accept_(std::move(on_accept)),
      acceptor_(ioc.get_executor()),
      retry_timer_(ioc.get_executor()) {}

Status Listener::open(const ListenAddress& address, std::chrono::seconds defer_accept) {
  boost::system::error_code ec;
  const auto ip = net::ip::make_address(address.host, ec);
  if (ec) {
    return invalid_argument("'" + address.host + "' is not an IP address");
  }
  const tcp::endpoint endpoint(ip, address.port);
  const std::string where = address.host + ":" + std::to_string(address.port);
  if (acceptor_.open(endpoint.protocol(), ec); ec) {
    return unavailable("cannot open a socket for " + where + ": " + ec.message());
  }
  if (acceptor_.set_option(net::socket_base::reuse_address(true), ec); ec) {
    return unavailable("cannot set SO_REUSEADDR on " + where + ": " + ec.message());
  }
#ifdef TCP_DEFER_ACCEPT
  if (defer_accept.count() > 0) {
    // Best effort: without it connections are accepted at once, as before.
    const int seconds = static_cast<int>(defer_accept.count());
    ::setsockopt(acceptor_.native_handle(), IPPROTO_TCP, TCP_DEFER_ACCEPT, &seconds,
                 sizeof seconds);
  }
#endif
  if (acceptor_.bind(endpoint, ec); ec) {
    return unavailable("cannot listen on " + where + " (" + name_ + "): " + ec.message());
  }
  if (acceptor_.listen(net::socket_base::max_listen_connections, ec); ec) {
    return unavailable("cannot listen on " + where + " (" + name_ + "): " + ec.message());
  }
  port_ = acceptor_.local_endpoint(ec).port();
  return {};
}

void Listener::run() {
  net::post(acceptor_.get_executor(), [self = shared_from_this()] { self->do_accept(); });
}

void Listener::stop() {
  net::post(acceptor_.get_executor(), [self = shared_from_this()] {
    self->stopped_ = true;
    self->retry_timer_.cancel();
    boost::system::error_code ignored;
    self->acceptor_.close(ignored);
  });
}

void Listener::do_accept() {
  if (stopped_) {
    return;
  }
  // The socket is bound to its own context from the start: all its handlers run on that
  // context's one thread, so they never run concurrently.
  acceptor_.async_accept(pick_().get_executor(),
                         [self = shared_from_this()](boost::system::error_code ec, Socket socket) {
                           self->on_accept(ec, std::move(socket));
                         });
}

void Listener::on_accept(boost::system::error_code ec, Socket socket) {
  if (ec == net::error::operation_aborted || stopped_) {
    return;
  }
  if (ec) {
    // Out of file descriptors and similar: back off briefly instead of spinning.
    log_event(Level::kWarn, "accept failed", {{"listener", name_}, {"error", ec.message()}});
    retry_timer_.expires_after(std::chrono::milliseconds(50));
    retry_timer_.async_wait([self = shared_from_this()](boost::system::error_code tec) {
      if (!tec) {
        self->do_accept();
      }
    });
    return;
  }
  // Responses are written in one go and the peer waits for them: without TCP_NODELAY, Nagle
  // holds the last segment of a handshake flight or response for the peer's delayed ACK (up to
  // 40 ms), which dominated full-handshake latency in peer-bench.
  boost::system::error_code opt_ec;
  socket.set_option(tcp::no_delay(true), opt_ec);
  on_accept_(std::move(socket));
  do_accept();
}

}  // namespace rjg::server
