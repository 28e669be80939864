// The policy's own checks against the catalogue (see validate.hpp).
#include "policy/kuberay/validate.hpp"

#include <string>
#include <string_view>

#include "policy/kuberay/catalogue.hpp"

namespace rjg::policy::kuberay {
namespace {

// The lifecycle mode `mode` (the policy's `key`) must be one the pinned operator version can
// actually carry out.
Status check_mode(const PolicyConfig& c, LifecycleMode mode, std::string_view key) {
  const KubeRayVersion v = c.kuberay.version;
  const std::string vt = version_text(v);
  const std::string gate = c.kuberay.ray_job_deletion_policy_gate ? "on" : "off";
  const std::string k(key);
  // Where each mode works, from the catalogue: the field (and gate) it needs, and for
  // deletionRules the condition on jobDeploymentStatus that makes it leak-free.
  const std::string rules = span_text(field_row(Field::kDeletionStrategy).span);
  const std::string leak_free = span_text(span_of(Op::kDeploymentCondition));
  const std::string leak_free_from = version_text({1, span_of(Op::kDeploymentCondition).from});
  switch (mode) {
    case LifecycleMode::kDeletionRules:
      // KubeRay 1.5's deletion rules match jobStatus only: a deployment that fails before the Ray
      // job ends (deadline passed while the head is pending, submission failed) matches no rule,
      // and the RayJob, its RayCluster and its pods hold quota forever. 1.6 added the
      // jobDeploymentStatus condition that closes it (measured: docs/lifecycle.md).
      if (!knows(Field::kDeletionStrategy, v) || !c.kuberay.ray_job_deletion_policy_gate) {
        return invalid_argument(
            k + ": deletionRules needs KubeRay " + rules + " with the "
            "RayJobDeletionPolicy feature gate on (kuberay.version is " +
            vt + ", gate " + gate + "), and from " + leak_free_from +
            " on to be leak-free; use reaper (any version), or deletionRules with KubeRay " +
            leak_free);
      }
      if (!runs(Op::kDeploymentCondition, v)) {
        return invalid_argument(
            k + ": deletionRules is refused on KubeRay " + vt + ": its deletion rules match "
            "jobStatus only, so a RayJob whose deployment fails before the Ray job ends "
            "(activeDeadlineSeconds passed while the head is pending, submission failed) is never "
            "deleted and holds its quota forever; on " + vt + " use lifecycle.mode reaper "
            "(rayjob-guard reap deletes every terminal RayJob, failures after "
            "minFailedTTLSeconds) or operatorDeletesRayJob (operator env "
            "DELETE_RAYJOB_CR_AFTER_JOB_FINISHES=true), or upgrade to KubeRay " + leak_free_from +
            " for deletionRules");
      }
      return {};
    case LifecycleMode::kDeletionPolicy:
      if (!knows(Field::kDeletionPolicy, v) || !c.kuberay.ray_job_deletion_policy_gate) {
        const Span leaking{field_row(Field::kDeletionStrategy).span.from,
                           span_of(Op::kDeploymentCondition).from - 1};
        return invalid_argument(
            k + ": deletionPolicy needs KubeRay " + span_text(field_row(Field::kDeletionPolicy).span) +
            " with the RayJobDeletionPolicy feature gate on (kuberay.version is " + vt +
            ", gate " + gate + "); use reaper (any version), or deletionRules from KubeRay " +
            leak_free_from + " (on " + span_text(leaking) + " it leaks pre-start failures)");
      }
      return {};
    case LifecycleMode::kOperatorDeletesRayJob:
      if (!does(Behavior::kDeletesRayJobAfterFinish, v)) {
        return invalid_argument(
            k + ": operatorDeletesRayJob needs KubeRay " +
            span_text(span_of(Behavior::kDeletesRayJobAfterFinish)) + " (kuberay.version is " +
            vt + "); use reaper");
      }
      return {};
    case LifecycleMode::kReaper:
      return {};
  }
  return {};
}

}  // namespace

Status validate(const PolicyConfig& c) {
  RJG_RETURN_IF_ERROR(check_mode(c, c.lifecycle.mode, "lifecycle.mode"));
  return check_mode(c, c.kueue.lifecycle_mode, "kueue.lifecycleMode");
}

}  // namespace rjg::policy::kuberay
