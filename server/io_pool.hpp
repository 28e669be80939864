// IoPool: the server's event loops, one io_context per thread (the io_context-per-thread pattern).
// Each context is run by exactly one thread, so everything bound to one context (a connection's
// socket, timers and handlers) runs serialized without a strand. New connections are spread over
// the contexts round-robin; a connection stays on its context for its whole life.
//
// Why not one shared io_context with a strand per connection: with one thread the strand is pure
// overhead (a lock, a queue and a type-erased executor per handler), and with N threads every
// handler may hop threads. Here a handler only crosses threads when something is posted to
// another connection's context on purpose (drain at shutdown).
#pragma once

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

namespace rjg::server {

// The executor of every socket and timer of the server: a plain io_context executor, not a
// type-erased any_io_executor (which costs an indirect call and an allocation check per handler).
using IoExecutor = boost::asio::io_context::executor_type;
// An accepted TCP socket bound to one context of the pool.
using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, IoExecutor>;

class IoPool {
 public:
  // Creates `threads` contexts (at least 1). Nothing runs until run().
  explicit IoPool(unsigned threads);
  IoPool(const IoPool&) = delete;
  IoPool& operator=(const IoPool&) = delete;

  // The context of the calling thread's control work (listeners, signals, timers): context 0,
  // which run() runs on the calling thread. The reference stays valid for the pool's lifetime.
  boost::asio::io_context& control() { return *contexts_.front(); }

  // The context for the next new connection, round-robin over all contexts. Thread-safe.
  boost::asio::io_context& next();

  // The number of contexts, which is the number of threads run() uses.
  std::size_t size() const { return contexts_.size(); }

  // Runs every context, each on its own thread (context 0 on the calling thread), until stop().
  // `on_exception` is called (on the thread that caught it) when a handler throws; that context
  // then keeps running. Returns when every thread has finished.
  void run(const std::function<void(const std::exception&)>& on_exception);

  // Makes every context's run() return as soon as possible. Thread-safe; idempotent.
  // Handlers not yet run are destroyed with the pool (after run() returned).
  void stop();

 private:
  using WorkGuard = boost::asio::executor_work_guard<IoExecutor>;

  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<WorkGuard> guards_;  // keep contexts with no connection running until stop()
  std::atomic<std::size_t> next_{0};
};

}  // namespace rjg::server
