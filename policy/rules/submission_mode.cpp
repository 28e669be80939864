// submission-mode: spec.submissionMode is a mode the pinned KubeRay version knows.
// The CRD has no enum and the operator never checks the value: an unknown mode is stored, the job
// is never submitted, and the RayJob holds quota until someone deletes it.
#include <string>
#include <string_view>
#include <vector>

#include "common/ascii.hpp"
#include "policy/kuberay/catalogue.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

std::string known_modes(KubeRayVersion v) {
  std::string list;
  for (const kuberay::SubmissionModeRow& m : kuberay::submission_modes()) {
    if (kuberay::holds(m.span, v)) {
      list += list.empty() ? "" : ", ";
      list += m.name;
    }
  }
  return list;
}

// A known mode spelled in other letter case ("k8sjobmode") is fixed to its spelling; anything
// else is the tenant's to choose.
std::vector<Edit> spelling_fix(std::string_view mode, KubeRayVersion v, const std::string& field) {
  for (const kuberay::SubmissionModeRow& m : kuberay::submission_modes()) {
    if (kuberay::holds(m.span, v) && ascii_lower(m.name) == ascii_lower(mode)) {
      return {Edit::set(field, std::string(m.name))};
    }
  }
  return {};
}

}  // namespace

void check_submission_mode(const RuleContext& ctx, Findings& out) {
  const auto& mode = ctx.job.spec.submission_mode;
  // Absent means K8sJobMode in every version (the CRD default from 1.1, the only mode before).
  if (!mode) {
    return;
  }
  const KubeRayVersion v = ctx.policy.kuberay.version;
  const std::string ver = kuberay::version_text(v);
  const std::string field = "spec.submissionMode";
  auto add = [&](std::string message, std::vector<Edit> fix) {
    out.push_back(Finding{RuleId::kSubmissionMode, Finding::Kind::kViolation, field,
                          std::move(message), std::move(fix)});
  };

  if (!kuberay::knows(kuberay::Field::kSubmissionMode, v)) {
    // KubeRay 1.0 has no submissionMode field: it always submits through a Kubernetes Job, which
    // is exactly K8sJobMode, so only that value means what it says.
    if (*mode != "K8sJobMode") {
      add("\"" + *mode + "\" is not available: KubeRay " + ver +
          " has no submissionMode field (the apiserver prunes it) and always submits through a "
          "Kubernetes Job; remove spec.submissionMode or set it to K8sJobMode",
          {Edit::remove(field)});
    }
    return;
  }
  for (const kuberay::SubmissionModeRow& m : kuberay::submission_modes()) {
    if (m.name != *mode) {
      continue;
    }
    if (kuberay::holds(m.span, v)) {
      return;
    }
    add("\"" + *mode + "\" needs KubeRay " + kuberay::version_text({1, m.span.from}) +
        " or later, but the operator is " + ver +
        ": it never submits the job and the RayJob holds quota until deleted; use one of " +
            known_modes(v),
        {});  // another mode runs the job differently: the tenant's choice
    return;
  }
  add("\"" + *mode +
      "\" is not a submission mode (the CRD has no enum, so nothing else refuses it): the "
      "KubeRay " +
      ver +
      " operator never submits the job and the RayJob holds quota until deleted; use one of " +
      known_modes(v) + " (case-sensitive)",
      spelling_fix(*mode, v, field));
}

}  // namespace rjg::policy
