// Tests server/metrics.cpp: every metric is exposed with its labels after recording.
// (`promtool check metrics` runs against the live server in server_e2e.)
#include "server/metrics.hpp"

#include <gtest/gtest.h>

namespace rjg::server {
namespace {

TEST(Metrics, RecordsAppearInTheExposition) {
  Metrics m("9.9.9");
  admission::ReviewSummary s;
  s.operation = "CREATE";
  s.allowed = false;
  s.denied_rules = {"reap-self"};
  s.warned_rules = {"image-pinned"};
  m.record_review(s, std::chrono::microseconds(80));
  m.record_http(200);
  m.record_http(413);
  m.policy_reload("failure");
  m.set_certificate_expiry(1.5e9);
  m.connection_rejected();
  m.review_overloaded();
  m.large_reviews_add(2);
  m.large_reviews_add(-1);
  const std::string text = m.render();
  for (const char* needle : {
           "rayjob_guard_admission_requests_total{allowed=\"false\",operation=\"CREATE\"} 1",
           "rayjob_guard_admission_violations_total{action=\"deny\",rule=\"reap-self\"} 1",
           "rayjob_guard_admission_violations_total{action=\"warn\",rule=\"image-pinned\"} 1",
           "rayjob_guard_admission_duration_seconds_bucket{le=\"0.0001\"} 1",
           "rayjob_guard_admission_duration_seconds_bucket{le=\"5e-05\"} 0",
           "rayjob_guard_http_requests_total{code=\"413\"} 1",
           "rayjob_guard_policy_reloads_total{result=\"failure\"} 1",
           "rayjob_guard_policy_reloads_total{result=\"success\"} 0",
           "rayjob_guard_certificate_expiry_timestamp_seconds 1500000000",
           "rayjob_guard_connections_rejected_total 1",
           "rayjob_guard_review_overload_total 1",
           "rayjob_guard_large_reviews 1",
           "rayjob_guard_build_info{version=\"9.9.9\"} 1",
           "rayjob_guard_http_requests_in_flight 0",
           "rayjob_guard_tls_handshake_failures_total 0",
       }) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
}

// The series pointers are cached on first use: later records must land in the same series, and a
// series nobody recorded must stay absent from the exposition.
TEST(Metrics, CachedSeriesAccumulateAndAbsentSeriesStayAbsent) {
  Metrics m("9.9.9");
  admission::ReviewSummary s;
  s.operation = "UPDATE";
  s.allowed = false;
  s.denied_rules = {"reap-self", "quota-fit"};
  for (int i = 0; i < 3; ++i) {
    m.record_review(s, std::chrono::microseconds(10));
    m.record_http(200);
  }
  s.operation = "PATCHED";  // not an admission operation: counted without the cache
  s.allowed = true;
  s.denied_rules.clear();
  s.warned_rules = {"reap-self"};
  m.record_review(s, std::chrono::microseconds(10));
  m.record_http(99);
  const std::string text = m.render();
  for (const char* needle : {
           "rayjob_guard_admission_requests_total{allowed=\"false\",operation=\"UPDATE\"} 3",
           "rayjob_guard_admission_requests_total{allowed=\"true\",operation=\"PATCHED\"} 1",
           "rayjob_guard_admission_violations_total{action=\"deny\",rule=\"reap-self\"} 3",
           "rayjob_guard_admission_violations_total{action=\"deny\",rule=\"quota-fit\"} 3",
           "rayjob_guard_admission_violations_total{action=\"warn\",rule=\"reap-self\"} 1",
           "rayjob_guard_http_requests_total{code=\"200\"} 3",
           "rayjob_guard_http_requests_total{code=\"99\"} 1",
       }) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
  for (const char* absent : {"operation=\"CREATE\"", "allowed=\"true\",operation=\"UPDATE\"",
                             "code=\"500\"", "action=\"warn\",rule=\"quota-fit\""}) {
    EXPECT_EQ(text.find(absent), std::string::npos) << absent << "\n" << text;
  }
}

}  // namespace
}  // namespace rjg::server
