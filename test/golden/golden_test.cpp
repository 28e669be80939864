// Golden tests: each test/golden/cases/<case>/request.json through review() must give exactly
// expected.json (the body plus a final newline, as `rayjob-guard review` prints it), under the
// case's policy.yaml or the built-in default policy.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "admission/review.hpp"
#include "golden_files.hpp"

namespace rjg::golden {
namespace {

namespace fs = std::filesystem;

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, ReviewBodyMatchesByteForByte) {
  const fs::path dir = fs::path(RJG_GOLDEN_CASES_DIR) / GetParam();
  std::optional<std::string> request = read_file(dir / "request.json");
  ASSERT_TRUE(request.has_value());
  std::optional<std::string> policy_text = read_file(dir / "policy.yaml");
  Result<admission::LoadedPolicy> policy = admission::decode_policy(
      policy_text ? *policy_text : std::string(admission::default_policy_yaml()));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  Result<admission::ReviewResult> result = admission::review(*request, policy.value());
  ASSERT_TRUE(result.ok()) << result.error().message;
  const std::string actual = result.value().body + "\n";
  const char* update = std::getenv("RJG_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    ASSERT_TRUE(write_file(dir / "expected.json", actual));
    return;
  }
  std::optional<std::string> expected = read_file(dir / "expected.json");
  ASSERT_TRUE(expected.has_value())
      << "missing " << (dir / "expected.json") << " (run with RJG_UPDATE_GOLDEN=1 and review it)";
  EXPECT_EQ(actual, *expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(golden_cases()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return test_name(param_info.param);
                         });

TEST(GoldenCases, AtLeastTwelve) { EXPECT_GE(golden_cases().size(), 12u); }

}  // namespace
}  // namespace rjg::golden
