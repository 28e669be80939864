// Listener: binds one TCP address and runs an accept loop on one io_context (one thread, so no
// strand). Each accepted socket is bound to the context `pick` chooses (IoPool::next for the
// HTTPS port) and handed to `on_accept`. stop() closes the acceptor from any thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/result.hpp"
#include "server/io_pool.hpp"
#include "server/server_config.hpp"

namespace rjg::server {

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Called on the listener's context with a socket bound to the context `pick` returned; takes
  // ownership of the socket and must not block.
  using AcceptFn = std::function<void(Socket&&)>;
  // Returns the context the next accepted socket is bound to. Called on the listener's context.
  using PickFn = std::function<boost::asio::io_context&()>;

  // The acceptor runs on `ioc`, which must be run by one thread and outlive the listener, as must
  // every context `pick` returns. `name` labels log lines ("https", "probe").
  Listener(boost::asio::io_context& ioc, std::string name, PickFn pick, AcceptFn on_accept);

  // Opens, binds and listens. Returns kInvalidArgument for an address that is not an IP literal,
  // kUnavailable when binding fails (port in use, permission); the message names the address.
  // With `defer_accept` > 0 (for protocols where the client speaks first, such as TLS), the
  // kernel reports a connection only once its first bytes arrived (Linux TCP_DEFER_ACCEPT), so
  // accepting it and reading the ClientHello take one wake-up instead of two; a client silent
  // for that long is dropped by the kernel without ever reaching us. Ignored where unsupported.
  Status open(const ListenAddress& address,
              std::chrono::seconds defer_accept = std::chrono::seconds(0));

  // The bound port (the kernel's choice when opened with port 0). REQUIRES: open() succeeded.
  std::uint16_t port() const { return port_; }

  // Starts accepting. REQUIRES: open() succeeded.
  void run();

  // Stops accepting and closes the listening socket. Thread-safe; idempotent.
  void stop();

 private:
  void do_accept();
  void on_accept(boost::system::error_code ec, Socket socket);

  using Acceptor = boost::asio::basic_socket_acceptor<boost::asio::ip::tcp, IoExecutor>;
  using Timer = boost::asio::basic_waitable_timer<
      std::chrono::steady_clock, boost::asio::wait_traits<std::chrono::steady_clock>, IoExecutor>;

  std::string name_;
  PickFn pick_;
  AcceptFn on_accept_;
  Acceptor acceptor_;
  Timer retry_timer_;
  std::uint16_t port_ = 0;
  bool stopped_ = false;  // touched on the listener's context only
};

}  // namespace rjg::server
