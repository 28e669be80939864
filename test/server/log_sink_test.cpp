// BufferedSink: batched lines are byte-identical to spdlog's own formatting, and reach the
// descriptor at flush(), at kFlushBytes, within the flush interval, and at destruction.
#include "server/log_sink.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

namespace rjg::server {
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

TEST(BufferedSink, WritesAtOnceWhenTheBatchIsFull) {
  Pipe pipe;
  auto logger = make_logger(std::make_shared<BufferedSink>(pipe.write_fd(), 10s));
  const std::string field(200, 'x');
  std::size_t logged = 0;
  while (logged < BufferedSink::kFlushBytes) {
    logger->info(R"("msg":"{}")", field);
    logged += field.size();
  }
  const std::string written = pipe.drain();
  EXPECT_GE(written.size(), BufferedSink::kFlushBytes);
  EXPECT_EQ(written.back(), '\n') << "a batch holds whole lines only";
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
}  // namespace rjg::server
