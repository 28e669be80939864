// stub: replaced by the implementation of the rule.
#include "policy/rules/rules.hpp"

namespace rjg::policy {

void check_submission_mode(const RuleContext& /*ctx*/, Findings& /*out*/) {}

}  // namespace rjg::policy
