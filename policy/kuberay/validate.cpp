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
  switch (mode) {
    case LifecycleMode::kDeletionRules:
      // KubeRay 1.5's deletion rules match jobStatus only: a deployment that fails before the Ray
      // job ends (deadline passed while the head is pending, submission failed) matches no rule,
      // and the RayJob, its RayCluster and its pods hold quota forever. 1.6 added the
      // jobDeploymentStatus condition that closes it (measured: docs/lifecycle.md).
      if (!knows(Field::kDeletionStrategy, v) || !c.kuberay.ray_job_deletion_policy_gate) {
        return invalid_argument(
            k + ": deletionRules needs KubeRay 1.5 or later with the "
            "RayJobDeletionPolicy feature gate on (kuberay.version is " +
            vt + ", gate " + gate +
            "), and from 1.6 on to be leak-free; use reaper (any version), or deletionRules with "
            "KubeRay 1.6 or later");
      }
      if (!runs(Op::kDeploymentCondition, v)) {
        return invalid_argument(
            k + ": deletionRules is refused on KubeRay 1.5: its deletion rules match "
            "jobStatus only, so a RayJob whose deployment fails before the Ray job ends "
            "(activeDeadlineSeconds passed while the head is pending, submission failed) is never "
            "deleted and holds its quota forever; on 1.5 use lifecycle.mode reaper (rayjob-guard "
            "reap deletes every terminal RayJob, failures after minFailedTTLSeconds) or "
            "operatorDeletesRayJob (operator env DELETE_RAYJOB_CR_AFTER_JOB_FINISHES=true), or "
            "upgrade to KubeRay 1.6 for deletionRules");
      }
      return {};
    case LifecycleMode::kDeletionPolicy:
      if (!knows(Field::kDeletionPolicy, v) || !c.kuberay.ray_job_deletion_policy_gate) {
        return invalid_argument(
            k + ": deletionPolicy needs KubeRay 1.3 or 1.4 with the "
            "RayJobDeletionPolicy feature gate on (kuberay.version is " +
            vt + ", gate " + gate +
            "); use reaper (any version), or deletionRules from KubeRay 1.6 (on 1.5 it leaks "
            "pre-start failures)");
      }
      return {};
    case LifecycleMode::kOperatorDeletesRayJob:
      if (!does(Behavior::kDeletesRayJobAfterFinish, v)) {
        return invalid_argument(
            k + ": operatorDeletesRayJob needs KubeRay 1.2 or later (kuberay.version "
            "is " +
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
