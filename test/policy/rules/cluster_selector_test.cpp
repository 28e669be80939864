// cluster-selector: clusterSelector mode is refused unless the policy allows it.
#include "test/policy/rule_table.hpp"

namespace rjg::policy::testing {
namespace {

void use_selector(RayJob& j) {
  j.spec.ray_cluster_spec.reset();
  j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "shared"}};
}

TEST(ClusterSelector, RefusedUnlessAllowed) {
  check_rows(
      RuleId::kClusterSelector,
      {
          {"compliant rayClusterSpec", nullptr, {}},
          {"clusterSelector mode",
           [](RayJob& j, PolicyConfig&) { use_selector(j); },
           {{"spec.clusterSelector", "the operator never deletes anything when the job ends"}}},
          {"clusterSelector next to rayClusterSpec still counts",
           [](RayJob& j, PolicyConfig&) {
             j.spec.cluster_selector = FlatMap<std::string>{{"ray.io/cluster", "x"}};
           },
           {{"spec.clusterSelector", "describe the cluster in rayClusterSpec"}}},
          {"allowed by policy",
           [](RayJob& j, PolicyConfig& p) {
             use_selector(j);
             p.lifecycle.allow_cluster_selector = true;
           },
           {}},
          {"empty map is not clusterSelector mode",
           [](RayJob& j, PolicyConfig&) {
             j.spec.cluster_selector = FlatMap<std::string>{};
           },
           {}},
      });
}

TEST(ClusterSelector, WarnAndOffActions) {
  check_actions(RuleId::kClusterSelector, [](RayJob& j, PolicyConfig&) { use_selector(j); });
}

}  // namespace
}  // namespace rjg::policy::testing
