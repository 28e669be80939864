// stub: replaced by the implementation
#include "policy/evaluate.hpp"
namespace rjg::policy {
Findings run_rules(const RayJob&, const std::string&, const PolicyConfig&) { return {}; }
Verdict evaluate(const AdmissionRequest&, const PolicyConfig&) { return {}; }
}  // namespace rjg::policy
