// The manifest corpus: every test/corpus/*.yaml, through `check`'s library path under the
// default policy (objects without a namespace go to tenant-a, as `check -n tenant-a` does),
// gives exactly its first-line expectation:
//   # expect: allowed
//   # expect: denied <rule-id>[,<rule-id>...]      (the exact set of denied rule ids)
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "admission/check.hpp"
#include "golden_files.hpp"

namespace rjg::golden {
namespace {

namespace fs = std::filesystem;

struct Expectation {
  bool allowed = true;
  std::set<std::string> denied;
};

std::optional<Expectation> parse_expectation(const std::string& text) {
  const std::string first = text.substr(0, text.find('\n'));
  const std::string allowed = "# expect: allowed";
  const std::string denied = "# expect: denied ";
  if (first == allowed) {
    return Expectation{};
  }
  if (first.rfind(denied, 0) != 0) {
    return std::nullopt;
  }
  Expectation e;
  e.allowed = false;
  std::stringstream ids(first.substr(denied.size()));
  std::string id;
  while (std::getline(ids, id, ',')) {
    if (id.empty() || !policy::rule_id_from_name(id)) {
      return std::nullopt;
    }
    e.denied.insert(id);
  }
  if (e.denied.empty()) {
    return std::nullopt;
  }
  return e;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) {
    out += (out.empty() ? "" : ",") + x;
  }
  return out;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, MatchesItsExpectLine) {
  std::optional<std::string> text = read_file(fs::path(RJG_CORPUS_DIR) / GetParam());
  ASSERT_TRUE(text.has_value());
  std::optional<Expectation> expect = parse_expectation(*text);
  ASSERT_TRUE(expect.has_value()) << GetParam() << ": first line is not a valid # expect: line";
  Result<admission::LoadedPolicy> policy =
      admission::decode_policy(admission::default_policy_yaml());
  ASSERT_TRUE(policy.ok());
  Result<std::vector<admission::CheckedObject>> checked =
      admission::check_manifests(*text, admission::CheckOptions{"tenant-a", nullptr}, policy.value());
  ASSERT_TRUE(checked.ok()) << checked.error().message;
  std::size_t rayjobs = 0;
  for (const admission::CheckedObject& o : checked.value()) {
    if (!o.is_rayjob) {
      continue;
    }
    ++rayjobs;
    std::set<std::string> denied;
    std::string detail;
    for (const policy::Finding& f : o.verdict.denials) {
      denied.insert(std::string(policy::rule_id_name(f.rule)));
      detail += "\n  denial: [" + std::string(policy::rule_id_name(f.rule)) + "] " + f.field +
                ": " + f.message;
    }
    for (const policy::Finding& f : o.verdict.warnings) {
      detail += "\n  warning: [" + std::string(policy::rule_id_name(f.rule)) + "] " + f.field +
                ": " + f.message;
    }
    EXPECT_EQ(o.verdict.allowed, expect->allowed) << GetParam() << detail;
    EXPECT_EQ(join(denied), join(expect->denied)) << GetParam() << detail;
  }
  EXPECT_GE(rayjobs, 1u) << GetParam() << " holds no RayJob";
}

INSTANTIATE_TEST_SUITE_P(Manifests, Corpus, ::testing::ValuesIn(corpus_files()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return test_name(param_info.param);
                         });

TEST(CorpusShape, AtLeast24ManifestsCoveringEveryRule) {
  const std::vector<std::string> files = corpus_files();
  EXPECT_GE(files.size(), 24u);
  std::set<std::string> denied_somewhere;
  std::size_t allowed = 0;
  for (const std::string& f : files) {
    std::optional<std::string> text = read_file(fs::path(RJG_CORPUS_DIR) / f);
    ASSERT_TRUE(text.has_value());
    std::optional<Expectation> e = parse_expectation(*text);
    ASSERT_TRUE(e.has_value()) << f;
    if (e->allowed) {
      ++allowed;
    }
    denied_somewhere.insert(e->denied.begin(), e->denied.end());
  }
  EXPECT_GE(allowed, 8u);
  for (policy::RuleId id : policy::kAllRules) {
    if (id == policy::RuleId::kImagePinned) {
      continue;  // warn-level in the default policy: covered by warning-only manifests
    }
    EXPECT_TRUE(denied_somewhere.count(std::string(policy::rule_id_name(id))) == 1)
        << "no corpus manifest is denied by " << policy::rule_id_name(id);
  }
}

}  // namespace
}  // namespace rjg::golden
