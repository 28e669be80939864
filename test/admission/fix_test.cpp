// Tests admission/fix: literal edits applied to a manifest, and what makes fixes contradict.
#include "admission/fix.hpp"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

namespace rjg::admission {
namespace {

using policy::Edit;
using policy::Finding;
using policy::RuleId;

json::Document doc(const char* text) {
  Result<json::Document> d = json::parse(text);
  EXPECT_TRUE(d.ok()) << d.error().message;
  return std::move(d).value();
}

std::string text(const json::Value& v) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  v.Accept(w);
  return b.GetString();
}

Finding finding(RuleId rule, std::string field, std::vector<Edit> fix,
                Finding::Kind kind = Finding::Kind::kViolation) {
  return Finding{rule, kind, std::move(field), "message", std::move(fix)};
}

struct EditCase {
  const char* name;
  const char* before;
  Edit edit;
  const char* after;  // nullptr: the edit is refused
};

class ApplyEdit : public testing::TestWithParam<EditCase> {};

TEST_P(ApplyEdit, ChangesExactlyWhatItNames) {
  const EditCase& c = GetParam();
  json::Document d = doc(c.before);
  Status s = apply_edit(d, c.edit);
  if (c.after == nullptr) {
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find(c.edit.field), std::string::npos) << s.error().message;
    return;
  }
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(text(d), c.after);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ApplyEdit,
    testing::Values(
        EditCase{"set_existing_number", R"({"spec":{"backoffLimit":5}})",
                 Edit::set("spec.backoffLimit", 2LL), R"({"spec":{"backoffLimit":2}})"},
        EditCase{"set_creates_parents", R"({"spec":{}})",
                 Edit::set("spec.deletionStrategy.deletionRules[0].policy", std::string("DeleteSelf")),
                 R"({"spec":{"deletionStrategy":{"deletionRules":[{"policy":"DeleteSelf"}]}}})"},
        EditCase{"set_appends_at_length", R"({"l":[{"a":1}]})", Edit::set("l[1].a", 2LL),
                 R"({"l":[{"a":1},{"a":2}]})"},
        EditCase{"set_past_length_refused", R"({"l":[]})", Edit::set("l[1].a", 2LL), nullptr},
        EditCase{"set_through_a_scalar_refused", R"({"spec":"x"})", Edit::set("spec.a", true),
                 nullptr},
        EditCase{"set_fills_a_null_parent", R"({"metadata":{"annotations":null}})",
                 Edit::set("metadata.annotations[rayjob-guard.io/ttl-after-success]",
                           std::string("600")),
                 R"({"metadata":{"annotations":{"rayjob-guard.io/ttl-after-success":"600"}}})"},
        EditCase{"bracketed_key_with_dots", R"({"limits":{"cpu":"1"}})",
                 Edit::set("limits[nvidia.com/gpu]", std::string("1")),
                 R"({"limits":{"cpu":"1","nvidia.com/gpu":"1"}})"},
        EditCase{"set_bool_and_text", R"({"spec":{"shutdownAfterJobFinishes":true}})",
                 Edit::set("spec.shutdownAfterJobFinishes", false),
                 R"({"spec":{"shutdownAfterJobFinishes":false}})"},
        EditCase{"remove_member", R"({"spec":{"suspend":true,"entrypoint":"x"}})",
                 Edit::remove("spec.suspend"), R"({"spec":{"entrypoint":"x"}})"},
        EditCase{"remove_absent_is_no_change", R"({"spec":{}})",
                 Edit::remove("spec.deletionStrategy.onSuccess"), R"({"spec":{}})"},
        EditCase{"remove_under_a_null_parent", R"({"spec":{"deletionStrategy":null}})",
                 Edit::remove("spec.deletionStrategy.onSuccess"),
                 R"({"spec":{"deletionStrategy":null}})"},
        EditCase{"remove_list_item", R"({"l":[1,2,3]})", Edit::remove("l[1]"), R"({"l":[1,3]})"},
        EditCase{"unclosed_bracket_refused", R"({})", Edit::set("a[b", 1LL), nullptr},
        EditCase{"empty_path_refused", R"({})", Edit::set("", 1LL), nullptr}),
    [](const testing::TestParamInfo<EditCase>& i) { return std::string(i.param.name); });

TEST(ApplyFixes, AppliesEveryFindingsEditsInOrderAndCountsRepeatsOnce) {
  json::Document d = doc(R"({"spec":{"shutdownAfterJobFinishes":true,"ttlSecondsAfterFinished":60}})");
  policy::Verdict v;
  v.allowed = false;
  v.denials = {
      finding(RuleId::kReapSelf, "spec.deletionStrategy.deletionRules",
              {Edit::set("spec.shutdownAfterJobFinishes", false),
               Edit::remove("spec.ttlSecondsAfterFinished"), Edit::remove("spec.deletionStrategy"),
               Edit::set("spec.deletionStrategy.deletionRules[0].policy", std::string("DeleteSelf"))}),
      // The same edit from another rule: applied once, no contradiction.
      finding(RuleId::kKuberaySchema, "spec.shutdownAfterJobFinishes",
              {Edit::set("spec.shutdownAfterJobFinishes", false)}),
      finding(RuleId::kImageContract, "spec.image", {}),
  };
  v.warnings = {finding(RuleId::kReapTtl, "spec.ttlSecondsAfterFinished", {},
                        Finding::Kind::kAdvisory)};
  Result<FixOutcome> out = apply_fixes(d, v);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(text(d),
            R"({"spec":{"shutdownAfterJobFinishes":false,"deletionStrategy":{"deletionRules":[{"policy":"DeleteSelf"}]}}})");
  EXPECT_EQ(out.value().edits, 4u);
  // The image is the tenant's to change; the advisory asks for no change.
  ASSERT_EQ(out.value().unfixed.size(), 1u);
  EXPECT_EQ(out.value().unfixed[0]->rule, RuleId::kImageContract);
}

TEST(ApplyFixes, ContradictingFindingsAreRefusedNamingBothAndChangeNothing) {
  const char* before = R"({"spec":{"suspend":true}})";
  json::Document d = doc(before);
  policy::Verdict v;
  v.denials = {
      finding(RuleId::kReapSelf, "spec.shutdownAfterJobFinishes",
              {Edit::set("spec.shutdownAfterJobFinishes", false)}),
      finding(RuleId::kKuberaySchema, "spec.suspend",
              {Edit::set("spec.shutdownAfterJobFinishes", true)}),
  };
  Result<FixOutcome> out = apply_fixes(d, v);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("contradict"), std::string::npos);
  EXPECT_NE(out.error().message.find("[reap-self]"), std::string::npos) << out.error().message;
  EXPECT_NE(out.error().message.find("[kuberay-schema]"), std::string::npos);
  EXPECT_EQ(text(d), before);
}

TEST(ApplyFixes, AnEditInsideAFieldAnotherFindingRewritesContradicts) {
  json::Document d = doc(R"({"spec":{"deletionStrategy":{"onSuccess":{}}}})");
  policy::Verdict v;
  v.denials = {
      finding(RuleId::kReapSelf, "spec.deletionStrategy", {Edit::remove("spec.deletionStrategy")}),
      finding(RuleId::kKuberaySchema, "spec.deletionStrategy.onFailure",
              {Edit::set("spec.deletionStrategy.onFailure.policy", std::string("DeleteSelf"))}),
  };
  EXPECT_FALSE(apply_fixes(d, v).ok());
}

TEST(ApplyFixes, AnEditThatCannotBeAppliedLeavesTheObjectAsItWas) {
  const char* before = R"({"spec":{"rayClusterSpec":"not a mapping"}})";
  json::Document d = doc(before);
  policy::Verdict v;
  v.denials = {finding(RuleId::kBackoffLimit, "spec.backoffLimit", {Edit::set("spec.backoffLimit", 0LL)}),
               finding(RuleId::kKuberaySchema, "spec.rayClusterSpec.suspend",
                       {Edit::set("spec.rayClusterSpec.suspend", false)})};
  Result<FixOutcome> out = apply_fixes(d, v);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("[kuberay-schema]"), std::string::npos) << out.error().message;
  EXPECT_EQ(text(d), before);
}

}  // namespace
}  // namespace rjg::admission
