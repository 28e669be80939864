// ReviewPool: the lane for large reviews. A request body of at least
// ServerConfig::large_review_bytes is reviewed here, on a few worker threads of lower CPU
// priority, instead of on the I/O thread that read it; every smaller review still runs on its
// connection's I/O thread, as before.
//
// Why two lanes: a review's cost grows with its body. A 3 MiB RayJob (the largest object the
// apiserver sends) costs hundreds of times a typical 5-8 KiB one, so a few of them reviewed on the
// I/O threads hold every other connection of those threads, and a tenant whose ordinary review
// waits behind them past the webhook timeout is refused (failurePolicy: Fail). Here large reviews
// wait in their own bounded FIFO queue and run at nice +10, so the kernel gives the I/O threads
// (TLS, reading, the ordinary reviews) the CPU first; large reviews use what is left.
// Small reviews stay inline because handing every review to another thread costs two cross-thread
// wake-ups per request, which the 99 % case does not need: its cost is bounded by the lane's size
// limit.
//
// Overload is explicit: at most `threads` reviews run and `queue_limit` wait; a submit beyond that
// is refused (the caller answers 503, router.hpp overloaded_response()), so queued bodies never
// take more than (threads + queue_limit) x max_body_bytes of memory.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rjg::server {

class ReviewPool {
 public:
  // A job: reviews one request and hands the response back to its connection. Runs on a worker.
  using Job = std::function<void()>;

  // A pool of `threads` workers (at least 1) and room for `queue_limit` waiting jobs. Starts the
  // workers at once.
  ReviewPool(unsigned threads, std::size_t queue_limit);
  // Stops the workers (stop() without a deadline). REQUIRES: no stop() returned false.
  ~ReviewPool();
  ReviewPool(const ReviewPool&) = delete;
  ReviewPool& operator=(const ReviewPool&) = delete;

  // Queues `job`. Returns false, without queueing, when every worker is busy and queue_limit jobs
  // already wait, or after stop(). Thread-safe.
  bool try_submit(Job job);

  // True when a try_submit() now would be refused. Thread-safe; a hint (it may change at once).
  bool full() const;

  // Jobs waiting for a worker (not counting the running ones). Thread-safe.
  std::size_t queued() const;

  // Refuses new jobs, destroys the jobs still waiting (without running them), waits until no
  // worker runs a job or `deadline` passes, and joins the workers. Returns true when they were
  // joined; false when a job still ran at the deadline (a review cannot be interrupted): the
  // workers are left running, and the caller must end the process without destroying the pool.
  // Idempotent. Must not be called from a worker.
  bool stop(std::chrono::steady_clock::time_point deadline =
                std::chrono::steady_clock::time_point::max());

 private:
  void work();
  bool full_locked() const { return busy_ >= threads_ && queue_.size() >= queue_limit_; }

  const std::size_t threads_;
  const std::size_t queue_limit_;
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::condition_variable idle_;  // signalled when a worker finishes a job
  std::deque<Job> queue_;
  std::size_t busy_ = 0;  // workers running a job
  bool stopped_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace rjg::server
