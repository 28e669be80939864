// log_event / log_decision: the exact fields and escaping of structured lines, through an ostream
// logger installed as spdlog's default (pattern "%v": only what log.cpp renders).
#include "server/log.hpp"

#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <string>

namespace rjg::server {
namespace {

using namespace std::chrono_literals;

class LogLines : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = spdlog::default_logger();
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(out_);
    auto logger = std::make_shared<spdlog::logger>("test", std::move(sink));
    logger->set_pattern("%v");
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(std::move(logger));
  }
  void TearDown() override { spdlog::set_default_logger(previous_); }

  std::string take() {
    std::string s = out_.str();
    out_.str("");
    return s;
  }

  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST_F(LogLines, EscapesJsonStrings) {
  struct Row {
    std::string value;
    std::string json;
  };
  const Row rows[] = {
      {"", R"("")"},
      {"plain text", R"("plain text")"},
      {"say \"hi\"", R"("say \"hi\"")"},
      {"back\\slash", R"("back\\slash")"},
      {"a\nb\rc\td", R"("a\nb\rc\td")"},
      {std::string("nul\0x", 5), R"("nul\u0000x")"},
      {"\x01\x1f", R"("\u0001\u001f")"},
      {"\"", R"("\"")"},
      {"caf\xc3\xa9 \xe2\x9c\x93", "\"caf\xc3\xa9 \xe2\x9c\x93\""},  // UTF-8 passes through
      {"end\\", R"("end\\")"},
  };
  for (const auto& row : rows) {
    log_event(Level::kInfo, "m", {{"k", row.value}});
    EXPECT_EQ(take(), R"("msg":"m","k":)" + row.json + "\n") << row.json;
  }
}

TEST_F(LogLines, RendersEveryFieldType) {
  log_event(Level::kWarn, "reload \"failed\"",
            {{"n", 42LL}, {"ratio", 0.5}, {"small", 1e-05}, {"ok", false}});
  EXPECT_EQ(take(), R"("msg":"reload \"failed\"","n":42,"ratio":0.5,"small":1e-05,"ok":false)"
                    "\n");
}

TEST_F(LogLines, DecisionLineHasTheAuditFields) {
  admission::ReviewSummary s;
  s.uid = "u-1";
  s.operation = "CREATE";
  s.namespace_ = "tenant-a";
  s.name = "job\"x";
  s.kind = "RayJob";
  s.username = "system:serviceaccount:tenant-a:jupyter";
  s.allowed = false;
  // Real ids, spelled through the one table that owns them, so a renamed rule fails here.
  s.denied_rules = {std::string(policy::rule_id_name(policy::RuleId::kReapTtl)),
                    std::string(policy::rule_id_name(policy::RuleId::kImagePinned))};
  s.warned_rules = {std::string(policy::rule_id_name(policy::RuleId::kResourcesDeclared))};
  log_decision(s, 1234567ns, 200);
  EXPECT_EQ(take(),
            R"("msg":"admission decision","uid":"u-1","namespace":"tenant-a","name":"job\"x",)"
            R"("kind":"RayJob","operation":"CREATE","allowed":false,)"
            R"("denied":"reap-ttl,image-pinned","warned":"resources-declared",)"
            R"("latency_ms":1.23457,"http_status":200,"dry_run":false,)"
            R"("username":"system:serviceaccount:tenant-a:jupyter")"
            "\n");
}

}  // namespace
}  // namespace rjg::server
