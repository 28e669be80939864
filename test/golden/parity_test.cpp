// Identity parity: one object reviewed under five very different userInfo values gives bodies
// that are identical except for the echoed uid. The notebook identity and the API identity
// always get the same answer.
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>

#include "admission/json_reader.hpp"
#include "admission/review.hpp"
#include "golden_files.hpp"

namespace rjg::golden {
namespace {

namespace fs = std::filesystem;

std::string with_identity(const std::string& request, const std::string& uid,
                          const std::string& user_info) {
  auto doc = admission::json::parse(request);
  EXPECT_TRUE(doc.ok());
  auto info = admission::json::parse(user_info);
  EXPECT_TRUE(info.ok());
  rapidjson::Document& d = doc.value();
  rapidjson::Value copy(info.value(), d.GetAllocator());
  d["request"]["userInfo"] = copy;
  d["request"]["uid"].SetString(uid.c_str(), static_cast<rapidjson::SizeType>(uid.size()),
                                d.GetAllocator());
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  d.Accept(w);
  return b.GetString();
}

void check_parity(const std::string& case_name) {
  std::optional<std::string> request =
      read_file(fs::path(RJG_GOLDEN_CASES_DIR) / case_name / "request.json");
  ASSERT_TRUE(request.has_value()) << case_name;
  Result<admission::LoadedPolicy> policy =
      admission::decode_policy(admission::default_policy_yaml());
  ASSERT_TRUE(policy.ok());
  const std::vector<std::string> identities = {
      R"({"username":"system:serviceaccount:tenant-a:jupyter-notebook","uid":"1",)"
      R"("groups":["system:serviceaccounts","system:serviceaccounts:tenant-a","system:authenticated"]})",
      R"({"username":"api-submitter@tenant-a.example.com","groups":["tenant-a-admins"],)"
      R"("extra":{"scopes":["rayjobs.write"]}})",
      R"({"username":"system:admin","groups":["system:masters"]})",
      R"({"username":"","groups":[]})",
      R"({"username":"eve\n\u0000\"quoted\"","uid":"x","groups":["system:unauthenticated"],)"
      R"("extra":{"a":["b","c"]}})",
  };
  std::string first;
  for (std::size_t i = 0; i < identities.size(); ++i) {
    const std::string uid = "uid-" + std::to_string(i);
    Result<admission::ReviewResult> r =
        admission::review(with_identity(*request, uid, identities[i]), policy.value());
    ASSERT_TRUE(r.ok()) << r.error().message;
    std::string body = r.value().body;
    const std::string echoed = "\"uid\":\"" + uid + "\"";
    const auto at = body.find(echoed);
    ASSERT_NE(at, std::string::npos);
    body.replace(at, echoed.size(), "\"uid\":\"UID\"");
    EXPECT_EQ(body.find(uid), std::string::npos);
    if (i == 0) {
      first = body;
    } else {
      EXPECT_EQ(body, first) << "identity " << i << " changed the answer for " << case_name;
    }
  }
}

TEST(IdentityParity, DeniedObjectGetsTheSameAnswerForEveryIdentity) {
  check_parity("deny-several-rules");
}

TEST(IdentityParity, AllowedObjectGetsTheSameAnswerForEveryIdentity) {
  check_parity("allow-compliant");
}

}  // namespace
}  // namespace rjg::golden
