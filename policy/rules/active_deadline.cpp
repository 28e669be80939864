// active-deadline: spec.activeDeadlineSeconds is set and at most the policy maximum, so a hung
// run ends (JobDeploymentStatus Failed, reason DeadlineExceeded) instead of holding quota forever.
// A value <= 0 is kuberay-schema's (the operator rejects it), so it is not reported twice.
#include <string>

#include "policy/rules/rules.hpp"

namespace rjg::policy {

void check_active_deadline(const RuleContext& ctx, Findings& out) {
  const auto& deadline = ctx.job.spec.active_deadline_seconds;
  const long long max = ctx.policy.lifecycle.max_active_deadline_seconds;
  const std::string field = "spec.activeDeadlineSeconds";

  // KubeRay 1.0 has no run deadline at all: demanding the field would refuse every RayJob for
  // something no tenant can fix (kuberay-schema reports the field as unknown if it is set), so the
  // gap is only made visible.
  if (ctx.policy.kuberay.version < KubeRayVersion{1, 1}) {
    out.push_back(Finding{RuleId::kActiveDeadline, Finding::Kind::kAdvisory, field,
                          "KubeRay 1.0 has no activeDeadlineSeconds, so a hung run holds its quota "
                          "until someone deletes the RayJob; watch long runs, or upgrade the "
                          "operator to 1.1 or later",
                          {}});
    return;
  }
  if (!deadline) {
    out.push_back(Finding{RuleId::kActiveDeadline, Finding::Kind::kViolation, field,
                          "not set, so a hung run holds its quota forever; set "
                          "activeDeadlineSeconds to the longest the job may run, at most " +
                              std::to_string(max) + " seconds",
                          {Edit::set(field, max)}});
    return;
  }
  if (*deadline > max) {
    out.push_back(Finding{RuleId::kActiveDeadline, Finding::Kind::kViolation, field,
                          std::to_string(*deadline) + " exceeds the policy maximum of " +
                              std::to_string(max) + " seconds; set activeDeadlineSeconds to " +
                              std::to_string(max) + " or less",
                          {Edit::set(field, max)}});
  }
}

}  // namespace rjg::policy
