// active-deadline: spec.activeDeadlineSeconds is set and at most the policy maximum.
#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

TEST(ActiveDeadline, SetAndBounded) {
  const std::string field = "spec.activeDeadlineSeconds";
  check_rows(RuleId::kActiveDeadline,
             {
                 {"compliant 3600", nullptr, {}},
                 {"at the maximum",
                  [](RayJob& j, PolicyConfig&) { j.spec.active_deadline_seconds = 86400; },
                  {}},
                 {"one over the maximum",
                  [](RayJob& j, PolicyConfig&) { j.spec.active_deadline_seconds = 86401; },
                  {{field, "86401 exceeds the policy maximum of 86400 seconds"}}},
                 {"policy maximum lowered",
                  [](RayJob& j, PolicyConfig& p) {
                    j.spec.active_deadline_seconds = 3600;
                    p.lifecycle.max_active_deadline_seconds = 600;
                  },
                  {{field, "set activeDeadlineSeconds to 600 or less"}}},
                 {"absent",
                  [](RayJob& j, PolicyConfig&) { j.spec.active_deadline_seconds.reset(); },
                  {{field, "not set, so a hung run holds its quota forever"}}},
                 {"zero is kuberay-schema's, not reported twice",
                  [](RayJob& j, PolicyConfig&) { j.spec.active_deadline_seconds = 0; },
                  {}},
                 {"negative is kuberay-schema's",
                  [](RayJob& j, PolicyConfig&) { j.spec.active_deadline_seconds = -5; },
                  {}},
                 {"1.1 has the field",
                  [](RayJob& j, PolicyConfig& p) {
                    p.kuberay.version = {1, 1};
                    j.spec.active_deadline_seconds.reset();
                  },
                  {{field, "not set"}}},
                 {"1.0 has no deadline: advisory only",
                  [](RayJob& j, PolicyConfig& p) {
                    p.kuberay.version = {1, 0};
                    j.spec.active_deadline_seconds.reset();
                  },
                  {{field, "KubeRay 1.0 has no activeDeadlineSeconds", Finding::Kind::kAdvisory}}},
             });
}

TEST(ActiveDeadline, WarnAndOffActions) {
  check_actions(RuleId::kActiveDeadline,
                [](RayJob& j, PolicyConfig&) { j.spec.active_deadline_seconds.reset(); });
}

}  // namespace
}  // namespace rjg::policy::testing
