// Verdict: the decision for one AdmissionRequest, and why.
#pragma once

#include <vector>

#include "policy/finding.hpp"

namespace rjg::policy {

struct Verdict {
  // False when at least one enforced violation is new (see evaluate()).
  bool allowed = true;
  // Violations of enforced rules that cause the denial, in deterministic order (rule order of
  // kAllRules, then the order the rule reports them).
  Findings denials;
  // Violations of warn-level rules, advisories, and on UPDATE the enforced violations the old
  // object already had (ratcheted), in the same order.
  Findings warnings;
};

}  // namespace rjg::policy
