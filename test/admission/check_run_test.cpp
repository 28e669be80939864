// Tests admission/check_run: check() over several inputs (the exit status of every mix of
// readable, unreadable, empty, broken, allowed and denied files), --fix judged again as printed
// and stable on its own output, the output forms, and text the tenant wrote kept visible.
#include "admission/check_run.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "admission/check_report.hpp"
#include "admission/policy_file.hpp"
#include "test/admission/review_fixture.hpp"

namespace rjg::admission {
namespace {

using testing::compliant_object_json;
using testing::replace_once;

const LoadedPolicy& default_policy() {
  static const LoadedPolicy policy = [] {
    Result<LoadedPolicy> p = decode_policy(default_policy_yaml());
    EXPECT_TRUE(p.ok()) << p.error().message;
    return std::move(p).value();
  }();
  return policy;
}

// A RayJob the default policy allows, and one it denies for its image (stock, so its botocore
// must be pinned, and on a moving tag).
const std::string kAllowed = compliant_object_json("ok-job");
const std::string kDenied =
    replace_once(compliant_object_json("bad-job"),
                 "123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.52.0-py310",
                 "rayproject/ray:latest");

// Reads from `files`; a name not in it cannot be read.
ReadInput reader(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& name) -> Result<std::string> {
    const auto it = files.find(name);
    if (it == files.end()) {
      return unavailable(name + ": cannot be read: No such file or directory");
    }
    return it->second;
  };
}

CheckRun run(const std::vector<std::string>& names, const std::map<std::string, std::string>& files,
             CheckRequest request = {}) {
  request.options.namespace_ = "tenant-a";
  return check(names, reader(files), request, default_policy());
}

TEST(CheckRun, AllowedAndDenied) {
  const CheckRun ok = run({"ok.json"}, {{"ok.json", kAllowed}});
  EXPECT_EQ(ok.exit_status, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out, "rayjob.ray.io/ok-job (ok.json) allowed\n");
  EXPECT_EQ(ok.err, "");

  const CheckRun both = run({"ok.json", "bad.json"}, {{"ok.json", kAllowed}, {"bad.json", kDenied}});
  EXPECT_EQ(both.exit_status, 1);
  EXPECT_EQ(both.files.size(), 2U);
  // The stock image's moving tag is a warning (image-pinned warns by default), its botocore a
  // denial (image-contract).
  EXPECT_EQ(both.out.rfind("rayjob.ray.io/ok-job (ok.json) allowed\n"
                           "Warning: [image-pinned] ",
                           0),
            0U)
      << both.out;
  EXPECT_NE(both.out.find("\nrayjob.ray.io/bad-job (bad.json) denied:\n  [image-contract] "),
            std::string::npos)
      << both.out;
  EXPECT_EQ(both.err, "");
}

TEST(CheckRun, BadInputIsExitTwoAndTheRestIsStillChecked) {
  const std::map<std::string, std::string> files = {
      {"ok.json", kAllowed}, {"bad.json", kDenied}, {"empty.yaml", "# nothing\n"},
      {"broken.yaml", "spec: [\n"}};
  const CheckRun r =
      run({"missing.yaml", "ok.json", "empty.yaml", "broken.yaml", "bad.json"}, files);
  EXPECT_EQ(r.exit_status, 2);
  ASSERT_EQ(r.files.size(), 2U);
  EXPECT_EQ(r.files[0].file, "ok.json");
  EXPECT_EQ(r.files[1].file, "bad.json");
  EXPECT_NE(r.out.find("(bad.json) denied:"), std::string::npos) << r.out;
  // One line each, in the order of the files.
  const std::size_t missing = r.err.find("rayjob-guard check: missing.yaml: cannot be read");
  const std::size_t empty = r.err.find(
      "rayjob-guard check: empty.yaml: no objects (the file is empty or only comments); "
      "--allow-empty accepts that\n");
  const std::size_t broken = r.err.find("rayjob-guard check: broken.yaml: ");
  EXPECT_EQ(missing, 0U) << r.err;
  EXPECT_NE(empty, std::string::npos) << r.err;
  EXPECT_NE(broken, std::string::npos) << r.err;
  EXPECT_LT(missing, empty);
  EXPECT_LT(empty, broken);

  // --allow-empty excuses the empty file only.
  CheckRequest allow;
  allow.allow_empty = true;
  EXPECT_EQ(run({"empty.yaml", "ok.json"}, files, allow).exit_status, 0);
  EXPECT_EQ(run({"empty.yaml", "missing.yaml"}, files, allow).exit_status, 2);
}

TEST(CheckRun, FixIsJudgedAgainAndIsAFixedPoint) {
  // Without a deletion setup, the default policy asks for one, and image-contract for boto3 in
  // runtimeEnvYAML: literal fixes. The moving tag (image-pinned, a warning) is the tenant's to
  // choose, so it is named and the exit status is 1.
  const std::string no_deletion =
      replace_once(kDenied, R"("deletionStrategy":{"deletionRules":[)"
                            R"({"policy":"DeleteSelf","condition":{"jobStatus":"SUCCEEDED","ttlSeconds":60}},)"
                            R"({"policy":"DeleteSelf","condition":{"jobStatus":"FAILED","ttlSeconds":7200}},)"
                            R"({"policy":"DeleteSelf","condition":{"jobDeploymentStatus":"Failed","ttlSeconds":7200}}]},)",
                   "");
  CheckRequest fix;
  fix.fix = true;
  const CheckRun once = run({"job.json"}, {{"job.json", no_deletion}}, fix);
  EXPECT_EQ(once.exit_status, 1) << once.err;
  EXPECT_EQ(once.out.rfind("---\n{\n", 0), 0U) << once.out;
  EXPECT_NE(once.out.find("\"deletionStrategy\""), std::string::npos) << once.out;
  EXPECT_NE(once.err.find("rayjob-guard check: job.json document 1: yours to change: "),
            std::string::npos)
      << once.err;
  EXPECT_NE(once.err.find("yours to change: [image-pinned] "), std::string::npos) << once.err;
  EXPECT_EQ(once.err.find("[image-contract]"), std::string::npos) << once.err;
  // What it printed, checked without --fix, is allowed with the warning left.
  const CheckRun judged = run({"fixed.yaml"}, {{"fixed.yaml", once.out}});
  EXPECT_EQ(judged.exit_status, 0) << judged.out;
  EXPECT_EQ(judged.out.rfind("Warning: [image-pinned] ", 0), 0U) << judged.out;
  // --fix on its own output prints it unchanged.
  const CheckRun twice = run({"fixed.yaml"}, {{"fixed.yaml", once.out}}, fix);
  EXPECT_EQ(twice.out, once.out);
  EXPECT_EQ(twice.exit_status, 1);

  // An allowed RayJob with nothing to fix: printed as it is, exit 0, nothing on stderr.
  const CheckRun clean = run({"ok.json"}, {{"ok.json", kAllowed}}, fix);
  EXPECT_EQ(clean.exit_status, 0) << clean.err;
  EXPECT_EQ(clean.err, "");
}

TEST(CheckRun, Formats) {
  for (const auto& [name, want] : {std::pair{"text", CheckFormat::kText},
                                    std::pair{"json", CheckFormat::kJson},
                                    std::pair{"yaml", CheckFormat::kYaml},
                                    std::pair{"junit", CheckFormat::kJunit},
                                    std::pair{"sarif", CheckFormat::kSarif}}) {
    EXPECT_EQ(check_format(name), want) << name;
  }
  EXPECT_EQ(check_format_names(),
            (std::vector<std::string_view>{"text", "json", "yaml", "junit", "sarif"}));
  EXPECT_EQ(check_format("table"), std::nullopt);
  EXPECT_EQ(check_format("JSON"), std::nullopt);

  const std::map<std::string, std::string> files = {{"ok.json", kAllowed}, {"bad.json", kDenied}};
  CheckRequest request;
  request.tool_version = "9.9.9";
  request.format = CheckFormat::kJson;
  const CheckRun json = run({"ok.json", "bad.json"}, files, request);
  EXPECT_EQ(json.exit_status, 1);
  EXPECT_EQ(json.out.front(), '[');
  EXPECT_EQ(json.out.back(), '\n');
  EXPECT_NE(json.out.find(R"("file":"bad.json")"), std::string::npos);
  EXPECT_EQ(json.out, encode_check_results(json.files) + "\n");

  request.format = CheckFormat::kYaml;
  const CheckRun yaml = run({"ok.json", "bad.json"}, files, request);
  EXPECT_EQ(yaml.exit_status, 1);
  EXPECT_NE(yaml.out.find("file: bad.json"), std::string::npos) << yaml.out;

  request.format = CheckFormat::kJunit;
  const CheckRun junit = run({"ok.json", "bad.json"}, files, request);
  EXPECT_EQ(junit.out, encode_check_junit(junit.files));

  request.format = CheckFormat::kSarif;
  const CheckRun sarif = run({"ok.json", "bad.json"}, files, request);
  EXPECT_NE(sarif.out.find("9.9.9"), std::string::npos);
  EXPECT_EQ(sarif.exit_status, 1);

  // A report covers the files that were read; an unreadable one still makes the status 2.
  request.format = CheckFormat::kJson;
  const CheckRun partial = run({"missing.json", "ok.json"}, files, request);
  EXPECT_EQ(partial.exit_status, 2);
  EXPECT_NE(partial.out.find("ok.json"), std::string::npos);
}

TEST(CheckRun, TextKeepsWhatTheTenantWroteVisible) {
  const std::string escaped = replace_once(kAllowed, R"("name":"ok-job")", R"("name":"a\u001b[2Jb")");
  const CheckRun r = run({"esc\x1b.json"}, {{"esc\x1b.json", escaped}});
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rayjob.ray.io/a\\x1b[2Jb (esc\\x1b.json) "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rjg::admission
