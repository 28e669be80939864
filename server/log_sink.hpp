// BufferedSink: the spdlog sink of `serve`. Formatted lines are appended to a buffer and written
// to a file descriptor (stderr) in one write(2) per batch instead of one per line, as klog and
// glog do: a keep-alive review otherwise pays a system call for its decision line alone.
//
// When lines reach the descriptor:
//   - flush() (spdlog's flush, and the logger's flush_on level): at once;
//   - when the buffer holds kFlushBytes or more: at once, by the thread that logged;
//   - otherwise within `interval`, by the sink's own flusher thread;
//   - when the sink is destroyed: the rest.
// The buffer only ever holds whole lines, so a batch never splits a line. Lines not yet written
// when the process is killed (SIGKILL, a crash) are lost: at most `interval` worth of lines or
// kFlushBytes, whichever is less. A graceful shutdown flushes everything.
#pragma once

#include <spdlog/sinks/base_sink.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

namespace rjg::server {

class BufferedSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // A batch is written as soon as it holds this many bytes.
  static constexpr std::size_t kFlushBytes = 32 * 1024;

  // Writes to `fd`, which must stay open for the sink's lifetime (it is not closed). Starts the
  // flusher thread, which wakes every `interval` (> 0) and writes what is buffered.
  BufferedSink(int fd, std::chrono::milliseconds interval);
  // Stops the flusher thread and writes what is still buffered.
  ~BufferedSink() override;
  BufferedSink(const BufferedSink&) = delete;
  BufferedSink& operator=(const BufferedSink&) = delete;

 protected:
  // Both run under base_sink's mutex.
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

 private:
  void flusher();

  const int fd_;
  const std::chrono::milliseconds interval_;
  std::string buffer_;         // whole formatted lines not yet written; guarded by mutex_
  spdlog::memory_buf_t line_;  // the line being formatted; guarded by mutex_

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;  // guarded by stop_mu_
  std::thread thread_;
};

}  // namespace rjg::server
