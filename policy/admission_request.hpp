// AdmissionRequest: everything a verdict may depend on: the object (and the stored one on
// UPDATE), its namespace, the policy (passed beside it) and the cluster's ResourceQuota objects.
// It has no user, group or uid field on purpose: the verdict is identity-blind by construction,
// so the notebook identity and the API identity always get the same answer for the same object.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "policy/cluster_quota.hpp"
#include "policy/rayjob.hpp"

namespace rjg::policy {

enum class Operation { kCreate, kUpdate, kDelete, kConnect };

struct AdmissionRequest {
  Operation operation = Operation::kCreate;
  std::string namespace_;
  // True when the reviewed resource is ray.io RayJob (the main resource, no subresource).
  // Anything else is allowed without evaluation.
  bool is_rayjob = true;
  std::optional<RayJob> object;      // absent on DELETE
  std::optional<RayJob> old_object;  // present on UPDATE
  // The cluster's ResourceQuotas when the request was read (a snapshot of the watch cache, shared
  // read-only), for quota-fit with quota.source cluster; null when no cluster is read.
  std::shared_ptr<const ClusterQuotas> cluster_quotas;
};

}  // namespace rjg::policy
