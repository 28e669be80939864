// The built-in default policy, decoded once, for the fuzz targets that judge with it.
#pragma once

#include <utility>

#include "admission/policy_file.hpp"
#include "fuzz/fuzz_check.hpp"

namespace rjg::fuzz {

// Returns the default policy (admission::default_policy_yaml), decoded on the first call; a
// default policy that does not decode fails the check.
inline const admission::LoadedPolicy& default_policy() {
  static const admission::LoadedPolicy policy = [] {
    auto loaded = admission::decode_policy(admission::default_policy_yaml());
    FUZZ_CHECK(loaded.ok());
    return std::move(loaded).value();
  }();
  return policy;
}

}  // namespace rjg::fuzz
