// Finding text (see finding_format.hpp).
#include "admission/finding_format.hpp"

#include <algorithm>

namespace rjg::admission {

std::string format_finding(const policy::Finding& finding) {
  const std::string_view id = policy::rule_id_name(finding.rule);
  std::string out;
  out.reserve(id.size() + finding.field.size() + finding.message.size() + 5);
  out += '[';
  out += id;
  out += "] ";
  if (!finding.field.empty()) {
    out += finding.field;
    out += ": ";
  }
  out += finding.message;
  return out;
}

std::string format_cause_message(const policy::Finding& finding) {
  std::string out = "[";
  out += policy::rule_id_name(finding.rule);
  out += "] ";
  out += finding.message;
  return out;
}

std::vector<std::string> distinct_rule_ids(const policy::Findings& findings) {
  std::vector<std::string> ids;
  for (const policy::Finding& f : findings) {
    std::string id(policy::rule_id_name(f.rule));
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
      ids.push_back(std::move(id));
    }
  }
  return ids;
}

}  // namespace rjg::admission
