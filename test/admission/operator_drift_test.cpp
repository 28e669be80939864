// admission::operator_drift: the operator's Deployment against the policy, one case per row.
#include "admission/operator_drift.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "admission/policy_file.hpp"

namespace rjg::admission {
namespace {

// A DeploymentList of one kuberay-operator Deployment, as KubeRay's Helm chart renders it.
std::string deployment_list(const std::string& image, const std::string& args,
                            const std::string& env = "[]") {
  return R"({"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{},"items":[{"metadata":{)"
         R"("namespace":"ray-system","name":"kuberay-operator","uid":"d-1"},"spec":{"template":)"
         R"({"spec":{"containers":[{"name":"sidecar","image":"busybox"},{"name":"kuberay-operator",)"
         R"("image":")" +
         image + R"(","command":["/manager"],"args":)" + args + R"(,"env":)" + env + "}]}}}}]}";
}

std::vector<std::string> drift_messages(const std::string& list, const std::string& policy_yaml) {
  Result<ListPage<OperatorDeployment>> page = decode_operator_deployments(list);
  EXPECT_TRUE(page.ok()) << (page.ok() ? "" : page.error().message);
  Result<LoadedPolicy> policy =
      policy_yaml.empty() ? decode_policy(default_policy_yaml()) : decode_policy(policy_yaml);
  EXPECT_TRUE(policy.ok()) << (policy.ok() ? "" : policy.error().message);
  std::vector<std::string> out;
  if (page.ok() && policy.ok()) {
    for (const AuditResult& r : operator_drift(page.value().items, policy.value().config)) {
      EXPECT_EQ(r.rule, "operator-drift");
      EXPECT_EQ(r.kind, "Deployment");
      EXPECT_EQ(r.namespace_, "ray-system");
      out.push_back(r.message);
    }
  }
  return out;
}

// The default policy says KubeRay 1.6, lifecycle deletionRules, every gate at its 1.6 default.
TEST(OperatorDrift, EachDisagreementNamesTheLineToChange) {
  struct Case {
    const char* name;
    std::string image;
    std::string args;
    std::string env;
    std::vector<std::string> want;  // the start of each message, in order
  };
  const std::string field = "[operator-drift] spec.template.spec.containers[kuberay-operator]";
  const std::vector<Case> cases = {
      {"the same version, gates at their defaults", "quay.io/kuberay/operator:v1.6.2", "[]", "[]",
       {}},
      {"gates set to their defaults", "kuberay/operator:v1.6.0",
       R"(["--feature-gates=RayClusterStatusConditions=true,RayJobDeletionPolicy=true"])", "[]",
       {}},
      {"an older operator", "quay.io/kuberay/operator:v1.5.0", "[]", "[]",
       {field + ".image: the operator in ray-system/kuberay-operator is 1.5 "
                "(quay.io/kuberay/operator:v1.5.0) and the policy says kuberay.version 1.6",
        // 1.5's defaults differ from 1.6's
        field + ".args: the operator in ray-system/kuberay-operator runs feature gate "
                "RayJobDeletionPolicy off and the policy says on",
        field + ".args: the operator in ray-system/kuberay-operator runs feature gate "
                "RayMultiHostIndexing off and the policy says on"}},
      {"a gate Helm replaced", "kuberay/operator:v1.6.2",
       R"(["--feature-gates", "RayJobDeletionPolicy=false, RayCronJob=true"])", "[]",
       {field + ".args: the operator in ray-system/kuberay-operator runs feature gate "
                "RayJobDeletionPolicy off and the policy says on; set "
                "kuberay.featureGates.RayJobDeletionPolicy: false",
        field + ".args: the operator in ray-system/kuberay-operator runs feature gate "
                "RayCronJob on and the policy says off; set kuberay.featureGates.RayCronJob: "
                "true"}},
      {"no version tag", "kuberay/operator@sha256:abc", "[]", "[]",
       {field + ".image: \"kuberay/operator@sha256:abc\" has no version tag"}},
      {"a gate that is not GATE=BOOL", "kuberay/operator:v1.6.2",
       R"(["-feature-gates=RayCronJob=maybe"])", "[]",
       {field + ".args: --feature-gates has \"RayCronJob=maybe\""}},
      {"the operator deletes RayJobs itself", "kuberay/operator:v1.6.2", "[]",
       R"([{"name":"DELETE_RAYJOB_CR_AFTER_JOB_FINISHES","value":"TRUE"}])",
       {field + ".env: the operator in ray-system/kuberay-operator deletes every finished "
                "RayJob itself"}},
  };
  for (const Case& c : cases) {
    const std::vector<std::string> got =
        drift_messages(deployment_list(c.image, c.args, c.env), "");
    ASSERT_EQ(got.size(), c.want.size()) << c.name << ": " << ::testing::PrintToString(got);
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].rfind(c.want[i], 0), 0u) << c.name << ": " << got[i];
    }
  }
}

TEST(OperatorDrift, OperatorDeletesRayJobModeNeedsTheVariable) {
  const std::string policy = std::string(default_policy_yaml()) + "";
  Result<LoadedPolicy> p = decode_policy(default_policy_yaml());
  ASSERT_TRUE(p.ok());
  policy::PolicyConfig config = p.value().config;
  config.lifecycle.mode = policy::LifecycleMode::kOperatorDeletesRayJob;
  Result<ListPage<OperatorDeployment>> page =
      decode_operator_deployments(deployment_list("kuberay/operator:v1.6.2", "[]"));
  ASSERT_TRUE(page.ok());
  std::vector<AuditResult> r = operator_drift(page.value().items, config);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].message.find("does not set DELETE_RAYJOB_CR_AFTER_JOB_FINISHES=true"),
            std::string::npos)
      << r[0].message;
  page = decode_operator_deployments(deployment_list(
      "kuberay/operator:v1.6.2", "[]",
      R"([{"name":"DELETE_RAYJOB_CR_AFTER_JOB_FINISHES","value":"true"}])"));
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(operator_drift(page.value().items, config).empty());
}

TEST(OperatorDrift, BadDeploymentListsNameTheirPath) {
  const auto err = [](const std::string& text) {
    Result<ListPage<OperatorDeployment>> r = decode_operator_deployments(text);
    return r.ok() ? std::string("ok") : r.error().message;
  };
  EXPECT_NE(err(R"({"items":[{"metadata":{},"spec":{"template":{"spec":{"containers":[3]}}}}]})")
                .find("items[0].spec.template.spec.containers[0]"),
            std::string::npos);
  EXPECT_NE(err(R"({"items":[{}]})").find("items[0].metadata: required object is missing"),
            std::string::npos);
  EXPECT_EQ(err(R"({"metadata":{}})"), "items: required array is missing");
  // Two containers, none named kuberay-operator: a result that says so, not a guess.
  Result<ListPage<OperatorDeployment>> two = decode_operator_deployments(
      R"({"items":[{"metadata":{"namespace":"ray-system","name":"op"},"spec":{"template":{"spec":)"
      R"({"containers":[{"name":"a","image":"x:v1.6.0"},{"name":"b","image":"y:v1.6.0"}]}}}}]})");
  ASSERT_TRUE(two.ok());
  Result<LoadedPolicy> p = decode_policy(default_policy_yaml());
  ASSERT_TRUE(p.ok());
  const std::vector<AuditResult> r = operator_drift(two.value().items, p.value().config);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].message.find("cannot be compared with the policy"), std::string::npos);
}

}  // namespace
}  // namespace rjg::admission
