// Tests admission/fix: literal edits applied to a manifest, and what makes fixes contradict.
#include "admission/fix.hpp"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <regex>
#include <string>

#include "admission/check.hpp"
#include "admission/policy_file.hpp"

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

TEST(ApplyFixes, ARemovalSettlesTheEditsInsideTheRemovedField) {
  // operatorDeletesRayJob on 1.6: reap-self removes deletionStrategy, kuberay-schema would mend
  // a rule inside it. The removal wins: the field the inner fix is about is gone. (Refused as a
  // contradiction before, so `check --fix` exited 2 on such a manifest.)
  json::Document d = doc(
      R"({"spec":{"deletionStrategy":{"deletionRules":[{"policy":"Nope"}]},"backoffLimit":5}})");
  policy::Verdict v;
  v.denials = {
      finding(RuleId::kKuberaySchema, "spec.deletionStrategy.deletionRules[0].policy",
              {Edit::set("spec.deletionStrategy.deletionRules[0].policy", std::string("DeleteSelf"))}),
      finding(RuleId::kReapSelf, "spec.deletionStrategy", {Edit::remove("spec.deletionStrategy")}),
      finding(RuleId::kKuberaySchema, "spec.deletionStrategy.deletionRules[0]",
              {Edit::remove("spec.deletionStrategy.deletionRules[0]")}),
      finding(RuleId::kBackoffLimit, "spec.backoffLimit", {Edit::set("spec.backoffLimit", 2LL)}),
  };
  Result<FixOutcome> out = apply_fixes(d, v);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(text(d), R"({"spec":{"backoffLimit":2}})");
  EXPECT_EQ(out.value().edits, 2u);
}

TEST(ApplyFixes, AFieldWrittenAnewStillContradictsItsRemoval) {
  // reap-self writes deletionStrategy anew (remove, then set inside); a finding that only
  // removes it wants something else.
  json::Document d = doc(R"({"spec":{"deletionStrategy":{"onSuccess":{}}}})");
  policy::Verdict v;
  v.denials = {
      finding(RuleId::kReapSelf, "spec.deletionStrategy",
              {Edit::remove("spec.deletionStrategy"),
               Edit::set("spec.deletionStrategy.deletionRules[0].policy", std::string("DeleteSelf"))}),
      finding(RuleId::kKuberaySchema, "spec.deletionStrategy", {Edit::remove("spec.deletionStrategy")}),
  };
  EXPECT_FALSE(apply_fixes(d, v).ok());
  // Setting a field and setting a field inside it still contradict.
  v.denials = {
      finding(RuleId::kReapSelf, "spec.deletionStrategy",
              {Edit::set("spec.deletionStrategy", std::string("x"))}),
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

// Pairs of rules whose fixes used to undo each other, contradict, or need a second round, each
// with the policy it was found under (the property test test/conformance/fix_convergence_test.py
// found them): one round of `check --fix` now reaches a manifest no literal fix changes again.
struct RoundCase {
  const char* name;
  const char* version;
  const char* mode;
  const char* gate;  // RayJobDeletionPolicy: "true", "false" or "" (the version's default)
  const char* spec;  // JSON members of spec besides entrypoint and rayClusterSpec
  bool cluster = true;
};

class OneRound : public testing::TestWithParam<RoundCase> {};

// Returns the manifest with one round of fixes applied; `fixable` says whether a finding of it
// carried a literal fix (each is reported as a failure when `last`).
std::string fixed_once(const std::string& manifest, const LoadedPolicy& policy, bool& fixable,
                       bool last) {
  CheckOptions options;
  options.namespace_ = "tenant-a";
  Result<std::vector<CheckedObject>> checked = check_manifests(manifest, options, policy);
  EXPECT_TRUE(checked.ok()) << checked.error().message;
  if (!checked.ok()) {
    return "";
  }
  CheckedObject& o = checked.value().front();
  fixable = false;
  for (const policy::Findings* list : {&o.verdict.denials, &o.verdict.warnings}) {
    for (const Finding& f : *list) {
      if (!f.fix.empty()) {
        fixable = true;
        if (last) {
          ADD_FAILURE() << "left with a literal fix: [" << policy::rule_id_name(f.rule) << "] "
                        << f.field << ": " << f.message;
        }
      }
    }
  }
  Result<FixOutcome> out = apply_fixes(o.source, o.verdict);
  EXPECT_TRUE(out.ok()) << out.error().message;
  return text(o.source);
}

TEST_P(OneRound, ReachesAStateNoFixChanges) {
  const RoundCase& c = GetParam();
  std::string yaml(default_policy_yaml());
  yaml = std::regex_replace(yaml, std::regex("\n  version: \"1.6\""),
                            std::string("\n  version: \"") + c.version + "\"" +
                                (*c.gate ? std::string("\n  featureGates:\n    RayJobDeletionPolicy: ") + c.gate
                                         : std::string()));
  yaml = std::regex_replace(yaml, std::regex("\n  mode: deletionRules"),
                            std::string("\n  mode: ") + c.mode);
  Result<LoadedPolicy> policy = decode_policy(yaml);
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  const std::string cluster =
      R"("rayClusterSpec":{"headGroupSpec":{"rayStartParams":{},"template":{"spec":{"containers":[)"
      R"({"name":"ray-head","image":"rayproject/ray:2.52.0","resources":{"requests":{"cpu":"1",)"
      R"("memory":"2Gi"},"limits":{"cpu":"1","memory":"2Gi"}}}]}}}},)";
  const std::string manifest =
      R"({"apiVersion":"ray.io/v1","kind":"RayJob","metadata":{"name":"j","namespace":"tenant-a"},)"
      R"("spec":{"entrypoint":"python x.py",)" +
      (c.cluster ? cluster : std::string()) + R"("runtimeEnvYAML":"pip: [boto3>=1.35.0]",)" +
      c.spec + "}}";
  // Round 1 fixes what it finds; after it, no finding has a literal fix left, and round 2
  // changes nothing.
  bool fixable = true;
  const std::string once = fixed_once(manifest, policy.value(), fixable, false);
  EXPECT_TRUE(fixable) << "the case must need a fix";
  SCOPED_TRACE(once);
  const std::string twice = fixed_once(once, policy.value(), fixable, true);
  EXPECT_FALSE(fixable);
  EXPECT_EQ(twice, once);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OneRound,
    testing::Values(
        // reap-self deferred to cluster-selector, whose fix removes clusterSelector; the deletion
        // setup the mode asks for came only in round 2.
        RoundCase{"selector_with_own_cluster_deletion_policy", "1.4", "deletionPolicy", "true",
                  R"("clusterSelector":{"ray.io/cluster":"shared"},"activeDeadlineSeconds":60)"},
        RoundCase{"selector_with_own_cluster_operator_deletes", "1.2", "operatorDeletesRayJob", "",
                  R"("clusterSelector":{"ray.io/cluster":"shared"},"activeDeadlineSeconds":60)"},
        // reaper: reap-self set shutdownAfterJobFinishes: true, kuberay-schema then refused it next
        // to deletion rules (and set it back), or next to DeleteNone.
        RoundCase{"reaper_deletion_rules_without_shutdown", "1.6", "reaper", "",
                  R"("activeDeadlineSeconds":60,"deletionStrategy":{"deletionRules":[{"policy":)"
                  R"("DeleteSelf","condition":{"jobStatus":"SUCCEEDED","ttlSeconds":10}}]})"},
        RoundCase{"reaper_delete_none", "1.4", "reaper", "true",
                  R"("activeDeadlineSeconds":60,"deletionPolicy":"DeleteNone")"},
        RoundCase{"reaper_legacy_delete_none", "1.6", "reaper", "",
                  R"("activeDeadlineSeconds":60,"deletionStrategy":{"onSuccess":{"policy":)"
                  R"("DeleteNone"},"onFailure":{"policy":"DeleteSelf"}})"},
        // operatorDeletesRayJob: kuberay-schema set deletionPolicy: DeleteSelf where reap-self
        // removes it (contradiction, exit 2).
        RoundCase{"operator_deletes_delete_none", "1.4", "operatorDeletesRayJob", "true",
                  R"("activeDeadlineSeconds":60,"shutdownAfterJobFinishes":true,)"
                  R"("deletionPolicy":"DeleteNone")"},
        // ... and mended a rule inside the deletionStrategy that reap-self removes.
        RoundCase{"operator_deletes_rule_inside_removed_strategy", "1.6", "operatorDeletesRayJob",
                  "", R"("activeDeadlineSeconds":60,"shutdownAfterJobFinishes":true,)"
                  R"("deletionStrategy":{"deletionRules":[{"policy":"DeleteSelf","condition":)"
                  R"({"jobStatus":"SUCCEEDED","ttlSeconds":-1}}]})"},
        // deletionRules: kuberay-schema raised a DeleteSelf TTL to the DeleteCluster one (20),
        // reap-ttl to the policy minimum (3600): a contradiction, exit 2.
        RoundCase{"delete_self_ttl_below_cluster_and_policy", "1.6", "deletionRules", "",
                  R"("activeDeadlineSeconds":60,"deletionStrategy":{"deletionRules":[)"
                  R"({"policy":"DeleteSelf","condition":{"jobStatus":"SUCCEEDED","ttlSeconds":60}},)"
                  R"({"policy":"DeleteCluster","condition":{"jobStatus":"FAILED","ttlSeconds":20}},)"
                  R"({"policy":"DeleteSelf","condition":{"jobStatus":"FAILED","ttlSeconds":10}},)"
                  R"({"policy":"DeleteSelf","condition":{"jobDeploymentStatus":"Failed",)"
                  R"("ttlSeconds":3600}}]})"},
        // reap-ttl lowered DeleteSelf SUCCEEDED to 600, kuberay-schema raised it back to the
        // DeleteCluster 800: a cycle.
        RoundCase{"delete_self_ttl_under_a_longer_cluster_ttl", "1.6", "deletionRules", "",
                  R"("activeDeadlineSeconds":60,"deletionStrategy":{"deletionRules":[)"
                  R"({"policy":"DeleteCluster","condition":{"jobStatus":"SUCCEEDED","ttlSeconds":800}},)"
                  R"({"policy":"DeleteSelf","condition":{"jobStatus":"SUCCEEDED","ttlSeconds":900}},)"
                  R"({"policy":"DeleteSelf","condition":{"jobStatus":"FAILED","ttlSeconds":3600}},)"
                  R"({"policy":"DeleteSelf","condition":{"jobDeploymentStatus":"Failed",)"
                  R"("ttlSeconds":3600}}]})"},
        // A decreasing chain DeleteWorkers > DeleteCluster > DeleteSelf took two rounds.
        RoundCase{"decreasing_ttl_chain", "1.6", "deletionRules", "",
                  R"("activeDeadlineSeconds":60,"deletionStrategy":{"deletionRules":[)"
                  R"({"policy":"DeleteWorkers","condition":{"jobStatus":"FAILED","ttlSeconds":7200}},)"
                  R"({"policy":"DeleteCluster","condition":{"jobStatus":"FAILED","ttlSeconds":5000}},)"
                  R"({"policy":"DeleteSelf","condition":{"jobStatus":"FAILED","ttlSeconds":4000}}]})"}),
    [](const testing::TestParamInfo<RoundCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace rjg::admission
