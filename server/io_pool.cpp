// The per-thread event loops.
#include "server/io_pool.hpp"

#include <thread>

namespace rjg::server {

namespace net = boost::asio;

IoPool::IoPool(unsigned threads) {
  const unsigned n = threads == 0 ? 1 : threads;
  contexts_.reserve(n);
  guards_.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    // Concurrency hint 1: exactly one thread runs this context, so Asio may skip work it would
    // do to hand handlers between threads. Other threads still post to it (drain, accepted
    // sockets registering with its reactor), which the hint allows.
    contexts_.push_back(std::make_unique<net::io_context>(1));
    guards_.emplace_back(contexts_.back()->get_executor());
  }
}

net::io_context& IoPool::next() {
  if (contexts_.size() == 1) {
    return *contexts_.front();
  }
  const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed) % contexts_.size();
  return *contexts_[i];
}

void IoPool::run(const std::function<void(const std::exception&)>& on_exception) {
  auto loop = [&on_exception](net::io_context& ioc) {
    for (;;) {
      try {
        ioc.run();
        return;
      } catch (const std::exception& e) {
        on_exception(e);
      }
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(contexts_.size() - 1);
  for (std::size_t i = 1; i < contexts_.size(); ++i) {
    threads.emplace_back([&loop, ctx = contexts_[i].get()] { loop(*ctx); });
  }
  loop(*contexts_.front());
  for (auto& t : threads) {
    t.join();
  }
}

void IoPool::stop() {
  for (auto& ctx : contexts_) {
    ctx->stop();
  }
}

}  // namespace rjg::server
