// Field paths that several rules and helpers name in findings, spelled once.
#pragma once

#include <cstddef>
#include <string>

namespace rjg::policy {

// Returns "spec.rayClusterSpec.workerGroupSpecs[<index>]".
inline std::string worker_group_field(std::size_t index) {
  return "spec.rayClusterSpec.workerGroupSpecs[" + std::to_string(index) + "]";
}

}  // namespace rjg::policy
