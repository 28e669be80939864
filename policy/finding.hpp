// Finding: what one rule found wrong (or worth saying) about one field of a RayJob.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "policy/rule_id.hpp"

namespace rjg::policy {

// One literal change to the manifest as the tenant wrote it. `field` has Finding::field's syntax;
// `[N]` indexes a list and `[key]` names a map key. kSet creates missing parents (an index equal
// to the list's length appends); kRemove of something absent changes nothing.
struct Edit {
  enum class Op { kSet, kRemove };
  using Value = std::variant<bool, long long, std::string>;
  Op op = Op::kSet;
  std::string field;
  Value value;  // kSet only

  static Edit set(std::string field, Value value) {
    return Edit{Op::kSet, std::move(field), std::move(value)};
  }
  static Edit remove(std::string field) { return Edit{Op::kRemove, std::move(field), {}}; }

  friend bool operator==(const Edit&, const Edit&) = default;
};

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
  // The edits, in order, that the message asks for, applied together by `check --fix`. Empty
  // when the change is the tenant's choice (which image, how much memory): the message then names
  // every line to change.
  std::vector<Edit> fix;

  friend bool operator==(const Finding&, const Finding&) = default;
};

using Findings = std::vector<Finding>;

}  // namespace rjg::policy
