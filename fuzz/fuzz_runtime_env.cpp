// Fuzz target: admission::parse_runtime_env, the runtimeEnvYAML reader on the review path
// (libyaml events into a compact tree; yaml_events.hpp). Checked for every input:
// - it returns (never loops or grows without bound; libFuzzer's -timeout and -rss_limit_mb catch
//   both) and is deterministic;
// - kAbsent for blank text (spaces and line breaks), kInvalid for white space with a tab, and
//   otherwise kAbsent only when the first document is YAML null (`null`, `~`, only comments: the
//   operator reads those as no runtime env); kInvalid and kNotMapping always say why; kMapping
//   never does;
// - a malformed or absent pip carries no packages, and only a mapping has a pip form;
// - parse_first_document (libyaml, the one reader since the plain-block short path was removed)
//   gives the same error message, or the same nodes, on a second call.
// libyaml's check of the whole stream is no oracle here: the operator (go-yaml's Unmarshal), like
// this reader, reads the first document and ignores what follows it, and this reader refuses
// more than libyaml (what go-yaml's YAML 1.1 reads otherwise, a tab in a text of white space).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "admission/decode_rayjob.hpp"
#include "admission/yaml_events.hpp"
#include "fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using rjg::policy::RuntimeEnv;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const RuntimeEnv env = rjg::admission::parse_runtime_env(text);
  const bool blank = text.find_first_not_of(" \r\n") == std::string_view::npos;
  if (blank) {
    FUZZ_CHECK(env.parse == RuntimeEnv::Parse::kAbsent);
  } else if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    FUZZ_CHECK(env.parse == RuntimeEnv::Parse::kInvalid);  // white space with a tab: go-yaml refuses
  }
  if (env.parse == RuntimeEnv::Parse::kInvalid || env.parse == RuntimeEnv::Parse::kNotMapping) {
    FUZZ_CHECK(!env.parse_error.empty());
  } else {
    FUZZ_CHECK(env.parse_error.empty());
  }
  if (env.pip_form == RuntimeEnv::PipForm::kMalformed ||
      env.pip_form == RuntimeEnv::PipForm::kNone ||
      env.pip_form == RuntimeEnv::PipForm::kRequirementsPath) {
    FUZZ_CHECK(env.pip_packages.empty());
  }
  if (env.parse != RuntimeEnv::Parse::kMapping) {
    FUZZ_CHECK(env.pip_form == RuntimeEnv::PipForm::kNone);
    FUZZ_CHECK(!env.has_conda && !env.working_dir && env.py_modules.empty());
  }
  const RuntimeEnv again = rjg::admission::parse_runtime_env(text);
  FUZZ_CHECK(again.parse == env.parse && again.parse_error == env.parse_error &&
             again.pip_form == env.pip_form && again.pip_packages == env.pip_packages &&
             again.working_dir == env.working_dir && again.py_modules == env.py_modules);
  // The one reader (libyaml) gives the same answer twice: nothing depends on hidden state.
  constexpr rjg::admission::yaml::Limits kLimits{10'000, rjg::admission::kMaxNestingDepth};
  const auto first = rjg::admission::yaml::parse_first_document(text, kLimits);
  const auto second = rjg::admission::yaml::parse_first_document(text, kLimits);
  FUZZ_CHECK(first.ok() == second.ok());
  if (first.ok()) {
    FUZZ_CHECK(rjg::admission::yaml::debug_string(first.value()) ==
               rjg::admission::yaml::debug_string(second.value()));
  } else {
    FUZZ_CHECK(first.error().message == second.error().message);
  }
  // Not blank and kAbsent: the first document parsed, and is YAML null.
  if (!blank && env.parse == RuntimeEnv::Parse::kAbsent) {
    FUZZ_CHECK(first.ok());
    FUZZ_CHECK(first.value().empty() ||
               first.value().kind(0) == rjg::admission::yaml::Document::Kind::kNull);
  }
  return 0;
}
