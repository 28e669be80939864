// What each KubeRay operator version knows, as data: its feature gates with their compiled
// defaults (ray-operator/pkg/features/features.go, defaultFeatureGates, at each tag). The checks
// and fields of each version are tables in rules/kuberay_schema.cpp, next to the code that uses
// them. Pure: no I/O.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "policy/policy_config.hpp"

namespace rjg::policy {

// One gate over a range of minor versions (1.from .. 1.to inclusive) with one compiled default.
struct FeatureGateSpan {
  std::string_view name;
  int from;
  int to;
  bool default_on;
};

// Every gate of every supported version (1.0 and 1.1 have no gate framework).
std::span<const FeatureGateSpan> feature_gate_table();

// The compiled default of `gate` at `v`, or nullopt when `v` has no such gate.
std::optional<bool> feature_gate_default(std::string_view gate, KubeRayVersion v);

// Whether the operator runs with `gate` on: kuberay.featureGates, else the compiled default of
// kuberay.version, else off (a gate the version does not have).
bool feature_gate_on(const KubeRayConfig& k, std::string_view gate);

// The gates of `v`, comma-separated in table order ("" for 1.0-1.1): for error messages.
std::string feature_gate_names(KubeRayVersion v);

}  // namespace rjg::policy
