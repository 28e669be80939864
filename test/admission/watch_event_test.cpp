// The list and watch wire formats: every event type, a Status error, the list's version and
// continue token, and the paths of what is refused.
#include "admission/watch_event.hpp"

#include <gtest/gtest.h>

namespace rjg::admission {
namespace {

TEST(WatchEvent, DecodesEveryType) {
  const std::string q =
      R"({"metadata":{"namespace":"a","name":"q","resourceVersion":"7"},"spec":{"hard":{"pods":"3"}}})";
  for (const auto& [type, want] : {std::pair{"ADDED", WatchEvent::Type::kAdded},
                                   std::pair{"MODIFIED", WatchEvent::Type::kModified},
                                   std::pair{"DELETED", WatchEvent::Type::kDeleted}}) {
    Result<WatchEvent> e =
        decode_watch_event(std::string(R"({"type":")") + type + R"(","object":)" + q + "}");
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(e.value().type, want);
    EXPECT_EQ(e.value().object.namespace_, "a");
    EXPECT_EQ(e.value().object.name, "q");
    EXPECT_EQ(e.value().resource_version, "7");
    EXPECT_EQ(e.value().object.json, q);  // compact JSON of the object
  }
  Result<WatchEvent> b = decode_watch_event(
      R"({"type":"BOOKMARK","object":{"kind":"ResourceQuota","metadata":{"resourceVersion":"12"}}})");
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b.value().type, WatchEvent::Type::kBookmark);
  EXPECT_EQ(b.value().resource_version, "12");
  Result<WatchEvent> gone = decode_watch_event(
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old"}})");
  ASSERT_TRUE(gone.ok()) << gone.error().message;
  EXPECT_EQ(gone.value().type, WatchEvent::Type::kError);
  EXPECT_EQ(gone.value().error_code, 410);
  EXPECT_EQ(gone.value().error_message, "too old");
}

TEST(WatchEvent, RefusesWhatIsNotAnEventNamingThePath) {
  for (const auto& [text, want] : {
           std::pair{R"({"type":"ADDED"})", "object: required object is missing"},
           std::pair{R"({"type":"RENAMED","object":{}})", "type: unknown watch event type"},
           std::pair{R"({"type":"ADDED","object":{"metadata":{}}})",
                     "object.metadata.name: required string is missing"},
           std::pair{R"({"type":"ADDED","object":{"metadata":{"name":3}}})", "object.metadata.name"},
           std::pair{R"(not json)", ""},
       }) {
    Result<WatchEvent> e = decode_watch_event(text);
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_NE(e.error().message.find(want), std::string::npos) << e.error().message;
  }
}

TEST(ObjectList, VersionContinueAndItems) {
  Result<ObjectListPage> p = decode_object_list(
      R"({"kind":"ResourceQuotaList","metadata":{"resourceVersion":"40","continue":"t"},)"
      R"("items":[{"metadata":{"namespace":"a","name":"q"}},{"metadata":{"namespace":"b","name":"r"}}]})");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p.value().resource_version, "40");
  EXPECT_EQ(p.value().continue_token, "t");
  ASSERT_EQ(p.value().items.size(), 2u);
  EXPECT_EQ(p.value().items[1].namespace_, "b");
  EXPECT_EQ(p.value().items[1].json, R"({"metadata":{"namespace":"b","name":"r"}})");
  Result<ObjectListPage> empty = decode_object_list(R"({"metadata":{"resourceVersion":"3"}})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.value().items.empty());
  Result<ObjectListPage> bad = decode_object_list(R"({"items":[{"metadata":{"name":""}}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "items[0].metadata.name: required string is missing");
}

}  // namespace
}  // namespace rjg::admission
