// active-deadline: spec.activeDeadlineSeconds is set and at most the policy maximum, so a hung
// run ends (JobDeploymentStatus Failed, reason DeadlineExceeded) instead of holding quota forever;
// and an InteractiveMode RayJob, whose wait for spec.jobId activeDeadlineSeconds does not bound,
// sets preRunningDeadlineSeconds within the policy maximum (KubeRay 1.6+) or is refused (1.3-1.5).
// A value <= 0 is kuberay-schema's (the operator rejects it), so it is not reported twice.
#include <string>
#include <string_view>

#include "policy/kuberay/catalogue.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

// The finding for `spec.<key>` at `value`, above the policy maximum `max` (`context` follows the
// maximum in the message); its fix sets the maximum.
Finding over_maximum(std::string_view key, long long value, long long max, std::string_view context) {
  const std::string field = "spec." + std::string(key);
  return Finding{RuleId::kActiveDeadline, Finding::Kind::kViolation, field,
                 std::to_string(value) + " exceeds the policy maximum of " + std::to_string(max) +
                     " seconds" + std::string(context) + "; set " + std::string(key) + " to " +
                     std::to_string(max) + " or less",
                 {Edit::set(field, max)}};
}

// InteractiveMode waits in Waiting, with its RayCluster up, until someone sets spec.jobId. The
// operator checks activeDeadlineSeconds only in Initializing and Running, so that wait is bounded
// by preRunningDeadlineSeconds (1.6+, checked in Initializing and Waiting) or by nothing (1.3-1.5).
void check_interactive(const RuleContext& ctx, Findings& out) {
  const RayJobSpec& spec = ctx.job.spec;
  // Before 1.3 the mode does not exist, and submission-mode refuses it.
  if (spec.submission_mode != "InteractiveMode" ||
      !kuberay::knows_submission_mode("InteractiveMode", ctx.policy.kuberay.version)) {
    return;
  }
  const std::string why =
      "InteractiveMode waits in Waiting for spec.jobId with its RayCluster up, and "
      "activeDeadlineSeconds is not checked while it waits";
  if (!kuberay::knows(kuberay::Field::kPreRunningDeadlineSeconds, ctx.policy.kuberay.version)) {
    // Refused rather than bounded by the reaper: the reaper deletes finished RayJobs only, and a
    // Waiting one has no endTime to count a TTL from.
    out.push_back(Finding{
        RuleId::kActiveDeadline, Finding::Kind::kViolation, "spec.submissionMode",
        why + ", and KubeRay " + kuberay::version_text(ctx.policy.kuberay.version) +
            " has no deadline for that wait, so the RayJob holds its whole cluster until a person "
            "acts (this policy refuses InteractiveMode before 1.6); use K8sJobMode or HTTPMode, or "
            "run the operator at 1.6 or later and set preRunningDeadlineSeconds",
        {}});
    return;
  }
  const long long max = ctx.policy.lifecycle.max_pre_running_deadline_seconds;
  const std::string field = "spec.preRunningDeadlineSeconds";
  const auto& deadline = spec.pre_running_deadline_seconds;
  if (!deadline) {
    out.push_back(Finding{RuleId::kActiveDeadline, Finding::Kind::kViolation, field,
                          "not set, so the RayJob can hold its whole cluster forever: " + why +
                              "; set preRunningDeadlineSeconds to the longest the cluster may "
                              "wait for a job, at most " +
                              std::to_string(max) + " seconds",
                          {Edit::set(field, max)}});
  } else if (*deadline > max) {
    out.push_back(over_maximum("preRunningDeadlineSeconds", *deadline, max,
                               " for the wait of an InteractiveMode RayJob"));
  }
}

}  // namespace

void check_active_deadline(const RuleContext& ctx, Findings& out) {
  const auto& deadline = ctx.job.spec.active_deadline_seconds;
  const long long max = ctx.policy.lifecycle.max_active_deadline_seconds;
  const std::string field = "spec.activeDeadlineSeconds";

  // KubeRay 1.0 has no run deadline at all: demanding the field would refuse every RayJob for
  // something no tenant can fix (kuberay-schema reports the field as unknown if it is set), so the
  // gap is only made visible.
  if (!kuberay::knows(kuberay::Field::kActiveDeadlineSeconds, ctx.policy.kuberay.version)) {
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
  } else if (*deadline > max) {
    out.push_back(over_maximum("activeDeadlineSeconds", *deadline, max, ""));
  }
  check_interactive(ctx, out);
}

}  // namespace rjg::policy
