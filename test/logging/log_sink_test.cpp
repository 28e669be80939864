// BufferedSink: batched lines are byte-identical to spdlog's own formatting, and reach the
// descriptor at flush(), at kFlushBytes, within the flush interval, and at destruction.
#include "logging/log_sink.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

namespace rjg::logging {
namespace {

using namespace std::chrono_literals;

constexpr const char* kPattern = R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l",%v})";

// A pipe whose read end never blocks; both ends closed at destruction.
class Pipe {
 public:
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    read_ = fds[0];
    write_ = fds[1];
    ::fcntl(read_, F_SETFL, ::fcntl(read_, F_GETFL) | O_NONBLOCK);
  }
  ~Pipe() {
    ::close(read_);
    ::close(write_);
  }
  int write_fd() const { return write_; }
  // Everything readable now (empty when nothing was written).
  std::string drain() const {
    std::string out;
    char buf[65536];
    for (;;) {
      const ssize_t n = ::read(read_, buf, sizeof buf);
      if (n <= 0) {
        return out;
      }
      out.append(buf, static_cast<std::size_t>(n));
    }
  }

 private:
  int read_ = -1;
  int write_ = -1;
};

std::shared_ptr<spdlog::logger> make_logger(std::shared_ptr<spdlog::sinks::sink> sink) {
  auto logger = std::make_shared<spdlog::logger>("test", std::move(sink));
  logger->set_pattern(kPattern, spdlog::pattern_time_type::utc);
  logger->set_level(spdlog::level::trace);
  return logger;
}

TEST(BufferedSink, HoldsLinesUntilFlushAndWritesTheSameBytesAsSpdlog) {
  Pipe pipe;
  auto sink = std::make_shared<BufferedSink>(pipe.write_fd(), 10s);
  auto logger = make_logger(sink);
  std::ostringstream expected_stream;
  auto reference = make_logger(std::make_shared<spdlog::sinks::ostream_sink_mt>(expected_stream));

  // One message object logged through both, so the timestamps are the same.
  const spdlog::details::log_msg msg("test", spdlog::level::info,
                                     R"("msg":"admission decision","uid":"u-1")");
  for (int i = 0; i < 3; ++i) {
    sink->log(msg);
    reference->sinks().front()->log(msg);
  }
  EXPECT_EQ(pipe.drain(), "") << "nothing is written before a flush, the size limit or the timer";
  logger->flush();
  const std::string written = pipe.drain();
  EXPECT_EQ(written, expected_stream.str());
  EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), 3);
}

// Polls `pipe` until it has produced at least `bytes` bytes or `deadline` passed.
std::string read_at_least(const Pipe& pipe, std::size_t bytes, std::chrono::milliseconds deadline) {
  std::string out;
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (out.size() < bytes && std::chrono::steady_clock::now() < until) {
    out += pipe.drain();
    std::this_thread::sleep_for(1ms);
  }
  return out;
}

TEST(BufferedSink, TheFlusherWritesAFullBatchWithoutWaitingForTheInterval) {
  Pipe pipe;
  auto logger = make_logger(std::make_shared<BufferedSink>(pipe.write_fd(), 10s));
  const std::string field(200, 'x');
  std::size_t logged = 0;
  while (logged < BufferedSink::kFlushBytes) {
    logger->info(R"("msg":"{}")", field);
    logged += field.size();
  }
  const std::string written = read_at_least(pipe, BufferedSink::kFlushBytes, 5s);
  EXPECT_GE(written.size(), BufferedSink::kFlushBytes) << "well before the 10 s interval";
  EXPECT_EQ(written.back(), '\n') << "a batch holds whole lines only";
}

// The reader of stderr stalls (a full pipe nobody reads): logging must not wait for it while
// less than kMaxBufferedBytes is waiting, and every line arrives, in order, once it reads again.
TEST(BufferedSink, AStalledReaderDoesNotBlockLoggingAndLosesNothing) {
  Pipe pipe;
  ::fcntl(pipe.write_fd(), F_SETPIPE_SZ, 4096);  // the smallest pipe: full after a few lines
  auto logger = make_logger(std::make_shared<BufferedSink>(pipe.write_fd(), 10ms));
  constexpr int kLines = 4000;  // ~400 KB: far more than the pipe holds, far less than the cap
  auto logging = std::async(std::launch::async, [&] {
    for (int i = 0; i < kLines; ++i) {
      logger->info(R"("msg":"line","n":{},"pad":"{}")", i, std::string(40, 'p'));
    }
  });
  const bool returned = logging.wait_for(5s) == std::future_status::ready;
  EXPECT_TRUE(returned) << "logging waited for the stalled reader";
  std::string written;
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (std::count(written.begin(), written.end(), '\n') < kLines &&
         std::chrono::steady_clock::now() < until) {
    written += pipe.drain();
    std::this_thread::sleep_for(1ms);
  }
  logging.wait();
  ASSERT_EQ(std::count(written.begin(), written.end(), '\n'), kLines);
  std::size_t at = 0;
  for (int i = 0; i < kLines; ++i) {
    const std::string want = "\"n\":" + std::to_string(i) + ",";
    const std::size_t found = written.find(want, at);
    ASSERT_NE(found, std::string::npos) << "line " << i << " missing or out of order";
    at = found;
  }
}

// Beyond kMaxBufferedBytes waiting, the thread that logs waits for the reader (memory stays
// bounded) instead of dropping lines.
TEST(BufferedSink, BeyondTheCapLoggingWaitsForTheReader) {
  Pipe pipe;
  ::fcntl(pipe.write_fd(), F_SETPIPE_SZ, 4096);
  auto logger = make_logger(std::make_shared<BufferedSink>(pipe.write_fd(), 10ms));
  const std::string field(1000, 'x');
  // More than twice the cap: the flusher may take up to a cap's worth into the batch it is
  // stuck writing (when it first runs late, its batch is all that was buffered by then), and
  // the rest must still exceed the cap for the logging thread to wait.
  const std::size_t lines = 2 * BufferedSink::kMaxBufferedBytes / field.size() + 2000;
  auto logging = std::async(std::launch::async, [&] {
    for (std::size_t i = 0; i < lines; ++i) {
      logger->info(R"("msg":"{}")", field);
    }
  });
  EXPECT_EQ(logging.wait_for(500ms), std::future_status::timeout)
      << "more than the cap was taken while nobody read";
  std::size_t newlines = 0;
  // Bounds for a hang, not a speed test: 10 MB through a 4 KiB pipe takes seconds on a loaded
  // 2-core machine.
  const auto until = std::chrono::steady_clock::now() + 120s;
  while (newlines < lines && std::chrono::steady_clock::now() < until) {
    const std::string chunk = pipe.drain();
    newlines += static_cast<std::size_t>(std::count(chunk.begin(), chunk.end(), '\n'));
    if (chunk.empty()) {
      std::this_thread::sleep_for(1ms);
    }
  }
  EXPECT_EQ(logging.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(newlines, lines) << "no line dropped";
}

TEST(BufferedSink, TheFlusherWritesWithinTheInterval) {
  Pipe pipe;
  auto logger = make_logger(std::make_shared<BufferedSink>(pipe.write_fd(), 20ms));
  logger->info(R"("msg":"one line")");
  std::string written;
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  while (written.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
    written = pipe.drain();
  }
  EXPECT_NE(written.find(R"("msg":"one line"})"), std::string::npos) << written;
}

TEST(BufferedSink, FlushOnLevelWritesWarningsAtOnce) {
  Pipe pipe;
  auto logger = make_logger(std::make_shared<BufferedSink>(pipe.write_fd(), 10s));
  logger->flush_on(spdlog::level::warn);
  logger->info(R"("msg":"batched")");
  EXPECT_EQ(pipe.drain(), "");
  logger->warn(R"("msg":"urgent")");
  const std::string written = pipe.drain();
  // The warning comes out with the info line batched before it, in order.
  const auto batched = written.find("batched");
  const auto urgent = written.find("urgent");
  ASSERT_NE(batched, std::string::npos) << written;
  ASSERT_NE(urgent, std::string::npos) << written;
  EXPECT_LT(batched, urgent);
}

TEST(BufferedSink, DestructionWritesWhatIsLeft) {
  Pipe pipe;
  {
    auto logger = make_logger(std::make_shared<BufferedSink>(pipe.write_fd(), 10s));
    logger->info(R"("msg":"last words")");
  }
  EXPECT_NE(pipe.drain().find("last words"), std::string::npos);
}

}  // namespace
}  // namespace rjg::logging
