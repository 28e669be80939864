// KubeRay version tables (see kuberay_versions.hpp).
#include "policy/kuberay_versions.hpp"

#include <array>
#include <string>

namespace rjg::policy {
namespace {

// Read at the tags v1.2.0 .. v1.7.0 (patch releases have the same defaults).
constexpr std::array<FeatureGateSpan, 16> kGates = {{
    {"RayClusterStatusConditions", 2, 2, false},
    {"RayClusterStatusConditions", 3, 7, true},
    {"RayJobDeletionPolicy", 3, 5, false},
    {"RayJobDeletionPolicy", 6, 7, true},
    {"RayMultiHostIndexing", 5, 5, false},
    {"RayMultiHostIndexing", 6, 7, true},
    {"RayServiceIncrementalUpgrade", 5, 6, false},
    {"RayServiceIncrementalUpgrade", 7, 7, true},
    {"RayCronJob", 6, 7, false},
    {"AsyncJobInfoQuery", 6, 6, false},
    {"SidecarSubmitterRestart", 7, 7, false},
    {"RayClusterNetworkPolicy", 7, 7, false},
    {"GCSFaultToleranceEmbeddedStorage", 7, 7, false},
    {"RayClusterMTLS", 7, 7, false},
    {"RayClusterHistoryServer", 7, 7, false},
    {"KubernetesWAS", 7, 7, false},
}};

}  // namespace

std::span<const FeatureGateSpan> feature_gate_table() { return kGates; }

std::optional<bool> feature_gate_default(std::string_view gate, KubeRayVersion v) {
  for (const FeatureGateSpan& g : kGates) {
    if (g.name == gate && v.major == 1 && v.minor >= g.from && v.minor <= g.to) {
      return g.default_on;
    }
  }
  return std::nullopt;
}

bool feature_gate_on(const KubeRayConfig& k, std::string_view gate) {
  if (gate == "RayJobDeletionPolicy") {
    return k.ray_job_deletion_policy_gate;
  }
  if (const auto it = k.feature_gates.find(gate); it != k.feature_gates.end()) {
    return it->second;
  }
  return feature_gate_default(gate, k.version).value_or(false);
}

std::string feature_gate_names(KubeRayVersion v) {
  std::string out;
  for (const FeatureGateSpan& g : kGates) {
    if (v.major == 1 && v.minor >= g.from && v.minor <= g.to) {
      out += (out.empty() ? "" : ", ") + std::string(g.name);
    }
  }
  return out;
}

}  // namespace rjg::policy
