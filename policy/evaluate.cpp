// The decision engine: runs the rules in kAllRules order and turns findings into a verdict.
#include "policy/evaluate.hpp"

#include <algorithm>
#include <cstddef>

#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

using CheckFn = void (*)(const RuleContext&, Findings&);

// The check function of `id`. A switch rather than a table indexed by the enum, so that adding a
// RuleId without its check fails -Wswitch instead of reading past an array.
CheckFn check_for(RuleId id) {
  switch (id) {
    case RuleId::kKuberaySchema:
      return &check_kuberay_schema;
    case RuleId::kSubmissionMode:
      return &check_submission_mode;
    case RuleId::kReapSelf:
      return &check_reap_self;
    case RuleId::kReapTtl:
      return &check_reap_ttl;
    case RuleId::kActiveDeadline:
      return &check_active_deadline;
    case RuleId::kBackoffLimit:
      return &check_backoff_limit;
    case RuleId::kClusterSelector:
      return &check_cluster_selector;
    case RuleId::kResourcesDeclared:
      return &check_resources_declared;
    case RuleId::kQuotaFit:
      return &check_quota_fit;
    case RuleId::kImageContract:
      return &check_image_contract;
    case RuleId::kImagePinned:
      return &check_image_pinned;
    case RuleId::kKueueWebhook:
      return &check_kueue_webhook;
  }
  return nullptr;
}

bool contains(const Findings& findings, const Finding& f) {
  return std::find(findings.begin(), findings.end(), f) != findings.end();
}

}  // namespace

Findings run_rules(const RayJob& job, const std::string& namespace_, const PolicyConfig& policy,
                   const RayJob* previous, const ClusterQuotas* cluster_quotas) {
  Findings out;
  const RuleContext ctx{job, namespace_, policy, previous, cluster_quotas};
  for (RuleId id : kAllRules) {
    if (policy.action(id) == RuleAction::kOff) {
      continue;
    }
    CheckFn check = check_for(id);
    if (check == nullptr) {
      continue;
    }
    const std::size_t first = out.size();
    check(ctx, out);
    // A rule reports under its own id; stamping it here keeps kAllRules order and action lookup
    // right even if a rule file forgot to set it.
    for (std::size_t i = first; i < out.size(); ++i) {
      out[i].rule = id;
    }
  }
  return out;
}

Verdict evaluate(const AdmissionRequest& request, const PolicyConfig& policy) {
  Verdict verdict;
  if (!request.is_rayjob || !request.object) {
    return verdict;
  }
  if (request.operation != Operation::kCreate && request.operation != Operation::kUpdate) {
    return verdict;
  }
  const RayJob* previous = request.operation == Operation::kUpdate && request.old_object
                               ? &*request.old_object
                               : nullptr;
  const ClusterQuotas* cluster_quotas = request.cluster_quotas.get();
  const Findings now =
      run_rules(*request.object, request.namespace_, policy, previous, cluster_quotas);

  // Ratcheting: only the old object's findings matter, so they are computed lazily and only on
  // UPDATE. An UPDATE without an old object (malformed review) is judged as a CREATE: never guess
  // that a violation was already there.
  Findings before;
  bool have_before = false;
  auto already_had = [&](const Finding& f) {
    if (request.operation != Operation::kUpdate || !request.old_object) {
      return false;
    }
    if (!have_before) {
      before = run_rules(*request.old_object, request.namespace_, policy, nullptr, cluster_quotas);
      have_before = true;
    }
    return contains(before, f);
  };

  for (const Finding& f : now) {
    const RuleAction action = policy.action(f.rule);
    if (f.kind == Finding::Kind::kViolation && action == RuleAction::kEnforce && !already_had(f)) {
      verdict.denials.push_back(f);
    } else {
      verdict.warnings.push_back(f);
    }
  }
  verdict.allowed = verdict.denials.empty();
  return verdict;
}

}  // namespace rjg::policy
