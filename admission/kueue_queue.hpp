// Kueue's queues (kueue.x-k8s.io/v1beta2, the version Kueue v0.19 stores) as JSON from the API
// (a list item, a watch event's object) -> what quota-fit reads of them: a LocalQueue's
// ClusterQueue, and a ClusterQueue's quotas (policy::ClusterQueueSpec). Every read goes through
// json_reader.hpp, so each error names its JSON path.
#pragma once

#include <string>

#include "admission/json_reader.hpp"
#include "common/result.hpp"
#include "policy/cluster_quota.hpp"

namespace rjg::admission {

// A decoded LocalQueue: where it is and the ClusterQueue it submits to.
struct DecodedLocalQueue {
  std::string namespace_;     // metadata.namespace
  std::string name;           // metadata.name
  std::string cluster_queue;  // spec.clusterQueue
};

// Decodes `object`, whose JSON path is `path` ("items[3]", or ""). Returns kInvalidArgument
// naming the path for: not an object, a duplicate key, `kind` other than LocalQueue (may be
// absent, as in list items), metadata.name, metadata.namespace or spec.clusterQueue missing or
// empty (the CRD requires all three).
Result<DecodedLocalQueue> decode_local_queue(const json::Value& object, const json::Path& path);

// Decodes `object` as above into what quota-fit reads of a ClusterQueue: metadata.name,
// spec.cohortName (set and not empty), and every spec.resourceGroups[].flavors[].resources[]
// {name, nominalQuota, borrowingLimit}. Returns kInvalidArgument naming the path for: not an
// object, a duplicate key, `kind` other than ClusterQueue, metadata.name missing or empty, a
// flavor or resource without a name, a missing nominalQuota, or a quota that is not a
// non-negative quantity (decode_quantity). Fields quota-fit does not read (lendingLimit,
// namespaceSelector, preemption, status) are not read.
Result<policy::ClusterQueueSpec> decode_cluster_queue(const json::Value& object,
                                                      const json::Path& path);

}  // namespace rjg::admission
