// Listener: binds one TCP address and runs an accept loop on its own strand. Each accepted socket
// gets a fresh strand and is handed to `on_accept`. stop() closes the acceptor from any thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/result.hpp"
#include "server/server_config.hpp"

namespace rjg::server {

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Called on the listener's strand with a socket whose executor is a fresh strand; takes
  // ownership of the socket and must not block.
  using AcceptFn = std::function<void(boost::asio::ip::tcp::socket&&)>;

  // `ioc` must outlive the listener. `name` labels log lines ("https", "probe").
  Listener(boost::asio::io_context& ioc, std::string name, AcceptFn on_accept);

  // Opens, binds and listens. Returns kInvalidArgument for an address that is not an IP literal,
  // kUnavailable when binding fails (port in use, permission); the message names the address.
  Status open(const ListenAddress& address);

  // The bound port (the kernel's choice when opened with port 0). REQUIRES: open() succeeded.
  std::uint16_t port() const { return port_; }

  // Starts accepting. REQUIRES: open() succeeded.
  void run();

  // Stops accepting and closes the listening socket. Thread-safe; idempotent.
  void stop();

 private:
  void do_accept();
  void on_accept(boost::system::error_code ec, boost::asio::ip::tcp::socket socket);

  boost::asio::io_context& ioc_;
  std::string name_;
  AcceptFn on_accept_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_timer_;
  std::uint16_t port_ = 0;
  bool stopped_ = false;  // touched on strand_ only
};

}  // namespace rjg::server
