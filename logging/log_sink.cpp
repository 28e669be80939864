// The batching stderr sink.
#include "logging/log_sink.hpp"

#include <unistd.h>

#include <cerrno>

namespace rjg::logging {

BufferedSink::BufferedSink(int fd, std::chrono::milliseconds interval)
    : fd_(fd), interval_(interval) {
  buffer_.reserve(kFlushBytes * 2);
  writing_.reserve(kFlushBytes * 2);
  thread_ = std::thread([this] { flusher(); });
}

BufferedSink::~BufferedSink() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
  flush();
}

void BufferedSink::sink_it_(const spdlog::details::log_msg& msg) {
  line_.clear();
  formatter_->format(msg, line_);
  buffer_.append(line_.data(), line_.size());
  if (buffer_.size() >= kMaxBufferedBytes) {
    flush_();  // the flusher is stuck behind a slow reader: wait for it, then write ourselves
  } else if (buffer_.size() >= kFlushBytes && !in_flight_) {
    wake_.notify_one();
  }
}

void BufferedSink::flush_() {
  // A batch being written holds earlier lines: wait for it, so lines stay in order. The wait
  // releases mutex_ (held by base_sink::flush), so other threads keep logging meanwhile.
  done_.wait(mutex_, [this] { return !in_flight_; });
  write_all(buffer_);
  buffer_.clear();
}

void BufferedSink::flusher() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, interval_, [this] { return stop_ || buffer_.size() >= kFlushBytes; });
    if (stop_) {
      return;  // the destructor writes the rest
    }
    if (buffer_.empty()) {
      continue;
    }
    writing_.swap(buffer_);  // buffer_ takes the empty string and keeps its capacity
    in_flight_ = true;
    lock.unlock();
    write_all(writing_);
    writing_.clear();
    lock.lock();
    in_flight_ = false;
    done_.notify_all();
  }
}

void BufferedSink::write_all(const std::string& bytes) const {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      // The descriptor is gone or refuses bytes (EPIPE, EBADF, EAGAIN on a non-blocking pipe).
      // Logging must not stop serving: the batch is dropped, as stdio drops a failed fwrite.
      return;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace rjg::logging
