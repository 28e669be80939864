// reap-ttl: the TTLs after which the RayJob deletes itself are within the policy bounds, and a
// failed run stays strictly longer than a succeeded one (time for `kubectl logs`), by lifecycle
// mode. Only TTLs that exist are checked: reap-self reports missing ones, and kuberay-schema
// negative ones, so each problem is reported once.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/reaper_annotations.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

std::string s(long long v) { return std::to_string(v); }

std::string ttl_field(std::size_t i) {
  return "spec.deletionStrategy.deletionRules[" + std::to_string(i) + "].condition.ttlSeconds";
}

// Where a TTL is written and how: a number field (ttlSeconds, ttlSecondsAfterFinished) or an
// annotation, whose value is text. Nothing is spelled until there is a finding: a TTL within
// bounds costs no string and no allocation.
struct Ttl {
  static constexpr std::size_t kNoRule = static_cast<std::size_t>(-1);

  std::string_view field_text;  // a fixed field, when `rule` is kNoRule
  std::string_view how;         // "set ttlSeconds" / "set the annotation to"
  bool text = false;
  // A DeleteSelf deletion rule's TTL: the rule's index (its field is ttl_field(rule)).
  std::size_t rule = kNoRule;
  // When set, what delete_self_ttl_fix needs to make the fix of every finding on this TTL;
  // otherwise the fix writes the field.
  const RuleContext* ctx = nullptr;
  const StagedRules* staged = nullptr;

  std::string field() const {
    return rule == kNoRule ? std::string(field_text) : ttl_field(rule);
  }

  // The finding for this TTL, whose fix writes `to` (or is delete_self_ttl_fix's).
  void add(Findings& out, std::string message, long long to) const {
    std::vector<Edit> fix =
        ctx ? delete_self_ttl_fix(ctx->job.spec, ctx->policy, ctx->mode(), rule, *staged)
            : std::vector<Edit>{};
    if (fix.size() > 1) {
      message += ", and lower the longer DeleteWorkers/DeleteCluster TTLs of this condition to "
                 "the same (the operator wants them no longer than DeleteSelf's)";
    }
    std::string f = field();
    if (fix.empty()) {
      fix.push_back(text ? Edit::set(f, s(to)) : Edit::set(f, to));
    }
    out.push_back(Finding{RuleId::kReapTtl, Finding::Kind::kViolation, std::move(f),
                          std::move(message), std::move(fix)});
  }
};

// Checks a success TTL. Returns true when it is within bounds.
bool check_success(long long ttl, const LifecycleConfig& lc, const Ttl& at, Findings& out) {
  if (ttl > lc.max_succeeded_ttl_seconds) {
    at.add(out,
           s(ttl) +
               " seconds keeps a succeeded RayJob (and its quota) longer than the policy "
               "maximum of " +
               s(lc.max_succeeded_ttl_seconds) + " seconds; " + std::string(at.how) + " " +
               s(lc.max_succeeded_ttl_seconds) + " or less",
           lc.max_succeeded_ttl_seconds);
    return false;
  }
  return true;
}

// Checks a failure TTL. Returns true when it is within bounds.
bool check_failure(long long ttl, const LifecycleConfig& lc, const Ttl& at, Findings& out) {
  auto remedy = [&] {
    return "; " + std::string(at.how) + " between " + s(lc.min_failed_ttl_seconds) + " and " +
           s(lc.max_failed_ttl_seconds);
  };
  if (ttl < lc.min_failed_ttl_seconds) {
    at.add(out,
           s(ttl) +
               " seconds removes a failed RayJob before its logs can be read: the policy "
               "keeps failures at least " +
               s(lc.min_failed_ttl_seconds) + " seconds" + remedy(),
           lc.min_failed_ttl_seconds);
    return false;
  }
  if (ttl > lc.max_failed_ttl_seconds) {
    at.add(out,
           s(ttl) +
               " seconds keeps a failed RayJob (and its quota) longer than the policy maximum "
               "of " +
               s(lc.max_failed_ttl_seconds) + " seconds" + remedy(),
           lc.max_failed_ttl_seconds);
    return false;
  }
  return true;
}

// Both TTLs are within bounds here, and the policy keeps every in-bounds failure TTL above every
// in-bounds success TTL (minFailedTTLSeconds > maxSucceededTTLSeconds), so this guards the
// invariant rather than a case a manifest can reach.
void check_order(long long success_ttl, long long failure_ttl, const LifecycleConfig& lc,
                 const Ttl& failure, Findings& out) {
  if (failure_ttl <= success_ttl) {
    Ttl at = failure;
    at.ctx = nullptr;  // the TTL is within bounds: delete_self_ttl_fix would keep it
    at.add(out,
                s(failure_ttl) + " seconds is not longer than the success TTL (" +
                    s(success_ttl) +
                    " seconds): failed runs must stay longer than succeeded ones so their logs "
                    "can be read; " +
                    std::string(failure.how) + " above " + s(success_ttl),
           std::max(success_ttl + 1, lc.min_failed_ttl_seconds));
  }
}

void check_rules_mode(const RuleContext& ctx, Findings& out) {
  const auto& ds = ctx.job.spec.deletion_strategy;
  if (!ds || !ds->deletion_rules) {
    return;
  }
  const LifecycleConfig& lc = ctx.policy.lifecycle;
  const auto& rules = *ds->deletion_rules;
  const StagedRules staged(rules);
  auto ttl_at = [&](std::size_t i) { return Ttl{{}, "set ttlSeconds", false, i, &ctx, &staged}; };

  // The success TTL that the failure TTLs must exceed: the first in-bounds DeleteSelf SUCCEEDED.
  std::optional<long long> success_ttl;
  struct Failure {
    std::size_t index;
    long long ttl;
  };
  std::vector<Failure> failures;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const DeletionRule& r = rules[i];
    if (r.policy != "DeleteSelf" || !r.has_condition || !r.ttl_seconds || *r.ttl_seconds < 0) {
      continue;
    }
    // A condition with both fields is kuberay-schema's; judge it by neither here.
    if (r.job_status && r.job_deployment_status) {
      continue;
    }
    const long long ttl = *r.ttl_seconds;
    if (r.job_status == "SUCCEEDED") {
      if (check_success(ttl, lc, ttl_at(i), out) && !success_ttl) {
        success_ttl = ttl;
      }
    } else if (r.job_status == "FAILED" || r.job_deployment_status == "Failed") {
      if (check_failure(ttl, lc, ttl_at(i), out)) {
        failures.push_back({i, ttl});
      }
    }
  }
  if (success_ttl) {
    for (const Failure& f : failures) {
      check_order(*success_ttl, f.ttl, lc, ttl_at(f.index), out);
    }
  }
}

void check_reaper_mode(const RuleContext& ctx, Findings& out) {
  const auto& annotations = ctx.job.metadata.annotations;
  const LifecycleConfig& lc = ctx.policy.lifecycle;
  auto read = [&](std::string_view key) -> std::optional<std::int64_t> {
    const auto it = annotations.find(key);
    return it == annotations.end() ? std::nullopt : parse_ttl_annotation(it->second);
  };
  const std::string success_field =
      "metadata.annotations[" + std::string(kTtlAfterSuccessKey) + "]";
  const std::string failure_field =
      "metadata.annotations[" + std::string(kTtlAfterFailureKey) + "]";
  const Ttl success_at{success_field, "set the annotation to", true};
  const Ttl failure_at{failure_field, "set the annotation to", true};
  const auto success = read(kTtlAfterSuccessKey);
  const auto failure = read(kTtlAfterFailureKey);
  const bool success_ok = success && check_success(*success, lc, success_at, out);
  const bool failure_ok = failure && check_failure(*failure, lc, failure_at, out);
  if (success_ok && failure_ok) {
    check_order(*success, *failure, lc, failure_at, out);
  }
}

// deletionPolicy and operatorDeletesRayJob: ttlSecondsAfterFinished is the delay for success and
// failure alike, so it can honour the quota bound or the log window, not both. Quota wins.
void check_single_ttl_mode(const RuleContext& ctx, std::string_view mode, Findings& out) {
  const LifecycleConfig& lc = ctx.policy.lifecycle;
  const Ttl at{"spec.ttlSecondsAfterFinished", "set ttlSecondsAfterFinished to"};
  const auto& ttl = ctx.job.spec.ttl_seconds_after_finished;
  if (ttl && *ttl >= 0) {
    check_success(*ttl, lc, at, out);
  }
  out.push_back(Finding{
      RuleId::kReapTtl, Finding::Kind::kAdvisory, at.field(),
      "in lifecycle mode " + std::string(mode) +
          " one TTL serves success and failure alike, so a failed RayJob is deleted as fast as a "
          "succeeded one (at most " +
          s(lc.max_succeeded_ttl_seconds) +
          " seconds) and gets no longer kubectl logs window; the lifecycle modes deletionRules "
          "(KubeRay 1.6+) and reaper can keep failures longer",
      {}});
}

}  // namespace

std::vector<Edit> delete_self_ttl_fix(const RayJobSpec& spec, const PolicyConfig& policy,
                                      LifecycleMode mode, std::size_t index,
                                      const StagedRules& staged) {
  const std::vector<DeletionRule>& rules = *spec.deletion_strategy->deletion_rules;
  const DeletionRule& self = rules[index];
  const LifecycleConfig& lc = policy.lifecycle;
  long long lo = 0;
  long long hi = std::numeric_limits<long long>::max();
  if (mode == LifecycleMode::kDeletionRules) {
    if (self.job_status == "SUCCEEDED") {
      hi = lc.max_succeeded_ttl_seconds;
    } else if (self.job_status == "FAILED" || self.job_deployment_status == "Failed") {
      lo = lc.min_failed_ttl_seconds;
      hi = lc.max_failed_ttl_seconds;
    }
  }
  // The operator wants DeleteWorkers <= DeleteCluster <= DeleteSelf per condition.
  long long longest_before = 0;
  for (const std::size_t i : staged.of(self)) {
    const DeletionRule& r = rules[i];
    // `index` itself may be a rule whose policy kuberay-schema turns into DeleteSelf.
    if (i != index) {
      longest_before = std::max<long long>(longest_before, r.ttl_seconds.value_or(0));
    }
  }
  const long long ttl = std::clamp<long long>(self.ttl_seconds.value_or(0), lo, hi);
  const long long to = std::max(ttl, std::min(longest_before, hi));
  std::vector<Edit> fix = {Edit::set(ttl_field(index), to)};
  for (const std::size_t i : staged.of(self)) {
    const DeletionRule& r = rules[i];
    if (i != index && r.ttl_seconds.value_or(0) > to) {
      fix.push_back(Edit::set(ttl_field(i), to));
    }
  }
  return fix;
}

StagedRules::StagedRules(const std::vector<DeletionRule>& rules) {
  std::map<std::pair<Condition, std::string_view>, int> per_policy;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const DeletionRule& r = rules[i];
    if (!r.has_condition || (r.policy != "DeleteWorkers" && r.policy != "DeleteCluster")) {
      continue;
    }
    Condition condition{r.job_status, r.job_deployment_status};
    if (++per_policy[{condition, *r.policy}] <= 2) {
      by_condition_[std::move(condition)].push_back(i);
    }
  }
}

const std::vector<std::size_t>& StagedRules::of(const DeletionRule& rule) const {
  static const std::vector<std::size_t> kNone;
  if (!rule.has_condition) {
    return kNone;
  }
  const auto it = by_condition_.find({rule.job_status, rule.job_deployment_status});
  return it == by_condition_.end() ? kNone : it->second;
}

void check_reap_ttl(const RuleContext& ctx, Findings& out) {
  switch (ctx.mode()) {
    case LifecycleMode::kDeletionRules:
      check_rules_mode(ctx, out);
      return;
    case LifecycleMode::kReaper:
      check_reaper_mode(ctx, out);
      return;
    case LifecycleMode::kDeletionPolicy:
      check_single_ttl_mode(ctx, "deletionPolicy", out);
      return;
    case LifecycleMode::kOperatorDeletesRayJob:
      check_single_ttl_mode(ctx, "operatorDeletesRayJob", out);
      return;
  }
}

}  // namespace rjg::policy
