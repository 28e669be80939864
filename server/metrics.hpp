// Metrics: the rayjob_guard_* Prometheus metrics of the server, kept in one prometheus-cpp
// registry and rendered with TextSerializer for GET /metrics on the probe port.
// All methods are thread-safe. The Metrics object must outlive every session that records into it.
#pragma once

#include <chrono>
#include <memory>
#include <string>

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
  void internal_error();
  // result is "success" or "failure".
  void policy_reload(const char* result);
  void certificate_reload(const char* result);
  // notAfter of the certificate being served, in seconds since the epoch.
  void set_certificate_expiry(double unix_seconds);

  // Returns the Prometheus text exposition (format 0.0.4) of every metric.
  std::string render() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* admission_requests_;
  prometheus::Family<prometheus::Counter>* violations_;
  prometheus::Histogram* latency_;
  prometheus::Family<prometheus::Counter>* http_requests_;
  prometheus::Gauge* in_flight_;
  prometheus::Counter* handshake_failures_;
  prometheus::Counter* connections_rejected_;
  prometheus::Counter* internal_errors_;
  prometheus::Family<prometheus::Counter>* policy_reloads_;
  prometheus::Family<prometheus::Counter>* certificate_reloads_;
  prometheus::Gauge* certificate_expiry_;
};

}  // namespace rjg::server
