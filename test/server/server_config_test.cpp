// Tests server/server_config.cpp: flags, defaults, durations, addresses and every refusal.
#include "server/server_config.hpp"

#include <gtest/gtest.h>

namespace rjg::server {
namespace {

using Args = std::vector<std::string>;

Args base(std::initializer_list<std::string> extra = {}) {
  Args a{"serve", "--tls-cert", "c.pem", "--tls-key", "k.pem"};
  a.insert(a.end(), extra);
  return a;
}

TEST(ServerConfig, Defaults) {
  auto c = parse_server_config(base());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().listen.host, "0.0.0.0");
  EXPECT_EQ(c.value().listen.port, 8443);
  EXPECT_EQ(c.value().probe_listen.port, 8080);
  EXPECT_EQ(c.value().max_body_bytes, 7U * 1024 * 1024);
  EXPECT_EQ(c.value().shutdown_delay, std::chrono::seconds(5));
  EXPECT_EQ(c.value().shutdown_timeout, std::chrono::seconds(25));
  EXPECT_GE(c.value().idle_timeout, std::chrono::seconds(90));
  EXPECT_GE(c.value().threads, 1U);
  EXPECT_GE(c.value().review_threads, 1U);
  EXPECT_EQ(c.value().large_review_bytes, 128U * 1024);
  EXPECT_EQ(c.value().review_queue, 8U);
  EXPECT_TRUE(c.value().policy_file.empty());
  EXPECT_EQ(c.value().log_format, LogFormat::kJson);
}

TEST(ServerConfig, AllFlags) {
  auto c = parse_server_config(base({"--listen",
                                     "127.0.0.1:0",
                                     "--probe-listen=[::1]:9090",
                                     "--threads",
                                     "3",
                                     "--client-ca",
                                     "ca.pem",
                                     "--policy",
                                     "p.yaml",
                                     "--max-body-bytes",
                                     "1000",
                                     "--log-format",
                                     "text",
                                     "--log-level",
                                     "debug",
                                     "--shutdown-delay",
                                     "0.2",
                                     "--shutdown-timeout",
                                     "3s",
                                     "--port-file",
                                     "ports.json",
                                     "--idle-timeout",
                                     "1m30s",
                                     "--header-timeout",
                                     "500ms",
                                     "--large-review-bytes",
                                     "65536",
                                     "--review-threads",
                                     "2",
                                     "--review-queue=0"}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto& v = c.value();
  EXPECT_EQ(v.listen.host, "127.0.0.1");
  EXPECT_EQ(v.listen.port, 0);
  EXPECT_EQ(v.probe_listen.host, "::1");
  EXPECT_EQ(v.probe_listen.port, 9090);
  EXPECT_EQ(v.threads, 3U);
  EXPECT_EQ(v.client_ca_file, "ca.pem");
  EXPECT_EQ(v.policy_file, "p.yaml");
  EXPECT_EQ(v.max_body_bytes, 1000U);
  EXPECT_EQ(v.log_format, LogFormat::kText);
  EXPECT_EQ(v.log_level, "debug");
  EXPECT_EQ(v.shutdown_delay, std::chrono::milliseconds(200));
  EXPECT_EQ(v.shutdown_timeout, std::chrono::seconds(3));
  EXPECT_EQ(v.port_file, "ports.json");
  EXPECT_EQ(v.idle_timeout, std::chrono::seconds(90));
  EXPECT_EQ(v.header_timeout, std::chrono::milliseconds(500));
  EXPECT_EQ(v.large_review_bytes, 65536U);
  EXPECT_EQ(v.review_threads, 2U);
  EXPECT_EQ(v.review_queue, 0U);
}

TEST(ServerConfig, Refusals) {
  const Args cases[] = {
      {"serve"},
      {"serve", "--tls-cert", "c.pem"},
      {"serve", "--tls-key", "k.pem"},
      base({"--bogus"}),
      base({"--threads"}),
      base({"--threads", "0"}),
      base({"--threads", "x"}),
      base({"--listen", "8443"}),
      base({"--listen", "127.0.0.1:70000"}),
      base({"--listen", "::1:8443"}),
      base({"--log-format", "xml"}),
      base({"--log-level", "loud"}),
      base({"--shutdown-delay", "-1"}),
      base({"--shutdown-delay", "10s", "--shutdown-timeout", "5s"}),
      base({"--max-body-bytes", "0"}),
      // Above rjg::kMaxInputBytes, the one input limit: the flag may only lower it.
      base({"--max-body-bytes", "7340033"}),
      base({"--large-review-bytes", "0"}),
      base({"--review-threads", "0"}),
      base({"--review-threads", "257"}),
      base({"--review-queue", "4097"}),
      base({"--review-queue", "-1"}),
      base({"--idle-timeout", "5 parsecs"}),
      base({"--policy", ""}),
  };
  for (const auto& args : cases) {
    auto c = parse_server_config(args);
    std::string joined;
    for (const auto& a : args) {
      joined += a + " ";
    }
    ASSERT_FALSE(c.ok()) << joined;
    EXPECT_EQ(c.error().code, ErrorCode::kInvalidArgument) << joined;
    EXPECT_FALSE(c.error().message.empty()) << joined;
  }
}

TEST(ServerConfig, Durations) {
  EXPECT_EQ(parse_duration("5").value(), std::chrono::seconds(5));
  EXPECT_EQ(parse_duration("0.25").value(), std::chrono::milliseconds(250));
  EXPECT_EQ(parse_duration("250ms").value(), std::chrono::milliseconds(250));
  EXPECT_EQ(parse_duration("1.5s").value(), std::chrono::milliseconds(1500));
  EXPECT_EQ(parse_duration("2m").value(), std::chrono::seconds(120));
  EXPECT_EQ(parse_duration("1h1m1s").value(), std::chrono::seconds(3661));
  for (const char* bad : {"", "s", "5x", "-5", "--1s", "1s2", "ms"}) {
    EXPECT_FALSE(parse_duration(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace rjg::server
