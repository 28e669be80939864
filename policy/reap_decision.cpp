// A RayJob is reaped once it has been terminal for longer than its TTL, and the TTL always lies
// within the policy's lifecycle bounds, whatever the annotation says.
#include "policy/reap_decision.hpp"

#include <string_view>

namespace rjg::policy {
namespace {

bool is(const std::optional<std::string>& field, std::string_view want) {
  return field.has_value() && *field == want;
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  out.append(s);
  out.push_back('"');
  return out;
}

// Chooses the TTL for `outcome` and fills ttl_seconds, ttl_source and the TTL part of reason.
void choose_ttl(const ReapCandidate& c, ReapOutcome outcome, const LifecycleConfig& lc,
                ReapDecision& d) {
  const bool success = outcome == ReapOutcome::kSucceeded;
  const std::string key(success ? kTtlAfterSuccessKey : kTtlAfterFailureKey);
  const std::string short_key = success ? "ttl-after-success" : "ttl-after-failure";
  const std::int64_t lower = success ? 0 : lc.min_failed_ttl_seconds;
  const std::int64_t upper = success ? lc.max_succeeded_ttl_seconds : lc.max_failed_ttl_seconds;
  const std::string lower_name = "minFailedTTLSeconds";
  const std::string upper_name = success ? "maxSucceededTTLSeconds" : "maxFailedTTLSeconds";

  const auto it = c.annotations.find(key);
  if (it == c.annotations.end()) {
    d.ttl_source = TtlSource::kMissing;
    d.ttl_seconds = upper;
    d.reason = short_key + " annotation missing; used " + upper_name + " " + std::to_string(upper);
    return;
  }
  const std::optional<std::int64_t> parsed = parse_ttl_annotation(it->second);
  if (!parsed) {
    d.ttl_source = TtlSource::kInvalid;
    d.ttl_seconds = upper;
    d.reason = short_key + " annotation " + quoted(it->second) +
               " is not a whole number of seconds; used " + upper_name + " " +
               std::to_string(upper);
    return;
  }
  if (*parsed > upper) {
    d.ttl_source = TtlSource::kClamped;
    d.ttl_seconds = upper;
    d.reason = short_key + " annotation " + quoted(it->second) + " above " + upper_name + " " +
               std::to_string(upper) + "; used " + std::to_string(upper);
    return;
  }
  if (*parsed < lower) {
    d.ttl_source = TtlSource::kClamped;
    d.ttl_seconds = lower;
    d.reason = short_key + " annotation " + quoted(it->second) + " below " + lower_name + " " +
               std::to_string(lower) + "; used " + std::to_string(lower);
    return;
  }
  d.ttl_source = TtlSource::kAnnotation;
  d.ttl_seconds = *parsed;
  d.reason = short_key + " annotation " + std::to_string(*parsed);
}

}  // namespace

ReapOutcome outcome_of(const ReapCandidate& c) {
  // A failure anywhere wins: the failed TTL is the longer one, which keeps diagnostics around.
  if (is(c.job_status, "FAILED") || is(c.job_deployment_status, "Failed")) {
    return ReapOutcome::kFailed;
  }
  if (is(c.job_status, "SUCCEEDED") || is(c.job_deployment_status, "Complete")) {
    return ReapOutcome::kSucceeded;
  }
  return ReapOutcome::kNone;
}

ReapDecision decide_reap(const ReapCandidate& candidate, const LifecycleConfig& lifecycle,
                         std::int64_t now) {
  ReapDecision d;
  if (candidate.being_deleted) {
    d.action = ReapAction::kSkip;
    d.reason = "already being deleted (deletionTimestamp set)";
    return d;
  }
  d.outcome = outcome_of(candidate);
  if (d.outcome == ReapOutcome::kNone) {
    d.action = ReapAction::kKeep;
    d.reason = "not finished (jobStatus " + candidate.job_status.value_or("<none>") +
               ", jobDeploymentStatus " + candidate.job_deployment_status.value_or("<none>") + ")";
    return d;
  }
  if (!candidate.end_time) {
    d.action = ReapAction::kSkip;
    d.reason = std::string("finished (") + reap_outcome_name(d.outcome) +
               ") but status.endTime is absent, so its age is unknown; not deleting";
    return d;
  }
  choose_ttl(candidate, d.outcome, lifecycle, d);
  d.age_seconds = now - *candidate.end_time;
  if (d.age_seconds >= d.ttl_seconds) {
    d.action = ReapAction::kDelete;
    d.reason = std::string(reap_outcome_name(d.outcome)) + " " + std::to_string(d.age_seconds) +
               "s ago, ttl " + std::to_string(d.ttl_seconds) + "s passed (" + d.reason + ")";
  } else {
    d.action = ReapAction::kKeep;
    d.reason = std::string(reap_outcome_name(d.outcome)) + " " + std::to_string(d.age_seconds) +
               "s ago, ttl " + std::to_string(d.ttl_seconds) + "s not reached (" + d.reason + ")";
  }
  return d;
}

const char* reap_action_name(ReapAction action) {
  switch (action) {
    case ReapAction::kDelete:
      return "delete";
    case ReapAction::kKeep:
      return "keep";
    case ReapAction::kSkip:
      return "skip";
  }
  return "skip";
}

const char* reap_outcome_name(ReapOutcome outcome) {
  switch (outcome) {
    case ReapOutcome::kNone:
      return "none";
    case ReapOutcome::kSucceeded:
      return "succeeded";
    case ReapOutcome::kFailed:
      return "failed";
  }
  return "none";
}

const char* ttl_source_name(TtlSource source) {
  switch (source) {
    case TtlSource::kNone:
      return "none";
    case TtlSource::kAnnotation:
      return "annotation";
    case TtlSource::kClamped:
      return "clamped";
    case TtlSource::kMissing:
      return "missing";
    case TtlSource::kInvalid:
      return "invalid";
  }
  return "none";
}

}  // namespace rjg::policy
