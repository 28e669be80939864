// BufferedSink: the spdlog sink of `serve` and `reap`. Formatted lines are appended to a buffer and written
// to a file descriptor (stderr) in one write(2) per batch instead of one per line, as klog and
// glog do: a keep-alive review otherwise pays a system call for its decision line alone.
//
// When lines reach the descriptor:
//   - flush() (spdlog's flush, and the logger's flush_on level): at once, by the caller, after
//     any batch the flusher is writing;
//   - when the buffer holds kFlushBytes or more: soon, by the sink's own flusher thread;
//   - otherwise within `interval`, by the flusher thread;
//   - when the sink is destroyed: the rest.
// Threads that log never wait for the descriptor while the flusher writes (a container runtime
// reading stderr slowly must not stall admission), until kMaxBufferedBytes are waiting: then the
// thread that logs writes them itself and so waits (memory stays bounded and no line is dropped).
// Lines are written in the order they were logged, whole: a batch never splits a line. Lines not
// yet written when the process is killed (SIGKILL, a crash) are lost: at most `interval` worth of
// lines or kFlushBytes, whichever is less, plus a batch being written. A graceful shutdown
// flushes everything.
#pragma once

#include <spdlog/sinks/base_sink.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

namespace rjg::logging {

class BufferedSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // The flusher writes a batch as soon as it holds this many bytes.
  static constexpr std::size_t kFlushBytes = 32 * 1024;
  // Beyond this many bytes waiting, the thread that logs writes them itself (backpressure).
  static constexpr std::size_t kMaxBufferedBytes = 8 * 1024 * 1024;

  // Writes to `fd`, which must stay open for the sink's lifetime (it is not closed). Starts the
  // flusher thread, which wakes every `interval` (> 0), or when a batch is full, and writes what
  // is buffered.
  BufferedSink(int fd, std::chrono::milliseconds interval);
  // Stops the flusher thread and writes what is still buffered.
  ~BufferedSink() override;
  BufferedSink(const BufferedSink&) = delete;
  BufferedSink& operator=(const BufferedSink&) = delete;

 protected:
  // Both run under base_sink's mutex_.
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

 private:
  void flusher();
  // Writes all of `bytes` to fd_ (retrying short writes and EINTR); drops the rest on an error.
  void write_all(const std::string& bytes) const;

  const int fd_;
  const std::chrono::milliseconds interval_;
  std::string buffer_;            // whole lines not yet handed to a write; guarded by mutex_
  std::string writing_;           // the batch the flusher writes; the flusher's while in_flight_
  spdlog::memory_buf_t line_;     // the line being formatted; guarded by mutex_
  bool in_flight_ = false;        // the flusher is writing `writing_`; guarded by mutex_
  bool stop_ = false;             // guarded by mutex_
  std::condition_variable wake_;  // wakes the flusher (waits with mutex_)
  std::condition_variable_any done_;  // flush_ waits on it until no batch is in flight
  std::thread thread_;
};

}  // namespace rjg::logging
