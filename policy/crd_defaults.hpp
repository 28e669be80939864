// apply_crd_defaults(): the defaults the apiserver's CRD structural defaulting writes into a
// RayJob before any validating webhook sees it (the CRD's `default:` markers). `rayjob-guard check`
// has no apiserver, so it applies them itself and a manifest is judged exactly as the webhook
// would see it after `kubectl create`.
#pragma once

#include "policy/policy_config.hpp"
#include "policy/rayjob.hpp"

namespace rjg::policy {

// Fills, in place, every field that the ray.io_rayjobs CRD of KubeRay `version` defaults and
// that is absent in `job`; fields that are present are never changed. Per version:
//   spec.submissionMode = "K8sJobMode"                              (1.1+)
//   spec.ttlSecondsAfterFinished = 0                                (1.1+)
//   spec.backoffLimit = 0                                           (1.2+)
//   workerGroupSpecs[].replicas / minReplicas / maxReplicas
//     = 0 / 0 / 2147483647                                          (all versions)
//   workerGroupSpecs[].numOfHosts = 1                               (1.1+)
//   deletionStrategy.deletionRules[].condition.ttlSeconds = 0       (1.5+, only where a
//                                                                    condition object exists)
// As in the apiserver, a default applies only where its parent object exists (no worker default
// without rayClusterSpec). Never fails; idempotent.
void apply_crd_defaults(RayJob& job, KubeRayVersion version);

}  // namespace rjg::policy
