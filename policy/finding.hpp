// Finding: what one rule found wrong (or worth saying) about one field of a RayJob.
#pragma once

#include <string>
#include <vector>

#include "policy/rule_id.hpp"

namespace rjg::policy {

struct Finding {
  enum class Kind {
    // The object breaks the rule. Denied or warned according to the rule's action.
    kViolation,
    // Not a violation, but the tenant should know (e.g. "failures get no longer window in this
    // mode"). Always a warning, unless the rule is off.
    kAdvisory,
  };
  RuleId rule = RuleId::kKuberaySchema;
  Kind kind = Kind::kViolation;
  // JSON-path-like location, Kubernetes style: "spec.rayClusterSpec.workerGroupSpecs[0].replicas".
  std::string field;
  // "what is wrong; what to do". No uid, user, time or address: the same object under the same
  // policy always yields the same text.
  std::string message;

  friend bool operator==(const Finding&, const Finding&) = default;
};

using Findings = std::vector<Finding>;

}  // namespace rjg::policy
