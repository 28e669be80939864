// The one place a policy::Finding becomes text. The webhook's deny message and warnings and the
// `check` command's output all use these, so a tenant sees the same line everywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/finding.hpp"

namespace rjg::admission {

// Returns "[rule-id] field.path: message", or "[rule-id] message" when the finding has no field.
std::string format_finding(const policy::Finding& finding);

// Returns "[rule-id] message" (the field goes into a separate JSON member of a status cause).
std::string format_cause_message(const policy::Finding& finding);

// Returns the rule ids of `findings` in order, each once.
std::vector<std::string> distinct_rule_ids(const policy::Findings& findings);

}  // namespace rjg::admission
