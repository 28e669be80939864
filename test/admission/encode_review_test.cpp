// Tests admission/encode_review and review(): echo, no patch, message assembly, warning limits,
// audit annotation keys.
#include "admission/encode_review.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "admission/json_reader.hpp"
#include "admission/review.hpp"
#include "review_fixture.hpp"

namespace rjg::admission {
namespace {

using policy::Finding;
using policy::RuleId;

Finding finding(RuleId rule, std::string field, std::string message) {
  return Finding{rule, Finding::Kind::kViolation, std::move(field), std::move(message), {}};
}

json::Document parsed(const std::string& body) {
  auto r = json::parse(body);
  EXPECT_TRUE(r.ok()) << body;
  return r.ok() ? std::move(r).value() : json::Document();
}

std::size_t runes(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) {
    n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }
  return n;
}

TEST(EncodeReview, AllowEchoesUidAndHasNoPatch) {
  policy::Verdict v;
  const std::string body = encode_review({"uid-1", "job", "abcd"}, v);
  EXPECT_EQ(body,
            R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":)"
            R"({"uid":"uid-1","allowed":true,"auditAnnotations":{"rayjob-guard-policy":"abcd"}}})");
  EXPECT_EQ(body.find("patch"), std::string::npos);
}

TEST(EncodeReview, DenyAssemblesMessageAndCauses) {
  policy::Verdict v;
  v.allowed = false;
  v.denials = {
      finding(RuleId::kBackoffLimit, "spec.backoffLimit", "5 exceeds 2; set it to 2 or less"),
      finding(RuleId::kReapTtl, "", "no TTL; add one")};
  v.warnings = {finding(RuleId::kImagePinned, "spec.x", "unpinned; pin it")};
  json::Document doc = parsed(encode_review({"u", "job-a", "h"}, v));
  const json::Value& resp = doc["response"];
  EXPECT_FALSE(resp["allowed"].GetBool());
  const json::Value& st = resp["status"];
  EXPECT_STREQ(st["status"].GetString(), "Failure");
  EXPECT_EQ(st["code"].GetInt(), 403);
  EXPECT_STREQ(st["reason"].GetString(), "Forbidden");
  EXPECT_STREQ(st["message"].GetString(),
               "[backoff-limit] spec.backoffLimit: 5 exceeds 2; set it to 2 or less\n"
               "[reap-ttl] no TTL; add one");
  EXPECT_STREQ(st["details"]["name"].GetString(), "job-a");
  EXPECT_STREQ(st["details"]["group"].GetString(), "ray.io");
  EXPECT_STREQ(st["details"]["kind"].GetString(), "rayjobs");
  const json::Value& causes = st["details"]["causes"];
  ASSERT_EQ(causes.Size(), 2u);
  EXPECT_STREQ(causes[0]["reason"].GetString(), "FieldValueForbidden");
  EXPECT_STREQ(causes[0]["message"].GetString(),
               "[backoff-limit] 5 exceeds 2; set it to 2 or less");
  EXPECT_STREQ(causes[0]["field"].GetString(), "spec.backoffLimit");
  EXPECT_FALSE(causes[1].HasMember("field"));
  ASSERT_EQ(resp["warnings"].Size(), 1u);
  EXPECT_STREQ(resp["warnings"][0].GetString(), "[image-pinned] spec.x: unpinned; pin it");
  const json::Value& ann = resp["auditAnnotations"];
  EXPECT_STREQ(ann["rayjob-guard-denied"].GetString(), "backoff-limit,reap-ttl");
  EXPECT_STREQ(ann["rayjob-guard-warned"].GetString(), "image-pinned");
  EXPECT_FALSE(resp.HasMember("patch"));
  EXPECT_FALSE(resp.HasMember("patchType"));
}

TEST(EncodeReview, AuditAnnotationKeysAreValidQualifiedNames) {
  policy::Verdict v;
  v.allowed = false;
  v.denials = {finding(RuleId::kQuotaFit, "spec", "x")};
  v.warnings = {finding(RuleId::kImagePinned, "spec", "y")};
  json::Document doc = parsed(encode_review({"u", "n", "h"}, v));
  const std::regex key("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  const json::Value& ann = doc["response"]["auditAnnotations"];
  EXPECT_EQ(ann.MemberCount(), 3u);
  for (auto it = ann.MemberBegin(); it != ann.MemberEnd(); ++it) {
    const std::string k = it->name.GetString();
    EXPECT_LE(k.size(), 63u);
    EXPECT_EQ(k.find('/'), std::string::npos);
    EXPECT_TRUE(std::regex_match(k, key)) << k;
  }
}

TEST(EncodeReview, LongWarningsContinueOnUtf8Boundaries) {
  std::string long_text;
  for (int i = 0; i < 100; ++i) {
    long_text += "é";  // two bytes each, no space to break at
  }
  std::vector<std::string> w = build_warnings({finding(RuleId::kImagePinned, "spec.f", long_text)});
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(runes(w[0]), kMaxWarningRunes);
  EXPECT_EQ(w[0].rfind("[image-pinned] spec.f: é", 0), 0u);
  EXPECT_EQ(w[1].rfind("... é", 0), 0u);
  // Nothing is lost: the pieces put back together are the whole text.
  EXPECT_EQ(w[0] + w[1].substr(4), "[image-pinned] spec.f: " + long_text);
  for (const std::string& piece : w) {
    EXPECT_TRUE(json::parse("[\"" + piece + "\"]").ok()) << piece;  // valid UTF-8
  }
}

TEST(EncodeReview, LongWarningsBreakAtSpacesAndKeepWhatToDo) {
  const std::string text =
      "activeDeadlineSeconds is not set, so a hung run holds count/rayjobs.ray.io forever; set "
      "activeDeadlineSeconds to at most 86400";
  std::vector<std::string> w =
      build_warnings({finding(RuleId::kActiveDeadline, "spec.activeDeadlineSeconds", text)});
  ASSERT_EQ(w.size(), 2u);
  EXPECT_LE(runes(w[0]), kMaxWarningRunes);
  EXPECT_NE(w[0].back(), ' ');
  EXPECT_EQ(w[1].rfind("... ", 0), 0u);
  EXPECT_NE(w[1].find("at most 86400"), std::string::npos);
  EXPECT_EQ(w[0] + " " + w[1].substr(4), "[active-deadline] spec.activeDeadlineSeconds: " + text);
}

TEST(EncodeReview, VeryLongWarningsStopAfterFourPieces) {
  std::vector<std::string> w =
      build_warnings({finding(RuleId::kImagePinned, "spec", std::string(2000, 'x'))});
  ASSERT_EQ(w.size(), 4u);
  for (const std::string& piece : w) {
    EXPECT_LE(runes(piece), kMaxWarningRunes);
  }
  EXPECT_EQ(w.back().substr(w.back().size() - 3), "...");
}

TEST(EncodeReview, WarningControlCharactersAreEscaped) {
  // The apiserver drops a warning with a control character; kubectl prints the rest raw.
  std::vector<std::string> w = build_warnings({finding(RuleId::kImagePinned, "spec",
                                                       "line1\nline2\ttab\x7f"
                                                       "del\xc2\x85nel \x1b[2J \xe2\x80\xae")});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "[image-pinned] spec: line1\\nline2\\ttab\\x7fdel\\u0085nel \\x1b[2J \\u202e");
}

TEST(EncodeReview, DenyMessageAndCausesEscapeControlCharacters) {
  // What kubectl prints after "Error from server (Forbidden):" is the deny message as it is.
  const policy::Findings denials = {
      finding(RuleId::kImageContract, "spec.c[0].image", "\"ray\x1b]0;pwned\x07\" is refused"),
      finding(RuleId::kReapSelf, "metadata.annotations[a\rb]", "missing\xe2\x80\xae")};
  EXPECT_EQ(deny_message(denials),
            "[image-contract] spec.c[0].image: \"ray\\x1b]0;pwned\\x07\" is refused\n"
            "[reap-self] metadata.annotations[a\\rb]: missing\\u202e");
  policy::Verdict v;
  v.allowed = false;
  v.denials = denials;
  const std::string body = encode_review({"u", "n", "h"}, v);
  const json::Document d = parsed(body);
  const auto& causes = d["response"]["status"]["details"]["causes"];
  EXPECT_STREQ(causes[0]["message"].GetString(),
               "[image-contract] \"ray\\x1b]0;pwned\\x07\" is refused");
  EXPECT_STREQ(causes[1]["message"].GetString(), "[reap-self] missing\\u202e");
}

TEST(EncodeReview, DuplicateWarningsAreDropped) {
  Finding f = finding(RuleId::kImagePinned, "spec", "same");
  std::vector<std::string> w =
      build_warnings({f, f, finding(RuleId::kImagePinned, "spec", "other"), f});
  EXPECT_EQ(w,
            (std::vector<std::string>{"[image-pinned] spec: same", "[image-pinned] spec: other"}));
}

TEST(EncodeReview, WarningsStayWithinTheBudget) {
  policy::Findings many;
  for (int i = 0; i < 100; ++i) {
    many.push_back(
        finding(RuleId::kImagePinned, "spec.c[" + std::to_string(i) + "]", std::string(150, 'x')));
  }
  std::vector<std::string> w = build_warnings(many);
  std::size_t total = 0;
  std::size_t firsts = 0;
  for (const std::string& s : w) {
    total += runes(s);
    EXPECT_LE(runes(s), kMaxWarningRunes);
    firsts += s.rfind("[image-pinned]", 0) == 0 ? 1u : 0u;
  }
  EXPECT_LE(total, kWarningBudgetRunes);
  ASSERT_GT(w.size(), 1u);
  // Each finding is two pieces (about 175 runes): whole findings only, then the final line.
  EXPECT_EQ(w.size(), firsts * 2 + 1);
  EXPECT_EQ(w.back(), std::to_string(100 - firsts) + " more warnings: run rayjob-guard check");
  EXPECT_GE(firsts, 20u);
}

TEST(EncodeReview, DeterministicOutput) {
  policy::Verdict v;
  v.allowed = false;
  v.denials = {finding(RuleId::kQuotaFit, "spec", "x")};
  EXPECT_EQ(encode_review({"u", "n", "h"}, v), encode_review({"u", "n", "h"}, v));
}

TEST(Review, EchoesAndSummarises) {
  Result<LoadedPolicy> policy = decode_policy(default_policy_yaml());
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  const std::string body = testing::review_json(testing::compliant_object_json(), "CREATE", "null",
                                                "uid-echo", R"({"username":"bob"})");
  Result<ReviewResult> r = review(body, policy.value());
  ASSERT_TRUE(r.ok()) << r.error().message;
  json::Document doc = parsed(r.value().body);
  EXPECT_STREQ(doc["apiVersion"].GetString(), "admission.k8s.io/v1");
  EXPECT_STREQ(doc["kind"].GetString(), "AdmissionReview");
  EXPECT_STREQ(doc["response"]["uid"].GetString(), "uid-echo");
  EXPECT_STREQ(doc["response"]["auditAnnotations"]["rayjob-guard-policy"].GetString(),
               policy.value().hash.c_str());
  EXPECT_EQ(r.value().body.find("bob"), std::string::npos);
  const ReviewSummary& s = r.value().summary;
  EXPECT_EQ(s.uid, "uid-echo");
  EXPECT_EQ(s.username, "bob");
  EXPECT_EQ(s.operation, "CREATE");
  EXPECT_EQ(s.namespace_, "tenant-a");
  EXPECT_EQ(s.name, "sample-job");
  EXPECT_EQ(s.kind, "RayJob");
  EXPECT_EQ(s.allowed, doc["response"]["allowed"].GetBool());
}

TEST(Review, BadInputIsAnError) {
  Result<LoadedPolicy> policy = decode_policy(default_policy_yaml());
  ASSERT_TRUE(policy.ok());
  Result<ReviewResult> r = review("{", policy.value());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace rjg::admission
