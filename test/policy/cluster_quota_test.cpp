// Tests policy/cluster_quota: which pods a ResourceQuota's scopes cover (as Kubernetes' pod quota
// evaluator decides them), and how its scopes read in a message.
#include "policy/cluster_quota.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rjg::policy {
namespace {

using Qos = PodScopeFacts::Qos;
using Expressions = std::vector<ResourceQuotaSpec::ScopeExpression>;

ResourceQuotaSpec scoped(std::vector<std::string> scopes, Expressions selector = {}) {
  return ResourceQuotaSpec{"q", {}, std::move(scopes), std::move(selector)};
}

PodScopeFacts pod(bool terminating, Qos qos, std::string_view priority_class = {},
                  bool cross_namespace = false) {
  return PodScopeFacts{terminating, qos, priority_class, cross_namespace};
}

TEST(ClusterQuota, Covers) {
  const PodScopeFacts plain = pod(false, Qos::kNotBestEffort);
  const PodScopeFacts best_effort = pod(false, Qos::kBestEffort);
  const PodScopeFacts unknown_qos = pod(false, Qos::kUnknown);
  const PodScopeFacts deadline = pod(true, Qos::kNotBestEffort);
  const PodScopeFacts high = pod(false, Qos::kNotBestEffort, "high");
  const PodScopeFacts cross = pod(false, Qos::kNotBestEffort, {}, true);
  const struct {
    const char* name;
    ResourceQuotaSpec quota;
    PodScopeFacts facts;
    bool covers;
  } rows[] = {
      {"no scope covers every pod", scoped({}), plain, true},
      {"Terminating: a deadline", scoped({"Terminating"}), deadline, true},
      {"Terminating: none", scoped({"Terminating"}), plain, false},
      {"NotTerminating: none", scoped({"NotTerminating"}), plain, true},
      {"NotTerminating: a deadline", scoped({"NotTerminating"}), deadline, false},
      {"BestEffort: requests", scoped({"BestEffort"}), plain, false},
      {"BestEffort: none", scoped({"BestEffort"}), best_effort, true},
      {"NotBestEffort: none", scoped({"NotBestEffort"}), best_effort, false},
      {"BestEffort: not modelled, counted", scoped({"BestEffort"}), unknown_qos, true},
      {"NotBestEffort: not modelled, counted", scoped({"NotBestEffort"}), unknown_qos, true},
      {"PriorityClass scope: a class", scoped({"PriorityClass"}), high, true},
      {"PriorityClass scope: none", scoped({"PriorityClass"}), plain, false},
      {"In: listed", scoped({}, {{"PriorityClass", "In", {"low", "high"}}}), high, true},
      {"In: not listed", scoped({}, {{"PriorityClass", "In", {"low"}}}), high, false},
      {"In: no class", scoped({}, {{"PriorityClass", "In", {"low"}}}), plain, false},
      {"NotIn: listed", scoped({}, {{"PriorityClass", "NotIn", {"high"}}}), high, false},
      {"NotIn: not listed", scoped({}, {{"PriorityClass", "NotIn", {"low"}}}), high, true},
      {"NotIn: no class", scoped({}, {{"PriorityClass", "NotIn", {"low"}}}), plain, true},
      {"Exists: a class", scoped({}, {{"PriorityClass", "Exists", {}}}), high, true},
      {"Exists: none", scoped({}, {{"PriorityClass", "Exists", {}}}), plain, false},
      {"DoesNotExist: a class", scoped({}, {{"PriorityClass", "DoesNotExist", {}}}), high, false},
      {"DoesNotExist: none", scoped({}, {{"PriorityClass", "DoesNotExist", {}}}), plain, true},
      {"an unknown operator counts the pod", scoped({}, {{"PriorityClass", "Like", {"h"}}}), plain,
       true},
      {"CrossNamespacePodAffinity: a term", scoped({"CrossNamespacePodAffinity"}), cross, true},
      {"CrossNamespacePodAffinity: none", scoped({"CrossNamespacePodAffinity"}), plain, false},
      {"a selector of another scope reads the scope", scoped({}, {{"Terminating", "Exists", {}}}),
       deadline, true},
      {"VolumeAttributesClass: never a pod", scoped({"VolumeAttributesClass"}), plain, false},
      {"an unknown scope counts the pod", scoped({"SomeLaterScope"}), plain, true},
      {"scopes are ANDed (one fails)", scoped({"NotTerminating", "PriorityClass"}), plain, false},
      {"scopes and selector are ANDed",
       scoped({"NotTerminating"}, {{"PriorityClass", "In", {"high"}}}), high, true},
      {"selector expressions are ANDed",
       scoped({}, {{"PriorityClass", "Exists", {}}, {"PriorityClass", "NotIn", {"high"}}}), high,
       false},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(quota_covers(r.quota, r.facts), r.covers) << r.name;
  }
}

TEST(ClusterQuota, ScopeText) {
  EXPECT_EQ(scope_text(scoped({})), "");
  EXPECT_EQ(scope_text(scoped({"NotTerminating", "BestEffort"})), "NotTerminating, BestEffort");
  EXPECT_EQ(scope_text(scoped({"Terminating"}, {{"PriorityClass", "In", {"high", "urgent"}},
                                                {"PriorityClass", "Exists", {}},
                                                {"CrossNamespacePodAffinity", "Exists", {}}})),
            "Terminating, PriorityClass In (high, urgent), PriorityClass Exists, "
            "CrossNamespacePodAffinity");
}

Quantity qty(const char* text) { return *Quantity::parse(text); }

TEST(ClusterQuota, MostGranted) {
  using Q = ClusterQueueSpec::ResourceQuota;
  const struct {
    const char* name;
    ClusterQueueSpec queue;
    QuotaLimits want;
  } rows[] = {
      {"no resource groups grant nothing to judge", {"cq", false, {}}, {}},
      {"one flavor: its nominal quota, requests.<resource> and pods",
       {"cq", false,
        {Q{"f", "cpu", qty("8"), {}}, Q{"f", "nvidia.com/gpu", qty("2"), {}},
         Q{"f", "pods", qty("10"), {}}}},
       {{"requests.cpu", qty("8")}, {"requests.nvidia.com/gpu", qty("2")}, {"pods", qty("10")}}},
      {"flavors add up",
       {"cq", false, {Q{"on-demand", "memory", qty("32Gi"), {}}, Q{"spot", "memory", qty("32Gi"), {}}}},
       {{"requests.memory", qty("64Gi")}}},
      {"in a cohort, nominal plus borrowing limit",
       {"cq", true, {Q{"f", "cpu", qty("8"), qty("4")}, Q{"g", "cpu", qty("1"), qty("500m")}}},
       {{"requests.cpu", qty("13500m")}}},
      {"in a cohort, a flavor without a borrowing limit leaves the resource out",
       {"cq", true, {Q{"f", "cpu", qty("8"), qty("4")}, Q{"g", "cpu", qty("1"), {}},
                     Q{"f", "pods", qty("5"), qty("0")}}},
       {{"pods", qty("5")}}},
      {"outside a cohort there is nothing to borrow",
       {"cq", false, {Q{"f", "cpu", qty("8"), {}}}},
       {{"requests.cpu", qty("8")}}},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(most_granted(r.queue), r.want) << r.name;
  }
}

}  // namespace
}  // namespace rjg::policy
