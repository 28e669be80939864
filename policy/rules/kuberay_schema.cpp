// kuberay-schema: the RayJob passes everything the pinned KubeRay version checks after admission
// (ValidateRayJobMetadata, ValidateRayJobSpec, the RayJob-relevant part of ValidateRayClusterSpec,
// and the CRD's own enums and CEL rules), and uses no field that version does not know.
// Whatever the operator rejects never runs, yet the RayJob stays and holds quota: in 1.5+ in
// JobDeploymentStatus ValidationFailed, in 1.1-1.4 as an endless requeue (rayjob_controller.go;
// docs/lifecycle.md).
// Which submissionMode values a version knows is submission-mode's, so it is reported once.
// A field whose value is what the operator does without it (backoffLimit 0, numOfHosts 1) is not
// reported as unknown: a CRD newer than the operator writes exactly those as defaults.
#include <optional>
#include <string>

#include "policy/kuberay/checker.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace kuberay {

// The operator's order: fields first (what the apiserver prunes never reaches a check), the CRD's
// schema, then ValidateRayJobMetadata and ValidateRayJobSpec, then what building the submitter
// needs.
void Checker::run() {
  unknown_fields();
  crd_fields();
  metadata();
  suspend_and_ttl();
  deletion_policy();
  deletion_strategy();
  cluster_selection();
  submission_modes();
  cluster_spec();
  scalars();
  submitter();
}

}  // namespace kuberay

bool fixed_to_delete_self(const std::optional<std::string>& policy, const RayJobSpec& spec) {
  const bool selector = spec.cluster_selector && !spec.cluster_selector->empty();
  const RayClusterSpec* rc = spec.ray_cluster_spec ? &*spec.ray_cluster_spec : nullptr;
  return !policy || !kuberay::is_one_of(*policy, kuberay::kDeletionPolicies) ||
         (selector && (*policy == "DeleteCluster" || *policy == "DeleteWorkers")) ||
         (*policy == "DeleteWorkers" && kuberay::is_autoscaling(rc));
}

void check_kuberay_schema(const RuleContext& ctx, Findings& out) {
  kuberay::Checker(ctx, out).run();
}

}  // namespace rjg::policy
