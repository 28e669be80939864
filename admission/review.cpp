// review(): decode -> policy::evaluate -> encode (see review.hpp).
#include "admission/review.hpp"

#include "admission/decode_review.hpp"
#include "admission/encode_review.hpp"
#include "admission/finding_format.hpp"
#include "policy/evaluate.hpp"

namespace rjg::admission {

Result<ReviewResult> review(std::string_view request_body, const LoadedPolicy& policy,
                            std::shared_ptr<const policy::ClusterQuotas> cluster_quotas) {
  Result<DecodedReview> decoded = decode_review(request_body);
  if (!decoded.ok()) {
    return decoded.error();
  }
  DecodedReview& d = decoded.value();
  d.request.cluster_quotas = std::move(cluster_quotas);
  const policy::Verdict verdict = policy::evaluate(d.request, policy.config);

  ReviewResult result;
  result.body = encode_review(ResponseContext{d.uid, d.name, policy.hash}, verdict);
  ReviewSummary& s = result.summary;
  s.uid = std::move(d.uid);
  s.operation = std::move(d.operation);
  s.namespace_ = std::move(d.namespace_);
  s.name = std::move(d.name);
  s.kind = std::move(d.kind);
  s.username = std::move(d.username);
  s.dry_run = d.dry_run;
  s.allowed = verdict.allowed;
  s.denied_rules = distinct_rule_ids(verdict.denials);
  s.warned_rules = distinct_rule_ids(verdict.warnings);
  return result;
}

}  // namespace rjg::admission
