// evaluate(): the pure decision engine. AdmissionRequest + PolicyConfig in, Verdict out.
// No I/O, no clock, no logging, no JSON. Total: it never throws for any input and always
// returns a Verdict.
#pragma once

#include "policy/admission_request.hpp"
#include "policy/cluster_quota.hpp"
#include "policy/policy_config.hpp"
#include "policy/rayjob.hpp"
#include "policy/verdict.hpp"

namespace rjg::policy {

// Runs every rule whose action is not kOff against `job` in `namespace_` and returns all
// findings in deterministic order (kAllRules order, then the order each rule reports them).
// Each finding's `kind` is as the rule reported it and its `rule` is the rule that ran; actions
// are applied by evaluate(). `previous` is the stored object on UPDATE (null otherwise): the
// rules that judge a change (kueue-webhook's queue label) read it. `cluster_quotas` is the
// cluster's ResourceQuotas (quota-fit with quota.source cluster), null when no cluster is read.
// Reads only its arguments and keeps no reference to them.
Findings run_rules(const RayJob& job, const std::string& namespace_, const PolicyConfig& policy,
                   const RayJob* previous = nullptr,
                   const ClusterQuotas* cluster_quotas = nullptr);

// Returns the verdict for `request`:
// - not a RayJob, or an operation other than CREATE/UPDATE, or no object: allowed, no findings;
// - CREATE: every enforced violation denies; warn-level violations and advisories are warnings;
// - UPDATE: ratcheting, as Kubernetes does for CRD validation: an enforced violation denies only
//   when the old object did not have the same finding (same rule, field and message); the ones it
//   already had become warnings, so finalizer edits and suspend toggles of existing RayJobs are
//   never blocked by a later policy change. A changed value gives a changed message, so it is
//   judged anew. An UPDATE without an old object is judged as a CREATE (nothing is assumed to
//   have been there before).
// Advisories are warnings under every action but kOff. Verdict.allowed is denials.empty().
// Both objects are judged against the same request.cluster_quotas.
Verdict evaluate(const AdmissionRequest& request, const PolicyConfig& policy);

}  // namespace rjg::policy
