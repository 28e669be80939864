// The rayjob_guard_* metrics. Names follow Prometheus conventions (_total counters, _seconds units)
// so that `promtool check metrics` accepts the exposition.
#include "server/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <array>
#include <string>

namespace rjg::server {
namespace {

// The operations of admission.k8s.io/v1; others (never sent by a real apiserver) are counted
// through Family::Add directly.
constexpr std::array<const char*, 4> kOperations = {"CREATE", "UPDATE", "DELETE", "CONNECT"};

int operation_index(const std::string& operation) {
  for (std::size_t i = 0; i < kOperations.size(); ++i) {
    if (operation == kOperations[i]) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace

Metrics::Metrics(const std::string& version) : registry_(std::make_shared<prometheus::Registry>()) {
  auto& r = *registry_;
  admission_requests_ = &prometheus::BuildCounter()
                             .Name("rayjob_guard_admission_requests_total")
                             .Help("AdmissionReviews answered, by operation and verdict.")
                             .Register(r);
  violations_ =
      &prometheus::BuildCounter()
           .Name("rayjob_guard_admission_violations_total")
           .Help("Rule violations in answered reviews, by rule id and action (deny/warn).")
           .Register(r);
  // Reviews take tens of microseconds: buckets are fine-grained below 1 ms.
  latency_ = &prometheus::BuildHistogram()
                  .Name("rayjob_guard_admission_duration_seconds")
                  .Help("Time to decode, evaluate and encode one AdmissionReview.")
                  .Register(r)
                  .Add({}, prometheus::Histogram::BucketBoundaries{
                               0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                               0.05, 0.1, 0.25, 0.5, 1.0});
  http_requests_ = &prometheus::BuildCounter()
                        .Name("rayjob_guard_http_requests_total")
                        .Help("HTTP responses on the HTTPS admission port, by status code.")
                        .Register(r);
  in_flight_ = &prometheus::BuildGauge()
                    .Name("rayjob_guard_http_requests_in_flight")
                    .Help("Requests on the HTTPS port being read or answered.")
                    .Register(r)
                    .Add({});
  handshake_failures_ =
      &prometheus::BuildCounter()
           .Name("rayjob_guard_tls_handshake_failures_total")
           .Help("TLS handshakes that failed (protocol, cipher, ALPN, client cert).")
           .Register(r)
           .Add({});
  connections_rejected_ =
      &prometheus::BuildCounter()
           .Name("rayjob_guard_connections_rejected_total")
           .Help("Connections closed at once because the connection cap was hit.")
           .Register(r)
           .Add({});
  review_overloads_ =
      &prometheus::BuildCounter()
           .Name("rayjob_guard_review_overload_total")
           .Help("Large reviews answered 503 because their lane's queue was full.")
           .Register(r)
           .Add({});
  large_reviews_ = &prometheus::BuildGauge()
                        .Name("rayjob_guard_large_reviews")
                        .Help("Large reviews queued or running in their own lane.")
                        .Register(r)
                        .Add({});
  internal_errors_ = &prometheus::BuildCounter()
                          .Name("rayjob_guard_internal_errors_total")
                          .Help("Requests answered 500 because of an unexpected exception (a bug).")
                          .Register(r)
                          .Add({});
  policy_reloads_ = &prometheus::BuildCounter()
                         .Name("rayjob_guard_policy_reloads_total")
                         .Help("Policy file reloads after a change, by result.")
                         .Register(r);
  certificate_reloads_ = &prometheus::BuildCounter()
                              .Name("rayjob_guard_certificate_reloads_total")
                              .Help("Serving certificate reloads after a change, by result.")
                              .Register(r);
  certificate_expiry_ = &prometheus::BuildGauge()
                             .Name("rayjob_guard_certificate_expiry_timestamp_seconds")
                             .Help("notAfter of the serving certificate, Unix seconds.")
                             .Register(r)
                             .Add({});
  // Families without series until set_cluster_quota: absent when quota is the policy's.
  cluster_quota_synced_ = &prometheus::BuildGauge()
                               .Name("rayjob_guard_cluster_quota_synced")
                               .Help("1 once the cluster's ResourceQuotas were listed completely.")
                               .Register(r);
  cluster_quota_staleness_ =
      &prometheus::BuildGauge()
           .Name("rayjob_guard_cluster_quota_staleness_seconds")
           .Help("How far behind the cluster the ResourceQuotas used may be: 0 while the watch "
                 "is open, else seconds since they were last known current.")
           .Register(r);
  prometheus::BuildGauge()
      .Name("rayjob_guard_build_info")
      .Help("Always 1; the version label names the build.")
      .Register(r)
      .Add({{"version", version}})
      .Set(1);
  // Pre-create the common series so dashboards see zeros instead of absent series.
  for (const char* result : {"success", "failure"}) {
    policy_reloads_->Add({{"result", result}});
    certificate_reloads_->Add({{"result", result}});
  }
}

Metrics::~Metrics() = default;

prometheus::Counter* Metrics::violation_series(const std::string& rule, bool deny) {
  std::lock_guard lock(series_mu_);
  auto& by_rule = violations_by_rule_[deny ? 0 : 1];
  auto it = by_rule.find(rule);
  if (it == by_rule.end()) {
    auto* series = &violations_->Add({{"rule", rule}, {"action", deny ? "deny" : "warn"}});
    it = by_rule.emplace(rule, series).first;
  }
  return it->second;
}

void Metrics::record_review(const admission::ReviewSummary& summary,
                            std::chrono::nanoseconds latency) {
  const int op = operation_index(summary.operation);
  const std::size_t allowed = summary.allowed ? 1 : 0;
  prometheus::Counter* requests = nullptr;
  if (op >= 0) {
    std::lock_guard lock(series_mu_);
    auto& slot = requests_by_operation_[static_cast<std::size_t>(op)][allowed];
    if (slot == nullptr) {
      slot = &admission_requests_->Add(
          {{"operation", summary.operation}, {"allowed", summary.allowed ? "true" : "false"}});
    }
    requests = slot;
  } else {
    requests = &admission_requests_->Add(
        {{"operation", summary.operation}, {"allowed", summary.allowed ? "true" : "false"}});
  }
  requests->Increment();
  for (const auto& rule : summary.denied_rules) {
    violation_series(rule, true)->Increment();
  }
  for (const auto& rule : summary.warned_rules) {
    violation_series(rule, false)->Increment();
  }
  latency_->Observe(std::chrono::duration<double>(latency).count());
}

void Metrics::record_http(unsigned status) {
  if (status < kFirstStatus || status > kLastStatus) {
    http_requests_->Add({{"code", std::to_string(status)}}).Increment();
    return;
  }
  auto& slot = http_by_status_[status - kFirstStatus];
  prometheus::Counter* series = slot.load(std::memory_order_acquire);
  if (series == nullptr) {
    // Two threads may race here; Family::Add returns the same series to both.
    series = &http_requests_->Add({{"code", std::to_string(status)}});
    slot.store(series, std::memory_order_release);
  }
  series->Increment();
}
void Metrics::in_flight_add(double delta) { in_flight_->Increment(delta); }
void Metrics::tls_handshake_failed() { handshake_failures_->Increment(); }
void Metrics::connection_rejected() { connections_rejected_->Increment(); }
void Metrics::internal_error() { internal_errors_->Increment(); }
void Metrics::review_overloaded() { review_overloads_->Increment(); }
void Metrics::large_reviews_add(double delta) { large_reviews_->Increment(delta); }
void Metrics::policy_reload(const char* result) {
  policy_reloads_->Add({{"result", result}}).Increment();
}
void Metrics::certificate_reload(const char* result) {
  certificate_reloads_->Add({{"result", result}}).Increment();
}
void Metrics::set_certificate_expiry(double unix_seconds) {
  certificate_expiry_->Set(unix_seconds);
}
void Metrics::set_cluster_quota(bool synced, double staleness_seconds) {
  cluster_quota_synced_->Add({}).Set(synced ? 1 : 0);
  cluster_quota_staleness_->Add({}).Set(staleness_seconds);
}

std::string Metrics::render() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace rjg::server
