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

TEST(ActiveDeadline, InteractiveModeWaitIsBounded) {
  const std::string field = "spec.preRunningDeadlineSeconds";
  const auto interactive = [](std::optional<std::int64_t> pre_running, KubeRayVersion version) {
    return [=](RayJob& j, PolicyConfig& p) {
      j.spec.submission_mode = "InteractiveMode";
      j.spec.backoff_limit = 0;
      j.spec.pre_running_deadline_seconds = pre_running;
      p.kuberay.version = version;
    };
  };
  check_rows(RuleId::kActiveDeadline,
             {
                 {"1.6 with a bound within the maximum", interactive(1800, {1, 6}), {}},
                 {"1.6 at the maximum", interactive(3600, {1, 6}), {}},
                 {"1.6 without preRunningDeadlineSeconds", interactive(std::nullopt, {1, 6}),
                  {{field, "not set, so the RayJob can hold its whole cluster forever"}}},
                 {"1.7 without preRunningDeadlineSeconds", interactive(std::nullopt, {1, 7}),
                  {{field, "activeDeadlineSeconds is not checked while it waits"}}},
                 {"1.6 over the maximum", interactive(3601, {1, 6}),
                  {{field, "3601 exceeds the policy maximum of 3600 seconds"}}},
                 {"policy maximum lowered",
                  [&](RayJob& j, PolicyConfig& p) {
                    interactive(1800, {1, 6})(j, p);
                    p.lifecycle.max_pre_running_deadline_seconds = 600;
                  },
                  {{field, "set preRunningDeadlineSeconds to 600 or less"}}},
                 {"1.5: refused, nothing bounds the wait", interactive(std::nullopt, {1, 5}),
                  {{"spec.submissionMode", "KubeRay 1.5 has no deadline for that wait"}}},
                 {"1.4: refused, naming the modes to use", interactive(std::nullopt, {1, 4}),
                  {{"spec.submissionMode", "use K8sJobMode or HTTPMode"}}},
                 {"1.3: refused", interactive(std::nullopt, {1, 3}),
                  {{"spec.submissionMode", "set preRunningDeadlineSeconds"}}},
                 {"1.2 has no InteractiveMode: submission-mode's", interactive(std::nullopt, {1, 2}),
                  {}},
                 {"other modes need no preRunningDeadlineSeconds",
                  [](RayJob& j, PolicyConfig&) { j.spec.submission_mode = "HTTPMode"; },
                  {}},
                 {"other modes may set any preRunningDeadlineSeconds",
                  [](RayJob& j, PolicyConfig&) { j.spec.pre_running_deadline_seconds = 999999; },
                  {}},
                 {"both deadlines reported, in order",
                  [&](RayJob& j, PolicyConfig& p) {
                    interactive(std::nullopt, {1, 6})(j, p);
                    j.spec.active_deadline_seconds.reset();
                  },
                  {{"spec.activeDeadlineSeconds", "not set"}, {field, "not set"}}},
             });
}

TEST(ActiveDeadline, WarnAndOffActions) {
  check_actions(RuleId::kActiveDeadline,
                [](RayJob& j, PolicyConfig&) { j.spec.active_deadline_seconds.reset(); });
}

}  // namespace
}  // namespace rjg::policy::testing
