// stub: replaced by the implementation of the rule.
#include "policy/rules/rules.hpp"

namespace rjg::policy {

void check_backoff_limit(const RuleContext& /*ctx*/, Findings& /*out*/) {}

}  // namespace rjg::policy
