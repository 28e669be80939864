// Table tests for policy::decide_quota_hold: each hold kind, its precedence, the TTL bound and
// grace boundaries, the reaper mode, and the RayJobs that hold nothing for nothing.
#include "policy/quota_hold.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "test/policy/rayjob_builder.hpp"

namespace rjg::policy {
namespace {

constexpr std::int64_t kNow = 1'800'000'000;
constexpr std::int64_t kGrace = 300;

struct Case {
  std::string label;
  std::optional<std::string> job_status;
  std::optional<std::string> deployment_status;
  std::optional<std::int64_t> age;  // endTime = kNow - age
  LifecycleMode mode = LifecycleMode::kDeletionRules;
  std::function<void(RayJob&)> edit = [](RayJob&) {};
  bool being_deleted = false;
  std::optional<HoldKind> want;
};

const std::vector<Case>& cases() {
  const auto no_deletion = [](RayJob& j) { j.spec.deletion_strategy.reset(); };
  const auto jobstatus_rules_only = [](RayJob& j) {
    j.spec.deletion_strategy->deletion_rules->pop_back();  // drop the jobDeploymentStatus rule
  };
  static const std::vector<Case> table = {
      {"running holds legitimately", "RUNNING", "Running", std::nullopt, LifecycleMode::kDeletionRules, {}, false, std::nullopt},
      {"never reconciled", std::nullopt, std::nullopt, std::nullopt, LifecycleMode::kDeletionRules, {}, false, std::nullopt},
      {"validation failed", std::nullopt, "ValidationFailed", std::nullopt,
       LifecycleMode::kDeletionRules, {}, false, HoldKind::kValidationFailed},
      {"validation failed in reaper mode too", std::nullopt, "ValidationFailed", std::nullopt,
       LifecycleMode::kReaper, {}, false, HoldKind::kValidationFailed},
      {"being deleted holds nothing for nothing", std::nullopt, "ValidationFailed", std::nullopt,
       LifecycleMode::kDeletionRules, {}, true, std::nullopt},
      {"succeeded within bound + grace", "SUCCEEDED", "Complete", 600 + 300, LifecycleMode::kDeletionRules, {}, false, std::nullopt},
      {"succeeded one second past bound + grace", "SUCCEEDED", "Complete", 901,
       LifecycleMode::kDeletionRules, {}, false, HoldKind::kPastTtl},
      {"failed within its longer bound", "FAILED", "Failed", 86400 + 300, LifecycleMode::kDeletionRules, {}, false, std::nullopt},
      {"failed past its bound", "FAILED", "Failed", 86400 + 301, LifecycleMode::kDeletionRules,
       {}, false, HoldKind::kPastTtl},
      {"past bound in reaper mode", "SUCCEEDED", "Complete", 5000, LifecycleMode::kReaper, {},
       false, HoldKind::kPastTtl},
      {"past bound wins over no deletion", "SUCCEEDED", "Complete", 5000,
       LifecycleMode::kDeletionRules, no_deletion, false, HoldKind::kPastTtl},
      {"finished without deletion", "SUCCEEDED", "Complete", 10, LifecycleMode::kDeletionRules,
       no_deletion, false, HoldKind::kNoDeletion},
      {"finished without deletion, reaper frees it", "SUCCEEDED", "Complete", 10,
       LifecycleMode::kReaper, no_deletion, false, std::nullopt},
      {"running without deletion is not yet a hold", "RUNNING", "Running", std::nullopt,
       LifecycleMode::kDeletionRules, no_deletion, false, std::nullopt},
      {"operator deletes with shutdown", "FAILED", "Failed", 10,
       LifecycleMode::kOperatorDeletesRayJob,
       [](RayJob& j) {
         j.spec.deletion_strategy.reset();
         j.spec.shutdown_after_job_finishes = true;
       },
       false, std::nullopt},
      {"operator mode without shutdown", "FAILED", "Failed", 10,
       LifecycleMode::kOperatorDeletesRayJob, no_deletion, false, HoldKind::kNoDeletion},
      {"deployment failed, rules match only jobStatus", "", "Failed", 60,
       LifecycleMode::kDeletionRules, jobstatus_rules_only, false,
       HoldKind::kDeploymentFailedUnmatched},
      {"deployment failed, no jobStatus at all", std::nullopt, "Failed", 60,
       LifecycleMode::kDeletionRules, jobstatus_rules_only, false,
       HoldKind::kDeploymentFailedUnmatched},
      {"deployment failed, a jobDeploymentStatus rule matches", "", "Failed", 60, LifecycleMode::kDeletionRules, {}, false, std::nullopt},
      {"job failed, its jobStatus rule matches", "FAILED", "Failed", 60,
       LifecycleMode::kDeletionRules, jobstatus_rules_only, false, std::nullopt},
      {"deployment failed under the reaper", "", "Failed", 60, LifecycleMode::kReaper,
       jobstatus_rules_only, false, std::nullopt},
      {"finished on an existing cluster", "SUCCEEDED", "Complete", 10,
       LifecycleMode::kDeletionRules,
       [](RayJob& j) {
         j.spec.ray_cluster_spec.reset();
         j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "shared"}};
       },
       false, HoldKind::kExistingCluster},
      {"terminal without endTime, deletion set", "SUCCEEDED", "Complete", std::nullopt, LifecycleMode::kDeletionRules, {}, false, std::nullopt},
  };
  return table;
}

TEST(QuotaHold, Table) {
  PolicyConfig policy;  // lifecycle bounds 600 / 3600 / 86400
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.label);
    RayJob job = testing::compliant_rayjob();
    if (c.edit) {
      c.edit(job);
    }
    ReapCandidate status;
    status.namespace_ = "tenant-a";
    status.name = "sample-job";
    status.uid = "u-1";
    status.job_status = c.job_status;
    status.job_deployment_status = c.deployment_status;
    status.being_deleted = c.being_deleted;
    if (c.age) {
      status.end_time = kNow - *c.age;
    }
    policy.lifecycle.mode = c.mode;
    const std::optional<QuotaHold> hold = decide_quota_hold(job, status, policy, kNow, kGrace);
    ASSERT_EQ(hold.has_value(), c.want.has_value())
        << (hold ? hold_kind_id(hold->kind) + std::string(": ") + hold->message : "no hold");
    if (hold) {
      EXPECT_EQ(hold_kind_id(hold->kind), std::string(hold_kind_id(*c.want)));
      EXPECT_FALSE(hold->message.empty());
      EXPECT_EQ(hold->message.find("u-1"), std::string::npos) << "no uid in messages";
    }
  }
}

TEST(QuotaHold, MessagesNameTheFigures) {
  const PolicyConfig policy;
  ReapCandidate status;
  status.job_status = "SUCCEEDED";
  status.job_deployment_status = "Complete";
  status.end_time = kNow - 7200;
  const std::optional<QuotaHold> hold =
      decide_quota_hold(testing::compliant_rayjob(), status, policy, kNow, kGrace);
  ASSERT_TRUE(hold);
  EXPECT_EQ(hold->message,
            "succeeded 2h ago, past the policy's maxSucceededTTLSeconds 600 plus 5m of grace; "
            "nothing deleted it: check the lifecycle mode's deleter (the operator's deletion "
            "rules, or the reaper CronJob), then delete this RayJob");
  status.job_status.reset();
  status.job_deployment_status = "ValidationFailed";
  status.message = "spec.backoffLimit: must be 0 in InteractiveMode";
  EXPECT_NE(decide_quota_hold(testing::compliant_rayjob(), status, policy, kNow, kGrace)
                ->message.find("(spec.backoffLimit: must be 0 in InteractiveMode)"),
            std::string::npos);
}

TEST(QuotaHold, KindIdsAreDistinctKebabCase) {
  const std::vector<std::string> ids = {
      hold_kind_id(HoldKind::kValidationFailed), hold_kind_id(HoldKind::kPastTtl),
      hold_kind_id(HoldKind::kExistingCluster), hold_kind_id(HoldKind::kDeploymentFailedUnmatched),
      hold_kind_id(HoldKind::kNoDeletion)};
  EXPECT_EQ(ids, (std::vector<std::string>{"validation-failed", "past-ttl", "existing-cluster",
                                           "deployment-failed-unmatched", "no-deletion"}));
}

}  // namespace
}  // namespace rjg::policy
