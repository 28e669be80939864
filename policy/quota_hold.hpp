// decide_quota_hold: the audit's pure judgement of whether one stored RayJob holds quota that
// nothing is going to free. Given the RayJob as stored (its spec through the policy model, its
// status as the reaper reads it), the policy's lifecycle, the time and a grace period, it answers
// with at most one hold: why, and what to do. No clock, no I/O: `now` is an argument.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "policy/policy_config.hpp"
#include "policy/rayjob.hpp"
#include "policy/reap_decision.hpp"

namespace rjg::policy {

// The closed set of reasons a RayJob holds quota for nothing. Each id names the audit result's
// `rule`, its tests and docs/commands.md's table.
enum class HoldKind {
  kValidationFailed,           // "validation-failed": the operator refused it; it stays forever
  kPastTtl,                    // "past-ttl": terminal, and older than the policy's bound + grace
  kExistingCluster,            // "existing-cluster": terminal on an existing cluster; the
                               //   operator deletes nothing in that mode
  kDeploymentFailedUnmatched,  // "deployment-failed-unmatched": failed before the job started,
                               //   and no deletion rule matches jobDeploymentStatus Failed
  kNoDeletion,                 // "no-deletion": terminal, and nothing is set to delete it
};

struct QuotaHold {
  HoldKind kind = HoldKind::kNoDeletion;
  // "what holds; what to do", like a finding's message. Names figures (age, bound), no uid.
  std::string message;
};

// The hold of `job` (its spec) with `status` (its status and metadata as listed) under the
// policy's lifecycle bounds and the mode `job` is judged by (lifecycle.mode, or
// kueue.lifecycleMode for a Kueue RayJob), at `now` (seconds since the epoch), or nullopt when
// nothing is held for nothing.
// The first that applies, in HoldKind order:
//   - being deleted: nullopt (the apiserver is removing it);
//   - status.jobDeploymentStatus ValidationFailed: kValidationFailed;
//   - terminal (outcome_of) with endTime, and now - endTime > bound + grace_seconds, where the
//     bound is maxSucceededTTLSeconds for a success and maxFailedTTLSeconds for a failure:
//     kPastTtl (whatever mode: the policy promises it is gone by then);
//   - terminal, the mode not reaper (the reaper frees every terminal RayJob), and:
//     spec.clusterSelector set: kExistingCluster;
//     jobDeploymentStatus Failed without a jobStatus, deletionRules set and none of them with a
//     jobDeploymentStatus condition: kDeploymentFailedUnmatched;
//     no deletionStrategy, no deletionPolicy, and not (shutdownAfterJobFinishes with mode
//     operatorDeletesRayJob): kNoDeletion;
//   - otherwise nullopt (running, or terminal and something is set to free it in time).
// Never fails.
std::optional<QuotaHold> decide_quota_hold(const RayJob& job, const ReapCandidate& status,
                                           const PolicyConfig& policy, std::int64_t now,
                                           std::int64_t grace_seconds);

// The kebab-case id of `kind`: "validation-failed", "past-ttl", ...
const char* hold_kind_id(HoldKind kind);

}  // namespace rjg::policy
