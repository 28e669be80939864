// Tests policy/kuberay/validate: which lifecycle modes each KubeRay version (and its
// RayJobDeletionPolicy gate) can carry out, for lifecycle.mode and kueue.lifecycleMode alike.
#include "policy/kuberay/validate.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rjg::policy::kuberay {
namespace {

struct Row {
  int minor;
  bool gate;
  LifecycleMode mode;
  std::string refusal;  // a fragment of the message; "" when the mode is valid
};

TEST(ValidatePolicy, LifecycleModesByVersion) {
  using M = LifecycleMode;
  const std::vector<Row> rows = {
      {6, true, M::kDeletionRules, ""},
      {7, true, M::kDeletionRules, ""},
      {6, false, M::kDeletionRules, "gate on (kuberay.version is 1.6, gate off)"},
      {5, true, M::kDeletionRules, "refused on KubeRay 1.5"},
      {4, true, M::kDeletionRules, "needs KubeRay 1.5 or later"},
      {3, true, M::kDeletionPolicy, ""},
      {4, true, M::kDeletionPolicy, ""},
      {4, false, M::kDeletionPolicy, "needs KubeRay 1.3 or 1.4"},
      {5, true, M::kDeletionPolicy, "needs KubeRay 1.3 or 1.4"},
      {2, false, M::kOperatorDeletesRayJob, ""},
      {7, true, M::kOperatorDeletesRayJob, ""},
      {1, false, M::kOperatorDeletesRayJob, "needs KubeRay 1.2 or later"},
      {0, false, M::kReaper, ""},
      {7, true, M::kReaper, ""},
  };
  for (const Row& r : rows) {
    for (const bool kueue : {false, true}) {
      PolicyConfig c;
      c.kuberay.version = {1, r.minor};
      c.kuberay.ray_job_deletion_policy_gate = r.gate;
      // The other key holds a mode valid everywhere, so the row's mode decides.
      c.lifecycle.mode = kueue ? M::kReaper : r.mode;
      c.kueue.lifecycle_mode = kueue ? r.mode : M::kReaper;
      const Status s = validate(c);
      SCOPED_TRACE("1." + std::to_string(r.minor) + (kueue ? " kueue" : " lifecycle") +
                   " expecting \"" + r.refusal + "\"");
      if (r.refusal.empty()) {
        EXPECT_TRUE(s.ok()) << s.error().message;
        continue;
      }
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
      EXPECT_NE(s.error().message.find(r.refusal), std::string::npos) << s.error().message;
      EXPECT_EQ(s.error().message.rfind(kueue ? "kueue.lifecycleMode: " : "lifecycle.mode: ", 0),
                0U)
          << s.error().message;
    }
  }
}

}  // namespace
}  // namespace rjg::policy::kuberay
