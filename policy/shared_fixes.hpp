// The fixes that two rules ask for alike, declared once so that their edits agree and one round
// of `check --fix` settles both: cluster-selector and reap-self (leaving clusterSelector mode),
// reap-ttl and kuberay-schema (a DeleteSelf rule's TTL), kuberay-schema and reap-self (deletion
// rules turned into DeleteSelf). Each is defined in the rule file named beside it.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "policy/finding.hpp"
#include "policy/policy_config.hpp"
#include "policy/rayjob.hpp"

namespace rjg::policy {

// Whether cluster-selector refuses clusterSelector mode under `policy`: the policy does not allow
// it and the rule is not off. Another rule that would ask for the same change leaves it to
// cluster-selector then. In cluster_selector.cpp.
bool cluster_selector_refuses(const PolicyConfig& policy);

// The fix for leaving clusterSelector mode, which cluster-selector and reap-self both ask for:
// remove spec.clusterSelector when rayClusterSpec already describes a cluster; none otherwise
// (the cluster to describe is the tenant's). In cluster_selector.cpp.
std::vector<Edit> cluster_selector_fix(const RayJobSpec& spec);

// The fix of the ttlSeconds of deletionRules[index], a DeleteSelf rule, which reap-ttl (out of
// the policy's bounds) and kuberay-schema (shorter than a DeleteWorkers or DeleteCluster rule of
// the same condition) both ask for: one value that both accept, so that their fixes agree and
// one round settles both. The TTL is moved to the nearest value within the policy's bounds for
// its condition (when `mode` is deletionRules; any value of 0 or more otherwise), then raised
// to the longest DeleteWorkers/DeleteCluster TTL of that condition where the bounds allow it;
// where they do not, those longer TTLs are lowered to it. In reap_ttl.cpp.
// The DeleteWorkers and DeleteCluster rules a DeleteSelf rule's TTL is ordered after, by
// condition (jobStatus, jobDeploymentStatus): the first two of each policy, so that a rule being
// fixed into DeleteSelf still sees the one after it. Later ones are duplicates that
// kuberay-schema's fixes remove. Built once per review, so that the TTL fixes of N rules cost
// N log N, not N squared. In reap_ttl.cpp.
class StagedRules {
 public:
  explicit StagedRules(const std::vector<DeletionRule>& rules);
  // The indices of the rules of `rule`'s condition, in order; at most four. Empty without one.
  const std::vector<std::size_t>& of(const DeletionRule& rule) const;

 private:
  using Condition = std::pair<std::optional<std::string>, std::optional<std::string>>;
  std::map<Condition, std::vector<std::size_t>> by_condition_;
};

// `staged`: the StagedRules of the same list.
// REQUIRES: spec.deletion_strategy->deletion_rules has an item `index`.
std::vector<Edit> delete_self_ttl_fix(const RayJobSpec& spec, const PolicyConfig& policy,
                                      LifecycleMode mode, std::size_t index,
                                      const StagedRules& staged);

// Whether kuberay-schema's fix turns a deletion rule with `policy` into DeleteSelf: the policy is
// missing or unknown, or the operator refuses it for this RayJob (DeleteCluster or DeleteWorkers
// with clusterSelector, DeleteWorkers with in-tree autoscaling). In kuberay_schema.cpp.
bool fixed_to_delete_self(const std::optional<std::string>& policy, const RayJobSpec& spec);

}  // namespace rjg::policy
