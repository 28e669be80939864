// decide_reap: the reaper's pure decision for one RayJob. Given what the apiserver says about a
// RayJob, the policy's lifecycle bounds and the current time, it answers delete, keep or skip,
// with the reason and the figures behind it. No clock, no I/O: `now` is an argument, so the
// decision is table-tested and the same input always gives the same answer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/flat_map.hpp"
#include "policy/policy_config.hpp"
#include "policy/reaper_annotations.hpp"  // kTtlAfterSuccessKey, kTtlAfterFailureKey

namespace rjg::policy {

// What the reaper knows about one listed RayJob. Filled by admission::decode_rayjob_list.
struct ReapCandidate {
  std::string namespace_;
  std::string name;
  std::string uid;
  FlatMap<std::string> annotations;  // only those under kAnnotationPrefix
  std::optional<std::string> job_status;  // status.jobStatus (SUCCEEDED, FAILED, RUNNING...)
  std::optional<std::string>
      job_deployment_status;             // status.jobDeploymentStatus (Complete, Failed...)
  std::optional<std::int64_t> end_time;  // status.endTime, seconds since the epoch
  bool being_deleted = false;            // metadata.deletionTimestamp is set
  std::optional<std::string> message;    // status.message, for the deletion log
};

enum class ReapAction {
  kDelete,  // terminal and older than its TTL: delete it now
  kKeep,    // not yet due (running, or terminal but younger than its TTL)
  kSkip,    // cannot or must not be decided: already terminating, terminal without endTime
};

// Which terminal outcome the TTL was chosen for.
enum class ReapOutcome {
  kNone,       // not terminal
  kSucceeded,  // jobStatus SUCCEEDED or jobDeploymentStatus Complete
  kFailed,     // jobStatus FAILED or jobDeploymentStatus Failed
};

// Where the TTL in effect came from.
enum class TtlSource {
  kNone,        // no TTL was needed (not terminal, or skipped before)
  kAnnotation,  // the annotation, within the policy bounds
  kClamped,     // the annotation, clamped into the policy bounds
  kMissing,     // no annotation: the policy's upper bound
  kInvalid,     // an annotation that is not a whole number of seconds >= 0: the upper bound
};

struct ReapDecision {
  ReapAction action = ReapAction::kKeep;
  ReapOutcome outcome = ReapOutcome::kNone;
  TtlSource ttl_source = TtlSource::kNone;
  std::int64_t ttl_seconds = 0;  // the TTL in effect; meaningful when ttl_source != kNone
  std::int64_t age_seconds = 0;  // now - endTime; meaningful when end_time is known
  // One sentence for the log: why this action, including how the TTL was chosen
  // (e.g. "ttl-after-failure annotation \"30\" below minFailedTTLSeconds 3600; used 3600").
  std::string reason;
};

// The terminal outcome `candidate` reports: kFailed for jobStatus FAILED or jobDeploymentStatus
// Failed (a failure anywhere wins), kSucceeded for SUCCEEDED or Complete, else kNone.
ReapOutcome outcome_of(const ReapCandidate& candidate);

// Decides what to do with `candidate` at time `now` (seconds since the epoch).
// Rules, in order:
//   - deletionTimestamp set -> kSkip (the apiserver is already removing it).
//   - not terminal -> kKeep. Terminal means jobStatus SUCCEEDED/FAILED or jobDeploymentStatus
//     Complete/Failed; a FAILED jobStatus or a Failed deployment makes the outcome a failure.
//   - terminal without endTime -> kSkip (its age is unknown; never guessed).
//   - TTL, from the annotations kTtlAfterSuccessKey / kTtlAfterFailureKey read with
//     parse_ttl_annotation (the same reading as the reap-self and reap-ttl rules): success ->
//     annotation clamped to <= maxSucceededTTLSeconds; failure -> clamped into
//     [minFailedTTLSeconds, maxFailedTTLSeconds]; a missing or invalid annotation -> the upper
//     bound.
//   - age = now - endTime; kDelete when age >= TTL, else kKeep. An endTime in the future gives a
//     negative age, which is kept.
// Never fails; every input has an answer.
ReapDecision decide_reap(const ReapCandidate& candidate, const LifecycleConfig& lifecycle,
                         std::int64_t now);

// Stable lower-case names for logs: "delete"/"keep"/"skip", "none"/"succeeded"/"failed",
// "none"/"annotation"/"clamped"/"missing"/"invalid".
const char* reap_action_name(ReapAction action);
const char* reap_outcome_name(ReapOutcome outcome);
const char* ttl_source_name(TtlSource source);

}  // namespace rjg::policy
