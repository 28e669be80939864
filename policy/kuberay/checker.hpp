// The operator's checks of a RayJob, the context they share and the wording of their findings.
// Checker's members are the operator's validation functions, one per Go function (or per part of
// one), in files by the operator's own division: job.cpp (ValidateRayJobMetadata and the RayJob's
// own fields, the CRD's schema rules, the submitter the operator builds), deletion.cpp (the
// deletion fields), cluster_spec.cpp (ValidateRayClusterSpec as it applies to a RayJob) and
// cluster_options.cpp (the gated cluster options of 1.7). Which check runs at which version is
// the catalogue's (policy/kuberay/catalogue.hpp); rules/kuberay_schema.cpp runs them as the rule
// kuberay-schema. Pure.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/ascii.hpp"
#include "policy/kuberay/catalogue.hpp"
#include "policy/kueue.hpp"
#include "policy/rule_context.hpp"
#include "policy/shared_fixes.hpp"

namespace rjg::policy::kuberay {

// The deletion policies of deletionStrategy and deletionRules.
inline constexpr std::array<std::string_view, 4> kDeletionPolicies = {
    "DeleteCluster", "DeleteWorkers", "DeleteSelf", "DeleteNone"};

inline std::string quoted(std::string_view v) { return "\"" + std::string(v) + "\""; }

// Whether `v` is one of `set`.
bool is_one_of(std::string_view v, const std::array<std::string_view, 4>& set);

// Whether the cluster autoscales (enableInTreeAutoscaling), and whether with autoscaler v2.
bool is_autoscaling(const RayClusterSpec* rc);
bool is_autoscaler_v2(const RayClusterSpec* rc);

// Whether a SidecarMode head may keep its restartPolicy (unset or Never).
bool restart_policy_ok(const PodTemplate& t);

// The first entry of `env` named `name`, or nullptr; env_var: of the Ray container of `t`.
const EnvVar* find_env(const std::vector<EnvVar>& env, std::string_view name);
const EnvVar* env_var(const PodTemplate& t, std::string_view name);

// Edits removing every entry named `name` from the env[] list at `field`.
std::vector<Edit> remove_items(const std::string& field, const std::vector<EnvVar>& env,
                               std::string_view name);

// Whether an env var's value is "1" or "true", as the operator's checks read flags.
bool is_true_text(const std::optional<std::string>& v);

// The value of `key` in `m`, or nullptr; non_empty: present and not "".
const std::string* find_value(const FlatMap<std::string>& m, std::string_view key);
bool non_empty(const FlatMap<std::string>& m, std::string_view key);

class RuleLookup;  // deletion.cpp

// Everything one check needs, and the wording shared by all messages.
class Checker {
 public:
  Checker(const RuleContext& ctx, Findings& out)
      : job_(ctx.job),
        spec_(ctx.job.spec),
        policy_(ctx.policy),
        mode_(ctx.mode()),
        v_(ctx.policy.kuberay.version),
        ver_(version_text(v_)),
        rc_(ctx.job.spec.ray_cluster_spec ? &*ctx.job.spec.ray_cluster_spec : nullptr),
        out_(out) {}

  // Reports everything the operator of the policy's version refuses; defined with the rule, in
  // rules/kuberay_schema.cpp, as the calls in the operator's order.
  void run();

 private:
  bool runs(Op op) const { return kuberay::runs(op, v_); }
  bool knows(Field f) const { return kuberay::knows(f, v_); }
  bool gate(std::string_view name) const { return kuberay::feature_gate_on(policy_.kuberay, name); }
  bool shutdown() const { return spec_.shutdown_after_job_finishes.value_or(false); }
  bool selector_mode() const { return spec_.cluster_selector && !spec_.cluster_selector->empty(); }
  // Whether the RayJob's lifecycle is deletion rules, which forbid shutdownAfterJobFinishes.
  bool rules_lifecycle() const { return mode_ == LifecycleMode::kDeletionRules; }
  // Whether "set shutdownAfterJobFinishes: true" is a fix that nothing else then refuses: not in
  // the deletionRules lifecycle, not with deletion rules, and not with a DeleteNone policy.
  // What this round's own fixes remove (the version does not know the field, or the
  // RayJobDeletionPolicy gate is off) does not stand in the way.
  bool shutdown_fits() const {
    const auto& ds = spec_.deletion_strategy;
    const bool strategy_stays = ds && knows(Field::kDeletionStrategy) &&
                                (!runs(Op::kDeletionStrategy) ||
                                 policy_.kuberay.ray_job_deletion_policy_gate);
    const bool policy_stays = knows(Field::kDeletionPolicy) &&
                              (!runs(Op::kDeletionPolicy) ||
                               policy_.kuberay.ray_job_deletion_policy_gate);
    const bool rules = strategy_stays && ds->deletion_rules && !ds->deletion_rules->empty();
    const bool none = (policy_stays && spec_.deletion_policy == "DeleteNone") ||
                      (strategy_stays && (ds->on_success_policy == "DeleteNone" ||
                                          ds->on_failure_policy == "DeleteNone"));
    // Outside lifecycle mode deletionRules the target form has shutdownAfterJobFinishes: true,
    // and reap-self removes what conflicts with it in the same round.
    return !rules_lifecycle() && ((!rules && !none) || reap_self_on());
  }
  bool reap_self_on() const { return policy_.action(RuleId::kReapSelf) != RuleAction::kOff; }
  // Setting shutdownAfterJobFinishes: true, with what the operator refuses next to it gone in the
  // same round, as reap-self's fix does (the same edits, so the two agree).
  std::vector<Edit> shutdown_edits() const {
    std::vector<Edit> edits = {Edit::set("spec.shutdownAfterJobFinishes", true)};
    const auto& ds = spec_.deletion_strategy;
    if (ds && ((ds->deletion_rules && !ds->deletion_rules->empty()) ||
               ds->on_success_policy == "DeleteNone" || ds->on_failure_policy == "DeleteNone")) {
      edits.push_back(Edit::remove("spec.deletionStrategy"));
    }
    if (spec_.deletion_policy == "DeleteNone") {
      edits.push_back(mode_ == LifecycleMode::kDeletionPolicy
                          ? Edit::set("spec.deletionPolicy", std::string("DeleteSelf"))
                          : Edit::remove("spec.deletionPolicy"));
    }
    return edits;
  }
  // deletionRules[i]'s jobStatus `value` respelled in upper case when that is SUCCEEDED or FAILED
  // ("failed"); else no fix.
  std::vector<Edit> respelled(const std::vector<DeletionRule>& rules, const RuleLookup& lookup,
                              std::size_t i, const std::string& value) const {
    const std::string upper = ascii_upper(value);
    if (upper != "SUCCEEDED" && upper != "FAILED") {
      return {};
    }
    const std::string field =
        "spec.deletionStrategy.deletionRules[" + std::to_string(i) + "].condition.jobStatus";
    return rule_becomes(lookup, i, upper, rules[i].job_deployment_status, rules[i].policy,
                        {Edit::set(field, upper)});
  }
  // Whether the operator parks a rejected RayJob in ValidationFailed (1.5+) or requeues it.
  bool parks() const { return kuberay::does(Behavior::kParksRefused, v_); }

  // `edits`: the literal fix (Finding::fix); empty when the change is the tenant's choice.
  void add(std::string field, std::string message, std::vector<Edit> edits = {}) {
    out_.push_back(Finding{RuleId::kKuberaySchema, Finding::Kind::kViolation, std::move(field),
                           std::move(message), std::move(edits)});
  }
  // "<what is wrong>; <what the operator does>; <what to do>" for an operator-side rejection.
  void rejects(std::string field, std::string_view wrong, std::string_view fix,
               std::vector<Edit> edits = {}, std::string_view event = "InvalidRayJobSpec") {
    std::string consequence;
    if (parks()) {
      consequence = "the KubeRay " + ver_ +
                    " operator rejects this RayJob after admission and it stays in "
                    "ValidationFailed, holding quota";
    } else if (event == "InvalidRayJobSpec") {
      consequence = "the KubeRay " + ver_ +
                    " operator rejects this RayJob after admission and requeues it forever "
                    "(Warning event InvalidRayJobSpec), so it never runs and holds quota";
    } else {
      consequence = "the KubeRay " + ver_ +
                    " operator rejects this RayJob after admission and requeues it forever "
                    "(Warning event " +
                    std::string(event) + "), holding quota";
    }
    add(std::move(field), std::string(wrong) + "; " + consequence + "; " + std::string(fix),
        std::move(edits));
  }
  // For what passes validation and fails when the operator builds the submitter: the RayCluster
  // is already up, and the reconcile fails and retries forever.
  void fails_building_submitter(std::string field, std::string_view wrong, std::string_view fix,
                                std::vector<Edit> edits = {}) {
    add(std::move(field),
        std::string(wrong) + "; the KubeRay " + ver_ +
            " operator accepts this RayJob and creates its RayCluster, then cannot build the "
            "submitter and retries forever, so the job never runs and the RayJob waits in "
            "Initializing, holding quota; " +
            std::string(fix),
        std::move(edits));
  }
  // For what the CRD schema (enum, required, CEL) refuses. The apiserver checks these before the
  // webhook, so they show up in `check` or when the installed CRD differs from the operator.
  void crd_rejects(std::string field, std::string_view wrong, std::string_view fix,
                   std::vector<Edit> edits = {}) {
    add(std::move(field),
        std::string(wrong) + "; the KubeRay " + ver_ + " CRD refuses this RayJob at the apiserver; " +
            std::string(fix),
        std::move(edits));
  }
  // For a field the pinned version does not know. Its fix removes it: it has no effect anyway.
  void unknown(std::string field, Field f, std::string_view instead) {
    const kuberay::FieldRow& s = kuberay::field_row(f);
    const std::string when = version_text({1, s.span.from});
    std::vector<Edit> edits = {Edit::remove(field)};
    add(std::move(field),
        "the KubeRay " + ver_ + " API does not know this field (it exists from " + when +
            "): the apiserver prunes it or the operator ignores it, so it has no effect; " +
            std::string(instead.empty() ? s.hint : instead),
        std::move(edits));
  }

  // job.cpp
  void metadata();
  void unknown_fields();
  void suspend_and_ttl();
  void scalars();
  void submitter();
  void crd_fields();

  // deletion.cpp
  void deletion_policy();
  void deletion_strategy();
  void legacy_deletion(const DeletionStrategy& ds);
  void deletion_rules(const std::vector<DeletionRule>& rules);
  // The one copy of the checks that a deletion policy fits the RayJob, shared by deletionPolicy
  // (1.3-1.4), the legacy onSuccess/onFailure form and deletionRules (1.5+). `none_vs_shutdown`:
  // whether DeleteNone with shutdownAfterJobFinishes is checked (not for rules, which forbid
  // shutdown anyway). Returns false when it reported something.
  // `field()` returns the field's path and `to_delete_self()` the fix that makes it DeleteSelf
  // (which fits every check here); both are called only for a finding, so a policy that fits
  // builds neither. Defined in deletion.cpp, its only user.
  template <class Field, class Fix>
  bool policy_fits(const Field& field, const std::string& policy, bool none_vs_shutdown,
                   const Fix& to_delete_self);
  // The fix turning deletionRules[i] into a rule for (job_status, deployment_status, policy) by
  // `edits`; or removing the rule when another rule already is exactly that, or an earlier one
  // becomes it by its own fix (DeleteSelf, see policy_fits).
  static std::vector<Edit> rule_becomes(const RuleLookup& lookup, std::size_t i,
                                        const std::optional<std::string>& job_status,
                                        const std::optional<std::string>& deployment_status,
                                        const std::optional<std::string>& policy,
                                        std::vector<Edit> edits);

  // cluster_spec.cpp
  void cluster_selection();
  void submission_modes();
  void cluster_spec();
  void group_checks(const std::string& path, std::string_view group, const PodTemplate& t,
                    const FlatMap<std::string>& params, bool params_set_resources,
                    bool has_resources, const std::optional<FlatMap<std::string>>& labels);
  void fault_tolerance(const std::string& base);
  void autoscaler(const std::string& base);
  void worker_autoscaling(const std::string& wg, const WorkerGroup& g);
  bool autoscaler_v2_chosen() const;

  // cluster_options.cpp
  void gated_options(const std::string& base);
  void gcs_backend(const std::string& base);
  void collector(const std::string& base);
  void tls_managed(const std::string& base);
  void network_policy(const std::string& np);

  const RayJob& job_;
  const RayJobSpec& spec_;
  const PolicyConfig& policy_;
  const LifecycleMode mode_;  // the lifecycle mode this RayJob is judged by (RuleContext::mode)
  const KubeRayVersion v_;
  const std::string ver_;
  const RayClusterSpec* rc_;
  Findings& out_;
};

}  // namespace rjg::policy::kuberay
