// Table tests for policy::decide_reap: every status combination, the TTL boundaries, clamping
// into the lifecycle bounds, missing/invalid annotations, running and terminating RayJobs.
#include "policy/reap_decision.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace rjg::policy {
namespace {

constexpr std::int64_t kNow = 1'800'000'000;

LifecycleConfig bounds() {
  LifecycleConfig lc;
  lc.mode = LifecycleMode::kReaper;
  lc.max_succeeded_ttl_seconds = 600;
  lc.min_failed_ttl_seconds = 3600;
  lc.max_failed_ttl_seconds = 86400;
  return lc;
}

struct Case {
  std::string label;
  std::optional<std::string> job_status;
  std::optional<std::string> deployment_status;
  std::optional<std::int64_t> age;  // endTime = kNow - age; nullopt = no endTime
  std::optional<std::string> success_ttl;
  std::optional<std::string> failure_ttl;
  bool being_deleted = false;
  ReapAction want_action;
  ReapOutcome want_outcome;
  TtlSource want_source;
  std::int64_t want_ttl;
};

ReapCandidate make(const Case& c) {
  ReapCandidate rc;
  rc.namespace_ = "tenant-a";
  rc.name = "rj";
  rc.uid = "u-1";
  rc.job_status = c.job_status;
  rc.job_deployment_status = c.deployment_status;
  if (c.age) {
    rc.end_time = kNow - *c.age;
  }
  if (c.success_ttl) {
    rc.annotations[std::string(kTtlAfterSuccessKey)] = *c.success_ttl;
  }
  if (c.failure_ttl) {
    rc.annotations[std::string(kTtlAfterFailureKey)] = *c.failure_ttl;
  }
  rc.being_deleted = c.being_deleted;
  return rc;
}

using A = ReapAction;
using O = ReapOutcome;
using S = TtlSource;
const std::optional<std::string> kNo;

const std::vector<Case> kCases = {
    // Not terminal: never deleted, however old.
    {"running", "RUNNING", "Running", 999999, "1", "3600", false, A::kKeep, O::kNone, S::kNone, 0},
    {"pending", "PENDING", "Initializing", std::nullopt, "1", "3600", false, A::kKeep, O::kNone,
     S::kNone, 0},
    {"no status", kNo, kNo, std::nullopt, kNo, kNo, false, A::kKeep, O::kNone, S::kNone, 0},
    {"stopped, suspended", "STOPPED", "Suspended", 999999, "1", "3600", false, A::kKeep, O::kNone,
     S::kNone, 0},
    {"validation failed", kNo, "ValidationFailed", 999999, kNo, kNo, false, A::kKeep, O::kNone,
     S::kNone, 0},
    {"running, being deleted", "RUNNING", "Running", 0, kNo, kNo, true, A::kSkip, O::kNone,
     S::kNone, 0},
    // Each terminal combination.
    {"succeeded/complete due", "SUCCEEDED", "Complete", 60, "30", "3600", false, A::kDelete,
     O::kSucceeded, S::kAnnotation, 30},
    {"succeeded/running due", "SUCCEEDED", "Running", 60, "30", "3600", false, A::kDelete,
     O::kSucceeded, S::kAnnotation, 30},
    {"deployment complete only", kNo, "Complete", 60, "30", "3600", false, A::kDelete,
     O::kSucceeded, S::kAnnotation, 30},
    {"failed/failed due", "FAILED", "Failed", 4000, "30", "3600", false, A::kDelete, O::kFailed,
     S::kAnnotation, 3600},
    {"failed/complete is failure", "FAILED", "Complete", 100, "30", "3600", false, A::kKeep,
     O::kFailed, S::kAnnotation, 3600},
    {"deployment failed before start", kNo, "Failed", 3600, "30", "3600", false, A::kDelete,
     O::kFailed, S::kAnnotation, 3600},
    {"stopped but deployment failed", "STOPPED", "Failed", 10, "30", "3600", false, A::kKeep,
     O::kFailed, S::kAnnotation, 3600},
    // Boundaries: exactly TTL deletes, one second less keeps, future endTime keeps.
    {"success at ttl", "SUCCEEDED", "Complete", 30, "30", "3600", false, A::kDelete, O::kSucceeded,
     S::kAnnotation, 30},
    {"success at ttl-1", "SUCCEEDED", "Complete", 29, "30", "3600", false, A::kKeep, O::kSucceeded,
     S::kAnnotation, 30},
    {"failure at ttl", "FAILED", "Failed", 7200, "30", "7200", false, A::kDelete, O::kFailed,
     S::kAnnotation, 7200},
    {"failure at ttl-1", "FAILED", "Failed", 7199, "30", "7200", false, A::kKeep, O::kFailed,
     S::kAnnotation, 7200},
    {"endTime in the future", "SUCCEEDED", "Complete", -50, "0", kNo, false, A::kKeep,
     O::kSucceeded, S::kAnnotation, 0},
    {"success ttl 0 at endTime", "SUCCEEDED", "Complete", 0, "0", kNo, false, A::kDelete,
     O::kSucceeded, S::kAnnotation, 0},
    // Clamping into the policy bounds.
    {"success above max", "SUCCEEDED", "Complete", 700, "100000", kNo, false, A::kDelete,
     O::kSucceeded, S::kClamped, 600},
    {"success above max, young", "SUCCEEDED", "Complete", 599, "100000", kNo, false, A::kKeep,
     O::kSucceeded, S::kClamped, 600},
    {"failure below min", "FAILED", "Failed", 3599, kNo, "5", false, A::kKeep, O::kFailed,
     S::kClamped, 3600},
    {"failure below min, due", "FAILED", "Failed", 3600, kNo, "5", false, A::kDelete, O::kFailed,
     S::kClamped, 3600},
    {"failure above max", "FAILED", "Failed", 86400, kNo, "999999", false, A::kDelete, O::kFailed,
     S::kClamped, 86400},
    // Missing or invalid annotations: the upper bound.
    {"success missing", "SUCCEEDED", "Complete", 599, kNo, kNo, false, A::kKeep, O::kSucceeded,
     S::kMissing, 600},
    {"success missing, due", "SUCCEEDED", "Complete", 600, kNo, kNo, false, A::kDelete,
     O::kSucceeded, S::kMissing, 600},
    {"failure missing", "FAILED", "Failed", 86399, "30", kNo, false, A::kKeep, O::kFailed,
     S::kMissing, 86400},
    {"success invalid unit", "SUCCEEDED", "Complete", 600, "30s", kNo, false, A::kDelete,
     O::kSucceeded, S::kInvalid, 600},
    {"success invalid negative", "SUCCEEDED", "Complete", 100, "-1", kNo, false, A::kKeep,
     O::kSucceeded, S::kInvalid, 600},
    {"failure invalid empty", "FAILED", "Failed", 100, kNo, "", false, A::kKeep, O::kFailed,
     S::kInvalid, 86400},
    {"failure invalid huge", "FAILED", "Failed", 100, kNo, "99999999999999999999", false, A::kKeep,
     O::kFailed, S::kInvalid, 86400},
    {"failure invalid space", "FAILED", "Failed", 100, kNo, " 4000", false, A::kKeep, O::kFailed,
     S::kInvalid, 86400},
    // Skips.
    {"terminal without endTime", "SUCCEEDED", "Complete", std::nullopt, "0", kNo, false, A::kSkip,
     O::kSucceeded, S::kNone, 0},
    {"failed without endTime", "FAILED", "Failed", std::nullopt, kNo, "3600", false, A::kSkip,
     O::kFailed, S::kNone, 0},
    {"terminal and being deleted", "SUCCEEDED", "Complete", 99999, "0", kNo, true, A::kSkip,
     O::kNone, S::kNone, 0},
};

TEST(ReapDecision, Table) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.label);
    const ReapDecision d = decide_reap(make(c), bounds(), kNow);
    EXPECT_EQ(reap_action_name(d.action), std::string(reap_action_name(c.want_action)));
    EXPECT_EQ(reap_outcome_name(d.outcome), std::string(reap_outcome_name(c.want_outcome)));
    EXPECT_EQ(ttl_source_name(d.ttl_source), std::string(ttl_source_name(c.want_source)));
    if (c.want_source != TtlSource::kNone) {
      EXPECT_EQ(d.ttl_seconds, c.want_ttl);
      ASSERT_TRUE(c.age.has_value());
      EXPECT_EQ(d.age_seconds, *c.age);
    }
    EXPECT_FALSE(d.reason.empty());
  }
}

TEST(ReapDecision, ReasonSaysWhichBoundWasUsed) {
  Case missing{"", "FAILED", "Failed", 10, kNo, kNo, false, A::kKeep, O::kFailed, S::kMissing, 0};
  EXPECT_NE(
      decide_reap(make(missing), bounds(), kNow)
          .reason.find("ttl-after-failure annotation missing; used maxFailedTTLSeconds 86400"),
      std::string::npos);
  Case low{"", "FAILED", "Failed", 10, kNo, "8", false, A::kKeep, O::kFailed, S::kClamped, 0};
  EXPECT_NE(decide_reap(make(low), bounds(), kNow).reason.find("below minFailedTTLSeconds 3600"),
            std::string::npos);
  Case bad{"",    "SUCCEEDED", "Complete",    10,          "1h", kNo,
           false, A::kKeep,    O::kSucceeded, S::kInvalid, 0};
  EXPECT_NE(
      decide_reap(make(bad), bounds(), kNow)
          .reason.find("\"1h\" is not a whole number of seconds; used maxSucceededTTLSeconds"),
      std::string::npos);
  Case no_end{"",    "SUCCEEDED", "Complete",    std::nullopt, kNo, kNo,
              false, A::kSkip,    O::kSucceeded, S::kNone,     0};
  EXPECT_NE(decide_reap(make(no_end), bounds(), kNow).reason.find("endTime is absent"),
            std::string::npos);
}

TEST(ReapDecision, BoundsComeFromThePolicy) {
  LifecycleConfig lc = bounds();
  lc.max_succeeded_ttl_seconds = 3;
  lc.min_failed_ttl_seconds = 8;
  lc.max_failed_ttl_seconds = 20;
  Case s{"",    "SUCCEEDED", "Complete",    3,           kNo, kNo,
         false, A::kDelete,  O::kSucceeded, S::kMissing, 3};
  const ReapDecision ds = decide_reap(make(s), lc, kNow);
  EXPECT_EQ(ds.action, ReapAction::kDelete);
  EXPECT_EQ(ds.ttl_seconds, 3);
  Case f{"", "FAILED", "Failed", 7, kNo, "2", false, A::kKeep, O::kFailed, S::kClamped, 8};
  const ReapDecision df = decide_reap(make(f), lc, kNow);
  EXPECT_EQ(df.action, ReapAction::kKeep);
  EXPECT_EQ(df.ttl_seconds, 8);
}

}  // namespace
}  // namespace rjg::policy
