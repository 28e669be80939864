// Tests server/review_pool.cpp: the bound (workers + queue, then refusals), FIFO order, and stop()
// with and without a running job.
#include "server/review_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace rjg::server {
namespace {

using namespace std::chrono_literals;

// A job that blocks its worker until release() is called.
class Gate {
 public:
  ReviewPool::Job job() {
    return [this] {
      started_.fetch_add(1);
      open_.wait(false);
    };
  }
  void release() {
    open_ = true;
    open_.notify_all();
  }
  // Waits up to 10 s until `n` gated jobs run.
  bool wait_started(int n) const {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (started_.load() < n) {
      if (std::chrono::steady_clock::now() > deadline) {
        return false;
      }
      std::this_thread::sleep_for(1ms);
    }
    return true;
  }

 private:
  std::atomic<int> started_{0};
  std::atomic<bool> open_{false};
};

TEST(ReviewPool, RefusesBeyondWorkersPlusQueue) {
  struct Row {
    unsigned threads;
    std::size_t queue;
  };
  for (const Row row : {Row{1, 0}, Row{1, 2}, Row{2, 1}, Row{3, 3}}) {
    ReviewPool pool(row.threads, row.queue);
    Gate gate;
    for (unsigned i = 0; i < row.threads; ++i) {
      ASSERT_TRUE(pool.try_submit(gate.job())) << row.threads << "/" << row.queue;
    }
    ASSERT_TRUE(gate.wait_started(static_cast<int>(row.threads)));
    for (std::size_t i = 0; i < row.queue; ++i) {
      EXPECT_FALSE(pool.full());
      ASSERT_TRUE(pool.try_submit([] {})) << row.threads << "/" << row.queue;
    }
    EXPECT_TRUE(pool.full());
    EXPECT_FALSE(pool.try_submit([] {})) << row.threads << "/" << row.queue;
    EXPECT_EQ(pool.queued(), row.queue);
    gate.release();
    EXPECT_TRUE(pool.stop());
  }
}

TEST(ReviewPool, RunsQueuedJobsInOrder) {
  ReviewPool pool(1, 16);
  Gate gate;
  ASSERT_TRUE(pool.try_submit(gate.job()));
  ASSERT_TRUE(gate.wait_started(1));
  std::mutex mu;
  std::vector<int> order;
  std::promise<void> done;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(pool.try_submit([&, i] {
      std::lock_guard lock(mu);
      order.push_back(i);
      if (i == 9) {
        done.set_value();
      }
    }));
  }
  gate.release();
  ASSERT_EQ(done.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(ReviewPool, StopDropsQueuedJobsAndRefusesNewOnes) {
  ReviewPool pool(1, 4);
  Gate gate;
  ASSERT_TRUE(pool.try_submit(gate.job()));
  ASSERT_TRUE(gate.wait_started(1));
  std::atomic<int> ran{0};
  ASSERT_TRUE(pool.try_submit([&] { ran.fetch_add(1); }));
  // A running job that outlives the deadline: stop() says so and leaves the worker running.
  EXPECT_FALSE(pool.stop(std::chrono::steady_clock::now() + 50ms));
  EXPECT_FALSE(pool.try_submit([] {}));
  EXPECT_TRUE(pool.full());
  gate.release();
  EXPECT_TRUE(pool.stop());
  EXPECT_TRUE(pool.stop());  // idempotent
  EXPECT_EQ(ran.load(), 0);  // the queued job was dropped, not run
}

}  // namespace
}  // namespace rjg::server
