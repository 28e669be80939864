// Fuzz target: the `check` path, admission::check_manifests: manifest text (multi-document YAML,
// or JSON) -> objects -> CRD defaults -> policy::evaluate, with the built-in default policy and
// --namespace team-a. Checked for every input:
// - an error is kInvalidArgument or kUnsupported with a message, never kInternal;
// - a non-RayJob object is skipped with an empty, allowed verdict;
// - a verdict is allowed exactly when it has no denials, and every finding names a field and
//   carries a message;
// - the same text gives the same verdicts again (pure, deterministic).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "admission/check.hpp"
#include "admission/policy_file.hpp"
#include "common/result.hpp"
#include "fuzz/default_policy.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using rjg::fuzz::default_policy;

void check_findings(const rjg::policy::Findings& findings) {
  for (const auto& f : findings) {
    FUZZ_CHECK(!f.message.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  rjg::admission::CheckOptions options;
  options.namespace_ = "team-a";
  const auto result = rjg::admission::check_manifests(text, options, default_policy());
  if (!result.ok()) {
    FUZZ_CHECK(result.error().code == rjg::ErrorCode::kInvalidArgument ||
               result.error().code == rjg::ErrorCode::kUnsupported);
    FUZZ_CHECK(!result.error().message.empty());
    return 0;
  }
  for (const auto& object : result.value()) {
    if (!object.is_rayjob) {
      FUZZ_CHECK(object.verdict.allowed && object.verdict.denials.empty() &&
                 object.verdict.warnings.empty());
      continue;
    }
    FUZZ_CHECK(object.verdict.allowed == object.verdict.denials.empty());
    check_findings(object.verdict.denials);
    check_findings(object.verdict.warnings);
  }
  const auto again = rjg::admission::check_manifests(text, options, default_policy());
  FUZZ_CHECK(again.ok() && again.value().size() == result.value().size());
  for (std::size_t i = 0; i < again.value().size(); ++i) {
    FUZZ_CHECK(again.value()[i].verdict.denials == result.value()[i].verdict.denials);
    FUZZ_CHECK(again.value()[i].verdict.warnings == result.value()[i].verdict.warnings);
  }
  return 0;
}
