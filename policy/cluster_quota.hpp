// The cluster's ResourceQuota objects, as quota-fit reads them with `quota.source: cluster`, and
// which pods each one covers. Pure data and pure functions: admission/resource_quota.hpp decodes
// one object from the API, the watch cache (kube/) gathers them per namespace, and each request
// carries the snapshot it is judged against (AdmissionRequest::cluster_quotas).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/policy_config.hpp"
#include "policy/quantity.hpp"

namespace rjg::policy {

// One ResourceQuota as the cluster stores it: what quota-fit reads of it.
struct ResourceQuotaSpec {
  std::string name;                 // metadata.name
  QuotaLimits hard;                 // spec.hard: every key, also those quota-fit cannot compute
  std::vector<std::string> scopes;  // spec.scopes
  struct ScopeExpression {
    std::string scope_name;           // matchExpressions[].scopeName
    std::string op;                   // In, NotIn, Exists, DoesNotExist
    std::vector<std::string> values;  // matchExpressions[].values
  };
  std::vector<ScopeExpression> scope_selector;  // spec.scopeSelector.matchExpressions
};

// One Kueue ClusterQueue (kueue.x-k8s.io/v1beta2) as quota-fit reads it: its quotas, and whether
// it may borrow.
struct ClusterQueueSpec {
  std::string name;          // metadata.name
  bool in_cohort = false;    // spec.cohortName is set: it may borrow from its cohort
  struct ResourceQuota {
    std::string flavor;                      // resourceGroups[].flavors[].name
    std::string resource;                    // .resources[].name: cpu, memory, pods, nvidia.com/gpu
    Quantity nominal;                        // .nominalQuota
    std::optional<Quantity> borrowing_limit; // .borrowingLimit; absent: no limit (in a cohort)
  };
  std::vector<ResourceQuota> quotas;  // every flavor's every resource, in the object's order
};

// Returns the most `queue` can ever grant one workload, as quota keys: `pods` for the resource
// pods, `requests.<resource>` for any other (Kueue counts requests). Per resource, the sum over
// its flavors of nominalQuota, plus borrowingLimit when the queue is in a cohort (a workload's pod
// sets may land on different flavors, so the sum bounds them all). A resource that some flavor
// may borrow without a limit is left out: how much the cohort can lend is not the queue's to say.
// A resource the queue does not list is left out too (Kueue may be configured to ignore it).
QuotaLimits most_granted(const ClusterQueueSpec& queue);

// What the cluster holds: namespace -> its ResourceQuotas in name order (a namespace without one
// is absent), and Kueue's queues.
struct ClusterQuotas {
  std::map<std::string, std::vector<ResourceQuotaSpec>> namespaces;
  // "<namespace>/<LocalQueue>" -> the ClusterQueue it submits to (spec.clusterQueue).
  std::map<std::string, std::string> local_queues;
  // ClusterQueue name -> the queue.
  std::map<std::string, ClusterQueueSpec> cluster_queues;
};

// What the quota scopes read of one pod, as Kubernetes' pod quota evaluator (podMatchesScopeFunc
// in pkg/quota/v1/evaluator/core/pods.go) reads it.
struct PodScopeFacts {
  enum class Qos {
    kBestEffort,     // no container (init containers included) asks cpu or memory above zero,
                     // as request or limit
    kNotBestEffort,  // some container does
    kUnknown,        // the pod sets pod-level resources (spec.resources), which the model lacks
  };
  bool terminating = false;  // spec.activeDeadlineSeconds is set (and not negative)
  Qos qos = Qos::kNotBestEffort;
  std::string_view priority_class;  // spec.priorityClassName; empty when not set
  // Some pod affinity or anti-affinity term (required or preferred) names namespaces or has a
  // namespaceSelector.
  bool cross_namespace_pod_affinity = false;
};

// Returns true when every scope of `quota` covers a pod with `pod`'s facts (spec.scopes, each
// meaning Exists, and spec.scopeSelector.matchExpressions are ANDed, as Kubernetes'
// generic.Matches does), and so for a quota without scopes:
// - Terminating / NotTerminating: `terminating` / its negation;
// - BestEffort / NotBestEffort: the QoS class; kUnknown is covered by both;
// - PriorityClass: Exists (and a plain `PriorityClass` scope) when the pod names a class,
//   DoesNotExist when it names none, In when it names one of `values`, NotIn when it names none
//   or one outside `values` (label-selector semantics on the key PriorityClass);
// - CrossNamespacePodAffinity: `cross_namespace_pod_affinity`;
// - VolumeAttributesClass: never (a scope of persistent volume claims).
// A scope name or PriorityClass operator this code does not know covers the pod: quota-fit then
// counts too much rather than too little.
bool quota_covers(const ResourceQuotaSpec& quota, const PodScopeFacts& pod);

// Returns "" for a quota without scopes, else its scopes for a message, e.g.
// "NotTerminating, PriorityClass In (high, urgent)".
std::string scope_text(const ResourceQuotaSpec& quota);

}  // namespace rjg::policy
