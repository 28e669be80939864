// nesting_limit: the one bound on how deep any input may nest (mappings/objects and
// sequences/arrays), for every JSON and YAML the project reads: AdmissionReview bodies,
// runtimeEnvYAML, manifests, policy files and kubeconfigs.
#pragma once

#include <cstddef>

namespace rjg::admission {

// 64 levels. The deepest a RayJob can be is fixed by its CRD's structural schema (the apiserver
// prunes unknown fields, and the schema has no x-kubernetes-preserve-unknown-fields): 17 levels,
// at spec.rayClusterSpec.workerGroupSpecs[].template.spec.volumes[].projected.sources[]
// .clusterTrustBundle.labelSelector.matchExpressions[].values (measured on the v1.7 CRD). An
// AdmissionReview adds 2 (review, request), and metadata.managedFields[].fieldsV1 mirrors a field
// path under 4 more, so a real review stays under 30; a manifest, policy or kubeconfig is
// shallower still. Go's encoding/json and go-yaml stop at 10000, which only bounds the stack; 64
// is more than twice the deepest legitimate input and keeps every recursive reader and traversal
// here cheap. Deeper input is refused with a message naming the limit.
inline constexpr std::size_t kMaxNestingDepth = 64;

}  // namespace rjg::admission
