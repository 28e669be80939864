// submission-mode: spec.submissionMode is a mode the pinned KubeRay version knows.
#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

void mode(RayJob& j, std::optional<std::string> m) { j.spec.submission_mode = std::move(m); }
void version(PolicyConfig& p, int minor) { p.kuberay.version = {1, minor}; }

TEST(SubmissionMode, KnownAndUnknownModesByVersion) {
  const std::string field = "spec.submissionMode";
  check_rows(
      RuleId::kSubmissionMode,
      {
          {"compliant K8sJobMode", nullptr, {}},
          {"absent is K8sJobMode", [](RayJob& j, PolicyConfig&) { mode(j, std::nullopt); }, {}},
          {"HTTPMode on 1.6", [](RayJob& j, PolicyConfig&) { mode(j, "HTTPMode"); }, {}},
          {"InteractiveMode on 1.6",
           [](RayJob& j, PolicyConfig&) { mode(j, "InteractiveMode"); },
           {}},
          {"SidecarMode on 1.6", [](RayJob& j, PolicyConfig&) { mode(j, "SidecarMode"); }, {}},
          {"unknown mode",
           [](RayJob& j, PolicyConfig&) { mode(j, "BatchMode"); },
           {{field, "\"BatchMode\" is not a submission mode"}}},
          {"case matters",
           [](RayJob& j, PolicyConfig&) { mode(j, "k8sjobmode"); },
           {{field, "K8sJobMode, HTTPMode, InteractiveMode, SidecarMode"}}},
          {"empty string",
           [](RayJob& j, PolicyConfig&) { mode(j, ""); },
           {{field, "holds quota until deleted"}}},
          {"SidecarMode on 1.4 (boundary: 1.5)",
           [](RayJob& j, PolicyConfig& p) {
             mode(j, "SidecarMode");
             version(p, 4);
           },
           {{field, "needs KubeRay 1.5 or later, but the operator is 1.4"}}},
          {"SidecarMode on 1.5",
           [](RayJob& j, PolicyConfig& p) {
             mode(j, "SidecarMode");
             version(p, 5);
           },
           {}},
          {"InteractiveMode on 1.2 (boundary: 1.3)",
           [](RayJob& j, PolicyConfig& p) {
             mode(j, "InteractiveMode");
             version(p, 2);
           },
           {{field, "use one of K8sJobMode, HTTPMode"}}},
          {"InteractiveMode on 1.3",
           [](RayJob& j, PolicyConfig& p) {
             mode(j, "InteractiveMode");
             version(p, 3);
           },
           {}},
          {"HTTPMode on 1.1",
           [](RayJob& j, PolicyConfig& p) {
             mode(j, "HTTPMode");
             version(p, 1);
           },
           {}},
          {"K8sJobMode on 1.0 (field pruned, same behaviour)",
           [](RayJob& j, PolicyConfig& p) {
             mode(j, "K8sJobMode");
             version(p, 0);
           },
           {}},
          {"HTTPMode on 1.0",
           [](RayJob& j, PolicyConfig& p) {
             mode(j, "HTTPMode");
             version(p, 0);
           },
           {{field, "KubeRay 1.0 has no submissionMode field"}}},
          {"absent on 1.0",
           [](RayJob& j, PolicyConfig& p) {
             mode(j, std::nullopt);
             version(p, 0);
           },
           {}},
      });
}

TEST(SubmissionMode, WarnAndOffActions) {
  check_actions(RuleId::kSubmissionMode, [](RayJob& j, PolicyConfig&) { mode(j, "Nope"); });
}

}  // namespace
}  // namespace rjg::policy::testing
