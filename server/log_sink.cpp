// The batching stderr sink.
#include "server/log_sink.hpp"

#include <unistd.h>

#include <cerrno>

namespace rjg::server {

BufferedSink::BufferedSink(int fd, std::chrono::milliseconds interval)
    : fd_(fd), interval_(interval) {
  buffer_.reserve(kFlushBytes * 2);
  thread_ = std::thread([this] { flusher(); });
}

BufferedSink::~BufferedSink() {
  {
    std::lock_guard lock(stop_mu_);
    stop_ = true;
  }
  stop_cv_.notify_one();
  thread_.join();
  flush();
}

void BufferedSink::sink_it_(const spdlog::details::log_msg& msg) {
  line_.clear();
  formatter_->format(msg, line_);
  buffer_.append(line_.data(), line_.size());
  if (buffer_.size() >= kFlushBytes) {
    flush_();
  }
}

void BufferedSink::flush_() {
  const char* p = buffer_.data();
  std::size_t left = buffer_.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      // The descriptor is gone or refuses bytes (EPIPE, EBADF, EAGAIN on a non-blocking pipe).
      // Logging must not stop serving: the batch is dropped, as stdio drops a failed fwrite.
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

void BufferedSink::flusher() {
  std::unique_lock lock(stop_mu_);
  while (!stop_) {
    stop_cv_.wait_for(lock, interval_, [this] { return stop_; });
    if (stop_) {
      return;
    }
    lock.unlock();
    flush();  // base_sink::flush takes mutex_; an empty buffer costs a lock and nothing else
    lock.lock();
  }
}

}  // namespace rjg::server
