// backoff-limit: spec.backoffLimit is at most the policy maximum.
#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

TEST(BackoffLimit, Bounded) {
  const std::string field = "spec.backoffLimit";
  check_rows(
      RuleId::kBackoffLimit,
      {
          {"compliant 0", nullptr, {}},
          {"absent (CRD default 0)",
           [](RayJob& j, PolicyConfig&) { j.spec.backoff_limit.reset(); },
           {}},
          {"at the maximum", [](RayJob& j, PolicyConfig&) { j.spec.backoff_limit = 2; }, {}},
          {"over the maximum",
           [](RayJob& j, PolicyConfig&) { j.spec.backoff_limit = 3; },
           {{field, "each retry deletes and recreates the RayCluster and the submitter Job"}}},
          {"policy maximum 0",
           [](RayJob& j, PolicyConfig& p) {
             j.spec.backoff_limit = 1;
             p.lifecycle.max_backoff_limit = 0;
           },
           {{field, "1 exceeds the policy maximum of 0"}}},
          {"negative is kuberay-schema's",
           [](RayJob& j, PolicyConfig&) { j.spec.backoff_limit = -1; },
           {}},
          {"1.1 has no backoffLimit (kuberay-schema reports the field)",
           [](RayJob& j, PolicyConfig& p) {
             j.spec.backoff_limit = 9;
             p.kuberay.version = {1, 1};
           },
           {}},
          {"1.2 has it",
           [](RayJob& j, PolicyConfig& p) {
             j.spec.backoff_limit = 9;
             p.kuberay.version = {1, 2};
           },
           {{field, "set backoffLimit to 2 or less"}}},
      });
}

TEST(BackoffLimit, WarnAndOffActions) {
  check_actions(RuleId::kBackoffLimit, [](RayJob& j, PolicyConfig&) { j.spec.backoff_limit = 10; });
}

}  // namespace
}  // namespace rjg::policy::testing
