// review(): one AdmissionReview request body in, the response body out.
// decode -> policy::evaluate -> encode, nothing else. This is exactly what `rayjob-guard review`
// prints and what `serve` answers on POST /validate.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "admission/policy_file.hpp"
#include "policy/cluster_quota.hpp"
#include "common/result.hpp"

namespace rjg::admission {

// What the edge (server, CLI) logs and counts about one review. Never fed back into a verdict.
struct ReviewSummary {
  std::string uid;
  std::string operation;  // "CREATE", "UPDATE", ...
  std::string namespace_;
  std::string name;
  std::string kind;      // request.kind.kind
  std::string username;  // request.userInfo.username: for the audit log only
  bool dry_run = false;
  bool allowed = true;
  std::vector<std::string> denied_rules;  // rule ids of the denials, in verdict order
  std::vector<std::string> warned_rules;  // rule ids of the warnings, in verdict order
};

struct ReviewResult {
  std::string body;  // the response AdmissionReview JSON (compact, no trailing newline)
  ReviewSummary summary;
};

// Returns the response for `request_body`, or kInvalidArgument (not JSON, not an
// admission.k8s.io/v1 AdmissionReview, no request.uid, a wrong field type; the message names the
// JSON path) / kUnsupported (e.g. admission.k8s.io/v1beta1). `cluster_quotas`, when not null, is
// the cluster's ResourceQuotas for a policy with quota.source: cluster (quota-fit reads them).
// Safe to call concurrently.
Result<ReviewResult> review(std::string_view request_body, const LoadedPolicy& policy,
                            std::shared_ptr<const policy::ClusterQuotas> cluster_quotas = nullptr);

}  // namespace rjg::admission
