// Metrics: the rayjob_guard_* Prometheus metrics of the server, kept in one prometheus-cpp
// registry and rendered with TextSerializer for GET /metrics on the probe port.
// All methods are thread-safe. The Metrics object must outlive every session that records into it.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "admission/review.hpp"

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
class Registry;
template <typename T>
class Family;
}  // namespace prometheus

namespace rjg::server {

class Metrics {
 public:
  // Registers every metric; build_info{version} is set to 1.
  explicit Metrics(const std::string& version);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // One decoded and answered AdmissionReview: admission_requests_total{operation,allowed},
  // admission_violations_total{rule,action} per denied/warned rule, and its latency.
  void record_review(const admission::ReviewSummary& summary, std::chrono::nanoseconds latency);
  // One HTTP response on the HTTPS port: http_requests_total{code}.
  void record_http(unsigned status);
  void in_flight_add(double delta);
  void tls_handshake_failed();
  void connection_rejected();
  // A large review refused because its lane was full (answered 503): review_overload_total.
  void review_overloaded();
  // Large reviews queued or running in their lane (large_reviews); +1 when queued, -1 when done.
  void large_reviews_add(double delta);
  void internal_error();
  // result is "success" or "failure".
  void policy_reload(const char* result);
  void certificate_reload(const char* result);
  // notAfter of the certificate being served, in seconds since the epoch.
  void set_certificate_expiry(double unix_seconds);
  // With quota from the cluster: cluster_quota_synced (0/1) and
  // cluster_quota_staleness_seconds (0 while the watch is open). Absent otherwise.
  void set_cluster_quota(bool synced, double staleness_seconds);

  // Returns the Prometheus text exposition (format 0.0.4) of every metric.
  std::string render() const;

 private:
  // Returns the series of `family` for `labels`, creating it on first use. Family::Add builds a
  // label map, hashes it and takes the family's mutex on every call; the hot paths below look the
  // series up once and keep the pointer (series are never removed, so pointers stay valid).
  prometheus::Counter* violation_series(const std::string& rule, bool deny);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* admission_requests_;
  prometheus::Family<prometheus::Counter>* violations_;
  prometheus::Histogram* latency_;
  prometheus::Family<prometheus::Counter>* http_requests_;
  prometheus::Gauge* in_flight_;
  prometheus::Counter* handshake_failures_;
  prometheus::Counter* connections_rejected_;
  prometheus::Counter* review_overloads_;
  prometheus::Gauge* large_reviews_;
  prometheus::Counter* internal_errors_;
  prometheus::Family<prometheus::Counter>* policy_reloads_;
  prometheus::Family<prometheus::Counter>* certificate_reloads_;
  prometheus::Gauge* certificate_expiry_;
  prometheus::Family<prometheus::Gauge>* cluster_quota_synced_;
  prometheus::Family<prometheus::Gauge>* cluster_quota_staleness_;

  // Cached series pointers. Only pointers: a series appears in the exposition when Family::Add
  // creates it, so they are filled on first use and absent series stay absent.
  // http_requests_total{code} by status 100..599.
  static constexpr unsigned kFirstStatus = 100;
  static constexpr unsigned kLastStatus = 599;
  std::array<std::atomic<prometheus::Counter*>, kLastStatus - kFirstStatus + 1> http_by_status_{};
  // admission_requests_total{operation,allowed} for the four admission operations, [op][allowed].
  std::array<std::array<prometheus::Counter*, 2>, 4> requests_by_operation_{};
  // admission_violations_total{rule,action} by rule id, [0] deny, [1] warn; guarded by series_mu_.
  std::mutex series_mu_;
  std::array<std::unordered_map<std::string, prometheus::Counter*>, 2> violations_by_rule_;
};

}  // namespace rjg::server
