// The large-review lane: a bounded FIFO and low-priority worker threads.
#include "server/review_pool.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cassert>
#include <utility>

namespace rjg::server {
namespace {

// The nice value of a worker. At +10 a worker weighs about a tenth of a nice-0 thread in the
// kernel's fair scheduler, and a waking I/O thread preempts it at once: ordinary reviews barely
// notice a busy worker, and large reviews still get a tenth of a contended core (all of an idle
// one). Linux applies setpriority() to one thread when given its thread id; raising one's own
// nice value needs no privilege.
constexpr int kWorkerNice = 10;

}  // namespace

ReviewPool::ReviewPool(unsigned threads, std::size_t queue_limit)
    : threads_(threads == 0 ? 1 : threads), queue_limit_(queue_limit) {
  workers_.reserve(threads_);
  for (std::size_t i = 0; i < threads_; ++i) {
    workers_.emplace_back([this] { work(); });
  }
}

ReviewPool::~ReviewPool() {
  const bool joined = stop();
  assert(joined);
  (void)joined;
}

bool ReviewPool::try_submit(Job job) {
  {
    std::lock_guard lock(mu_);
    if (stopped_ || full_locked()) {
      return false;
    }
    queue_.push_back(std::move(job));
  }
  ready_.notify_one();
  return true;
}

bool ReviewPool::full() const {
  std::lock_guard lock(mu_);
  return stopped_ || full_locked();
}

std::size_t ReviewPool::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

bool ReviewPool::stop(std::chrono::steady_clock::time_point deadline) {
  std::deque<Job> dropped;
  {
    std::unique_lock lock(mu_);
    if (stopped_ && workers_.empty()) {
      return true;
    }
    stopped_ = true;
    dropped.swap(queue_);
    ready_.notify_all();
    if (!idle_.wait_until(lock, deadline, [this] { return busy_ == 0; })) {
      return false;
    }
  }
  for (auto& t : workers_) {
    t.join();
  }
  workers_.clear();
  // The dropped jobs own their connections: destroying them closes those, outside the lock.
  return true;
}

void ReviewPool::work() {
  // Best effort: a failure (a seccomp profile that forbids it) leaves the worker at the
  // process's priority, which is still correct, only less fair.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kWorkerNice);
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [this] { return stopped_ || !queue_.empty(); });
      if (stopped_) {
        return;
      }
      job = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
    }
    job();
    job = nullptr;  // release the connection before counting the worker free
    {
      std::lock_guard lock(mu_);
      --busy_;
    }
    idle_.notify_all();
  }
}

}  // namespace rjg::server
