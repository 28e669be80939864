// Fuzz target: admission::decode_policy, the policy file (YAML) -> validated PolicyConfig.
// Checked for every input:
// - an error is kInvalidArgument or kUnsupported with a message, never kInternal;
// - an accepted policy has a 16-hex-digit hash, decoding again gives the same hash, and it can
//   judge a real request: admission::review of a compliant RayJob under it succeeds with a
//   well-formed response (a policy that decodes but makes review() fail is a bug).
// Set RJG_FUZZ_WRITE_DEFAULT=FILE to write the built-in default policy to FILE at start-up, as a
// seed (the run script does this so the corpus always starts from the real default).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "admission/policy_file.hpp"
#include "admission/review.hpp"
#include "common/result.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

// A compliant RayJob CREATE; under a fuzzed policy it may be allowed or denied, never an error.
constexpr std::string_view kRequest = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
"request":{"uid":"f0f0f0f0-0000-4000-8000-000000000001","kind":{"group":"ray.io","version":"v1","kind":"RayJob"},
"resource":{"group":"ray.io","version":"v1","resource":"rayjobs"},"name":"job","namespace":"team-a",
"operation":"CREATE","userInfo":{"username":"alice"},"dryRun":false,"oldObject":null,
"object":{"apiVersion":"ray.io/v1","kind":"RayJob","metadata":{"name":"job","namespace":"team-a"},
"spec":{"entrypoint":"python main.py","shutdownAfterJobFinishes":true,"ttlSecondsAfterFinished":0,
"activeDeadlineSeconds":3600,"backoffLimit":0,"submissionMode":"K8sJobMode",
"runtimeEnvYAML":"pip:\n  - boto3==1.35.10\n  - botocore==1.35.10\n",
"deletionStrategy":{"deletionRules":[{"policy":"DeleteSelf","condition":{"jobStatus":"SUCCEEDED","ttlSeconds":300}},
{"policy":"DeleteSelf","condition":{"jobStatus":"FAILED","ttlSeconds":7200}},
{"policy":"DeleteSelf","condition":{"jobDeploymentStatus":"Failed","ttlSeconds":7200}}]},
"rayClusterSpec":{"headGroupSpec":{"rayStartParams":{},"template":{"spec":{"containers":[{"name":"ray-head",
"image":"rayproject/ray:2.41.0@sha256:1111111111111111111111111111111111111111111111111111111111111111",
"resources":{"requests":{"cpu":"1","memory":"4Gi"},"limits":{"cpu":"1","memory":"4Gi"}}}]}}},
"workerGroupSpecs":[{"groupName":"w","replicas":2,"minReplicas":0,"maxReplicas":4,"template":{"spec":{"containers":[{"name":"ray-worker",
"image":"rayproject/ray:2.41.0@sha256:1111111111111111111111111111111111111111111111111111111111111111",
"resources":{"requests":{"cpu":"2","memory":"8Gi"},"limits":{"cpu":"2","memory":"8Gi"}}}]}}}]}}}}})";

bool is_hex16(const std::string& s) {
  if (s.size() != 16) {
    return false;
  }
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  if (const char* path = std::getenv("RJG_FUZZ_WRITE_DEFAULT")) {
    const std::string_view text = rjg::admission::default_policy_yaml();
    if (std::FILE* f = std::fopen(path, "wb")) {
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto policy = rjg::admission::decode_policy(text);
  if (!policy.ok()) {
    FUZZ_CHECK(policy.error().code == rjg::ErrorCode::kInvalidArgument ||
               policy.error().code == rjg::ErrorCode::kUnsupported);
    FUZZ_CHECK(!policy.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(is_hex16(policy.value().hash));
  const auto again = rjg::admission::decode_policy(text);
  FUZZ_CHECK(again.ok() && again.value().hash == policy.value().hash);
  const auto verdict = rjg::admission::review(kRequest, policy.value());
  if (!verdict.ok()) {
    std::fprintf(stderr, "review under an accepted policy failed: %s\n",
                 verdict.error().message.c_str());
  }
  FUZZ_CHECK(verdict.ok());
  FUZZ_CHECK(verdict.value().summary.uid == "f0f0f0f0-0000-4000-8000-000000000001");
  FUZZ_CHECK(verdict.value().summary.allowed == verdict.value().summary.denied_rules.empty());
  return 0;
}
