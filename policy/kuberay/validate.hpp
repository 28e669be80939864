// The policy's own validation against what its KubeRay version can do: called once, when a
// policy is decoded (admission/policy_file.cpp), so the engine never runs with a policy whose
// lifecycle the operator cannot carry out. Pure.
#pragma once

#include "common/result.hpp"
#include "policy/policy_config.hpp"

namespace rjg::policy::kuberay {

// Returns kInvalidArgument, naming the key and what to use instead, when lifecycle.mode or
// kueue.lifecycleMode is a mode the pinned version (with its RayJobDeletionPolicy gate) cannot
// carry out, or can only with a leak (deletionRules on 1.5); OK otherwise.
Status validate(const PolicyConfig& c);

}  // namespace rjg::policy::kuberay
