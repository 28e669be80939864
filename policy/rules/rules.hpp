// The check function of every rule. One rule per file under policy/rules/, named after its id;
// each check_<id> appends what it finds to `out` and reads nothing but its arguments.
// `ctx.namespace_` is the request namespace (quota-fit looks up the quota by it).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/finding.hpp"
#include "policy/kueue.hpp"
#include "policy/policy_config.hpp"
#include "policy/rayjob.hpp"

namespace rjg::policy {

struct RuleContext {
  const RayJob& job;
  const std::string& namespace_;
  const PolicyConfig& policy;
  const RayJob* previous = nullptr;  // the stored object on UPDATE, else null

  // The lifecycle mode `job` is judged by (kueue.lifecycleMode for a Kueue RayJob).
  LifecycleMode mode() const { return lifecycle_mode_of(job, policy); }
};

void check_kuberay_schema(const RuleContext& ctx, Findings& out);      // kuberay_schema.cpp
void check_submission_mode(const RuleContext& ctx, Findings& out);     // submission_mode.cpp
void check_reap_self(const RuleContext& ctx, Findings& out);           // reap_self.cpp
void check_reap_ttl(const RuleContext& ctx, Findings& out);            // reap_ttl.cpp
void check_active_deadline(const RuleContext& ctx, Findings& out);     // active_deadline.cpp
void check_backoff_limit(const RuleContext& ctx, Findings& out);       // backoff_limit.cpp
void check_cluster_selector(const RuleContext& ctx, Findings& out);    // cluster_selector.cpp
void check_resources_declared(const RuleContext& ctx, Findings& out);  // resources_declared.cpp
void check_quota_fit(const RuleContext& ctx, Findings& out);           // quota_fit.cpp
void check_image_contract(const RuleContext& ctx, Findings& out);      // image_contract.cpp
void check_image_pinned(const RuleContext& ctx, Findings& out);        // image_pinned.cpp
void check_kueue_webhook(const RuleContext& ctx, Findings& out);       // kueue_webhook.cpp

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
