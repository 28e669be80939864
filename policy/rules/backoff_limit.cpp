// backoff-limit: spec.backoffLimit is at most the policy maximum. Each RayJob retry deletes and
// recreates the whole RayCluster and the submitter Job, so many retries hold quota for long.
// Absent is fine (the CRD default is 0, no retry); a negative value is kuberay-schema's.
#include <string>

#include "policy/kuberay/catalogue.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

void check_backoff_limit(const RuleContext& ctx, Findings& out) {
  const auto& limit = ctx.job.spec.backoff_limit;
  // Before 1.2 the field does not exist and nothing retries; kuberay-schema reports a set value.
  if (!limit || !kuberay::knows(kuberay::Field::kBackoffLimit, ctx.policy.kuberay.version)) {
    return;
  }
  const long long max = ctx.policy.lifecycle.max_backoff_limit;
  if (*limit > max) {
    out.push_back(Finding{RuleId::kBackoffLimit, Finding::Kind::kViolation, "spec.backoffLimit",
                          std::to_string(*limit) + " exceeds the policy maximum of " +
                              std::to_string(max) +
                              "; each retry deletes and recreates the RayCluster and the "
                              "submitter Job; set backoffLimit to " +
                              std::to_string(max) + " or less",
                          {Edit::set("spec.backoffLimit", max)}});
  }
}

}  // namespace rjg::policy
