// Drift between the policy and the KubeRay operator that runs: the policy restates the
// operator's version, feature gates and delete-after-finish setting (kuberay.version,
// kuberay.featureGates, lifecycle.mode operatorDeletesRayJob), and a Helm upgrade or a values
// change makes them disagree without a word. `audit` reads the operator's Deployment and reports
// each disagreement with the policy line to change.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/audit.hpp"
#include "common/result.hpp"
#include "policy/policy_config.hpp"

namespace rjg::admission {

// The label both of KubeRay's installs (its Helm chart and its kustomize manifests) put on the
// operator's Deployment: what `audit` selects Deployments by.
inline constexpr std::string_view kOperatorSelector = "app.kubernetes.io/component=kuberay-operator";

// What the operator container of one Deployment says about how the operator runs.
struct OperatorDeployment {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string container;  // the operator container's name ("" when none could be chosen)
  std::string image;
  std::vector<std::string> args;                       // command and args, in order
  std::optional<std::string> delete_after_finish_env;  // DELETE_RAYJOB_CR_AFTER_JOB_FINISHES
};

// Decodes one DeploymentList page. The operator container is the one named kuberay-operator (both
// installs name it so), else the only container; a Deployment with neither keeps an empty
// `container`. Returns kInvalidArgument naming the JSON path for a field of the wrong type.
Result<ListPage<OperatorDeployment>> decode_operator_deployments(std::string_view text);

// The disagreements between `policy` and each operator Deployment, as audit results (rule
// operator-drift, outcome warn, kind Deployment), each naming the policy line to change: the
// minor version of the image tag against kuberay.version (an image without a version tag is a
// result of its own: the version cannot be told); every feature gate the operator's
// --feature-gates or its version's defaults turn on or off differently from the policy, and a
// gate there that the operator's version does not have (it would not start); and
// DELETE_RAYJOB_CR_AFTER_JOB_FINISHES against lifecycle.mode operatorDeletesRayJob. Empty when
// they agree.
std::vector<AuditResult> operator_drift(const std::vector<OperatorDeployment>& deployments,
                                        const policy::PolicyConfig& policy);

}  // namespace rjg::admission
