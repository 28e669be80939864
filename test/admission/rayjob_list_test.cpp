// decode_rayjob_list and parse_rfc3339: well-formed pages decode to typed candidates; each class
// of malformed input gives kInvalidArgument naming the JSON path.
#include "admission/rayjob_list.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rjg::admission {
namespace {

constexpr const char* kPage = R"({
  "apiVersion": "ray.io/v1", "kind": "RayJobList",
  "metadata": {"resourceVersion": "42", "continue": "tok/1=="},
  "items": [
    {"apiVersion": "ray.io/v1", "kind": "RayJob",
     "metadata": {"name": "rj-1", "namespace": "tenant-a", "uid": "u-1",
                  "annotations": {"rayjob-guard.io/ttl-after-success": "3",
                                  "rayjob-guard.io/ttl-after-failure": "8"}},
     "spec": {"entrypoint": "python -c 'print(1)'", "shutdownAfterJobFinishes": true},
     "status": {"jobStatus": "FAILED", "jobDeploymentStatus": "Failed",
                "endTime": "2026-11-29T15:07:29Z", "message": "boom", "failed": 0}},
    {"metadata": {"name": "rj-2", "namespace": "tenant-b", "uid": "u-2",
                  "deletionTimestamp": "2026-11-29T15:08:00Z"}},
    {"metadata": {"name": "rj-3", "namespace": "tenant-a", "uid": "u-3", "annotations": null},
     "status": {"jobStatus": "RUNNING", "endTime": null}}
  ]
})";

TEST(RayJobList, DecodesAPage) {
  Result<RayJobListPage> page = decode_rayjob_list(kPage);
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_EQ(page.value().continue_token, "tok/1==");
  ASSERT_EQ(page.value().items.size(), 3u);
  const policy::ReapCandidate& a = page.value().items[0];
  EXPECT_EQ(a.name, "rj-1");
  EXPECT_EQ(a.namespace_, "tenant-a");
  EXPECT_EQ(a.uid, "u-1");
  EXPECT_EQ(a.annotations.at("rayjob-guard.io/ttl-after-failure"), "8");
  EXPECT_EQ(a.job_status, "FAILED");
  EXPECT_EQ(a.job_deployment_status, "Failed");
  EXPECT_EQ(a.message, "boom");
  ASSERT_TRUE(a.end_time.has_value());
  EXPECT_EQ(*a.end_time, 1'795'964'849);  // date -d 2026-11-29T15:07:29Z +%s
  EXPECT_FALSE(a.being_deleted);
  const policy::ReapCandidate& b = page.value().items[1];
  EXPECT_TRUE(b.being_deleted);
  EXPECT_FALSE(b.job_status.has_value());
  EXPECT_FALSE(b.end_time.has_value());
  const policy::ReapCandidate& c = page.value().items[2];
  EXPECT_TRUE(c.annotations.empty());
  EXPECT_EQ(c.job_status, "RUNNING");
  EXPECT_FALSE(c.end_time.has_value());
}

TEST(RayJobList, LastPageHasNoContinue) {
  Result<RayJobListPage> page =
      decode_rayjob_list(R"({"kind":"RayJobList","metadata":{},"items":[]})");
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_TRUE(page.value().continue_token.empty());
  EXPECT_TRUE(page.value().items.empty());
}

struct Bad {
  std::string label;
  std::string json;
  std::string want;  // substring of the error message: the path or the class of fault
};

std::string item(const std::string& metadata, const std::string& rest = "") {
  return R"({"kind":"RayJobList","items":[{"metadata":)" + metadata + rest + "}]}";
}
const std::string kMeta = R"({"name":"a","namespace":"n","uid":"u"})";

TEST(RayJobList, MalformedInputNamesThePath) {
  const std::vector<Bad> cases = {
      {"not json", "{", "RayJobList: "},
      {"trailing garbage", R"({"kind":"RayJobList","items":[]} x)", "RayJobList: "},
      {"top level array", "[]", "expected a RayJobList object, got array"},
      {"wrong kind", R"({"kind":"RayJob","items":[]})",
       "kind: expected \"RayJobList\", got \"RayJob\""},
      {"no kind", R"({"items":[]})", "kind: expected \"RayJobList\", got nothing"},
      {"kind not string", R"({"kind":7,"items":[]})", "kind: expected"},
      {"metadata not object", R"({"kind":"RayJobList","metadata":[],"items":[]})", "metadata"},
      {"continue not string", R"({"kind":"RayJobList","metadata":{"continue":1},"items":[]})",
       "metadata.continue"},
      {"items missing", R"({"kind":"RayJobList"})", "items: required array is missing"},
      {"items not array", R"({"kind":"RayJobList","items":{}})", "items"},
      {"item not object", R"({"kind":"RayJobList","items":[1]})", "items[0]"},
      {"item metadata missing", R"({"kind":"RayJobList","items":[{}]})",
       "items[0].metadata: required object is missing"},
      {"item metadata not object", item("\"x\""), "items[0].metadata"},
      {"name missing", item(R"({"namespace":"n","uid":"u"})"),
       "items[0].metadata.name: required string is missing"},
      {"namespace not string", item(R"({"name":"a","namespace":1,"uid":"u"})"),
       "items[0].metadata.namespace"},
      {"uid empty", item(R"({"name":"a","namespace":"n","uid":""})"),
       "items[0].metadata.uid: required string is missing"},
      {"deletionTimestamp not string",
       item(R"({"name":"a","namespace":"n","uid":"u","deletionTimestamp":true})"),
       "items[0].metadata.deletionTimestamp"},
      {"annotations not object", item(R"({"name":"a","namespace":"n","uid":"u","annotations":[]})"),
       "items[0].metadata.annotations"},
      {"annotation value not string",
       item(R"({"name":"a","namespace":"n","uid":"u","annotations":{"k":3}})"),
       "items[0].metadata.annotations"},
      {"status not object", item(kMeta, R"(,"status":"done")"), "items[0].status"},
      {"jobStatus not string", item(kMeta, R"(,"status":{"jobStatus":1})"),
       "items[0].status.jobStatus"},
      {"jobDeploymentStatus not string", item(kMeta, R"(,"status":{"jobDeploymentStatus":{}})"),
       "items[0].status.jobDeploymentStatus"},
      {"message not string", item(kMeta, R"(,"status":{"message":[]})"), "items[0].status.message"},
      {"endTime not string", item(kMeta, R"(,"status":{"endTime":1796051249})"),
       "items[0].status.endTime"},
      {"endTime not rfc3339", item(kMeta, R"(,"status":{"endTime":"yesterday"})"),
       "items[0].status.endTime: \"yesterday\" is not an RFC 3339 date-time"},
  };
  for (const Bad& c : cases) {
    SCOPED_TRACE(c.label);
    Result<RayJobListPage> r = decode_rayjob_list(c.json);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(r.error().message.find(c.want), std::string::npos) << r.error().message;
  }
}

TEST(Rfc3339, Parses) {
  struct Ok {
    const char* text;
    std::int64_t want;
  };
  for (const Ok& c : std::vector<Ok>{
           {"1970-01-01T00:00:00Z", 0},
           {"2026-11-29T15:07:29Z", 1'795'964'849},
           {"2026-11-29T15:07:29.999999Z", 1'795'964'849},
           {"2026-11-29t15:07:29z", 1'795'964'849},
           {"2026-11-29T16:07:29+01:00", 1'795'964'849},
           {"2026-11-29T14:37:29-00:30", 1'795'964'849},
           {"2024-02-29T00:00:00Z", 1'709'164'800},
       }) {
    SCOPED_TRACE(c.text);
    Result<std::int64_t> r = parse_rfc3339(c.text);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r.value(), c.want);
  }
}

TEST(Rfc3339, Refuses) {
  for (const char* text :
       {"", "2026-11-29", "2026-11-29T15:07:29", "2026-11-29 15:07:29Z", "2026-13-01T00:00:00Z",
        "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-11-29T24:00:00Z",
        "2026-11-29T15:60:00Z", "2026-11-29T15:07:29.Z", "2026-11-29T15:07:29+0100",
        "2026-11-29T15:07:29Zjunk", "+2026-11-29T15:07:29Z", "2026-11-29T15:07:29+25:00"}) {
    SCOPED_TRACE(text);
    Result<std::int64_t> r = parse_rfc3339(text);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace rjg::admission
