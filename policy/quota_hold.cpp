// A stored RayJob holds quota for nothing when it is refused forever, overdue, or finished with
// nothing set to delete it. The checks mirror docs/lifecycle.md's measured table and the
// operator's deletion semantics (the operator acts only on Complete/Failed; clusterSelector mode
// deletes nothing; 1.5 rules match only jobStatus).
#include "policy/quota_hold.hpp"

#include <string_view>

#include "policy/kueue.hpp"

namespace rjg::policy {
namespace {

bool is(const std::optional<std::string>& field, std::string_view want) {
  return field.has_value() && *field == want;
}

std::string duration(std::int64_t seconds) {
  if (seconds % 3600 == 0 && seconds >= 3600) {
    return std::to_string(seconds / 3600) + "h";
  }
  if (seconds % 60 == 0 && seconds >= 60) {
    return std::to_string(seconds / 60) + "m";
  }
  return std::to_string(seconds) + "s";
}

bool has_deployment_failed_rule(const DeletionStrategy& strategy) {
  for (const DeletionRule& rule : *strategy.deletion_rules) {
    if (rule.job_deployment_status.has_value()) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<QuotaHold> decide_quota_hold(const RayJob& job, const ReapCandidate& status,
                                           const PolicyConfig& policy, std::int64_t now,
                                           std::int64_t grace_seconds) {
  const LifecycleConfig& lifecycle = policy.lifecycle;
  const LifecycleMode mode = lifecycle_mode_of(job, policy);
  if (status.being_deleted) {
    return std::nullopt;
  }
  if (is(status.job_deployment_status, "ValidationFailed")) {
    return QuotaHold{HoldKind::kValidationFailed,
                     "the KubeRay operator refused this RayJob (" +
                         status.message.value_or("no status.message") +
                         "); it never runs and is never deleted; delete it and resubmit it "
                         "fixed (rayjob-guard check shows what the operator refuses)"};
  }
  const ReapOutcome outcome = outcome_of(status);
  if (outcome == ReapOutcome::kNone) {
    return std::nullopt;
  }
  const bool success = outcome == ReapOutcome::kSucceeded;
  if (status.end_time) {
    const std::int64_t bound =
        success ? lifecycle.max_succeeded_ttl_seconds : lifecycle.max_failed_ttl_seconds;
    const std::int64_t age = now - *status.end_time;
    if (age > bound + grace_seconds) {
      return QuotaHold{
          HoldKind::kPastTtl,
          std::string(success ? "succeeded" : "failed") + " " + duration(age) +
              " ago, past the policy's " +
              (success ? "maxSucceededTTLSeconds " : "maxFailedTTLSeconds ") +
              std::to_string(bound) + " plus " + duration(grace_seconds) +
              " of grace; nothing deleted it: check the lifecycle mode's deleter (the operator's "
              "deletion rules, or the reaper CronJob), then delete this RayJob"};
    }
  }
  if (mode == LifecycleMode::kReaper) {
    return std::nullopt;  // the reaper deletes every terminal RayJob once its TTL has passed
  }
  const RayJobSpec& spec = job.spec;
  if (spec.cluster_selector.has_value()) {
    return QuotaHold{HoldKind::kExistingCluster,
                     "finished on an existing cluster (spec.clusterSelector), where the operator "
                     "deletes nothing at job end; delete this RayJob, and run such jobs with a "
                     "rayClusterSpec of their own"};
  }
  const std::optional<DeletionStrategy>& strategy = spec.deletion_strategy;
  if (is(status.job_deployment_status, "Failed") && status.job_status.value_or("").empty() &&
      strategy && strategy->deletion_rules && !has_deployment_failed_rule(*strategy)) {
    return QuotaHold{
        HoldKind::kDeploymentFailedUnmatched,
        "failed before its job started (jobDeploymentStatus Failed, no jobStatus), and no "
        "deletion rule matches that: rules on jobStatus never fire; delete this RayJob, and add "
        "a {jobDeploymentStatus: Failed} DeleteSelf rule (KubeRay 1.6+) or use the reaper"};
  }
  const bool operator_deletes = mode == LifecycleMode::kOperatorDeletesRayJob &&
                                spec.shutdown_after_job_finishes.value_or(false);
  if (!strategy && !spec.deletion_policy && !operator_deletes) {
    return QuotaHold{HoldKind::kNoDeletion,
                     std::string(success ? "succeeded" : "failed") +
                         ", and nothing is set to delete it (no deletionStrategy, no "
                         "deletionPolicy" +
                         (mode == LifecycleMode::kOperatorDeletesRayJob
                              ? ", no shutdownAfterJobFinishes"
                              : "") +
                         "); delete this RayJob, and resubmit with the deletion the policy's "
                         "reap-self rule asks for"};
  }
  return std::nullopt;
}

const char* hold_kind_id(HoldKind kind) {
  switch (kind) {
    case HoldKind::kValidationFailed:
      return "validation-failed";
    case HoldKind::kPastTtl:
      return "past-ttl";
    case HoldKind::kExistingCluster:
      return "existing-cluster";
    case HoldKind::kDeploymentFailedUnmatched:
      return "deployment-failed-unmatched";
    case HoldKind::kNoDeletion:
      return "no-deletion";
  }
  return "no-deletion";
}

}  // namespace rjg::policy
