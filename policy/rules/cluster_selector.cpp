// cluster-selector: clusterSelector mode (running on an existing RayCluster) is refused unless the
// policy allows it, because in that mode the operator never deletes anything when the job ends:
// the RayJob and its submitter Job hold quota until someone deletes them.
#include "policy/rules/rules.hpp"

namespace rjg::policy {

std::vector<Edit> cluster_selector_fix(const RayJobSpec& spec) {
  if (!spec.ray_cluster_spec) {
    return {};
  }
  return {Edit::remove("spec.clusterSelector")};
}

bool cluster_selector_refuses(const PolicyConfig& policy) {
  return !policy.lifecycle.allow_cluster_selector &&
         policy.action(RuleId::kClusterSelector) != RuleAction::kOff;
}

void check_cluster_selector(const RuleContext& ctx, Findings& out) {
  const auto& selector = ctx.job.spec.cluster_selector;
  // An empty map is not clusterSelector mode for the operator either (it tests len() != 0).
  if (!selector || selector->empty() || ctx.policy.lifecycle.allow_cluster_selector) {
    return;
  }
  out.push_back(Finding{RuleId::kClusterSelector, Finding::Kind::kViolation, "spec.clusterSelector",
                        "clusterSelector mode is not allowed here: the operator never deletes "
                        "anything when the job ends in this mode (not even with a DeleteSelf "
                        "rule), so the RayJob holds quota until someone deletes it; remove "
                        "clusterSelector and describe the cluster in rayClusterSpec",
                        cluster_selector_fix(ctx.job.spec)});
}

}  // namespace rjg::policy
