// Tests admission/json_reader: strict parsing, depth and duplicate-key guards, typed readers.
#include "admission/json_reader.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rjg::admission::json {
namespace {

TEST(JsonReader, ParsesAnObject) {
  auto doc = parse(R"({"a":1,"b":[true,null]})");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_TRUE(doc.value().IsObject());
}

TEST(JsonReader, NotJsonReportsOffset) {
  auto doc = parse("{\"a\": tru}");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(doc.error().message.find("offset"), std::string::npos) << doc.error().message;
}

TEST(JsonReader, TruncatedIsInvalid) {
  auto doc = parse(R"({"request":{"uid":"x")");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
}

TEST(JsonReader, TrailingContentIsInvalid) {
  auto doc = parse(R"({"a":1} {"b":2})");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
}

TEST(JsonReader, EmptyInputIsInvalid) {
  auto doc = parse("");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
}

TEST(JsonReader, InvalidUtf8IsInvalid) {
  auto doc = parse("{\"a\":\"\xff\xfe\"}");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
}

TEST(JsonReader, Utf8PrePassRejectsEveryIllFormedSequence) {
  const char* bad[] = {
      "\"\xc0\xaf\"",                              // overlong '/'
      "\"\xe0\x80\xaf\"",                          // overlong, 3 bytes
      "\"\xf0\x80\x80\xaf\"",                      // overlong, 4 bytes
      "\"\xed\xa0\x80\"",                          // UTF-16 surrogate U+D800
      "\"\xf4\x90\x80\x80\"",                      // U+110000
      "\"\xf5\x80\x80\x80\"",                      // lead byte past U+10FFFF
      "\"\x80\"",                                  // stray continuation
      "\"abc\xc3\"",                               // truncated sequence
      "\"0123456789abcdef0123456789abcdef\xff\"",  // after a 16-byte ASCII run
  };
  for (const char* text : bad) {
    auto doc = parse(text);
    ASSERT_FALSE(doc.ok()) << text;
    EXPECT_NE(doc.error().message.find("invalid UTF-8"), std::string::npos) << doc.error().message;
  }
  const char* good[] = {"\"\xc3\xa9\"",         "\"\xe2\x82\xac\"",
                        "\"\xf0\x9f\x98\x80\"", "\"\xf4\x8f\xbf\xbf\"",
                        "\"\xed\x9f\xbf\"",     "\"0123456789abcdef\\\"0123456789abcdef\xc3\xa9\""};
  for (const char* text : good) {
    EXPECT_TRUE(parse(text).ok()) << text;
  }
}

TEST(JsonReader, NulBytesAreRejectedAnywhere) {
  for (const std::string& text : {std::string("{\"a\":1}\0", 8), std::string("{\"a\":\0 1}", 8),
                                  std::string("{\"a\":\"x\0y\"}", 10)}) {
    auto doc = parse(text);
    ASSERT_FALSE(doc.ok());
    EXPECT_NE(doc.error().message.find("NUL byte"), std::string::npos) << doc.error().message;
  }
}

// Raw control bytes are invalid JSON inside strings (RFC 8259 section 7) and outside them. The
// parser's SIMD string scan (RapidJSON 1.1.0) misses 0x1A-0x1F, so check_bytes() must catch them;
// tab, LF and CR are whitespace outside strings and refused by the parser inside them.
TEST(JsonReader, RawControlBytesAreRejectedInsideAndOutsideStrings) {
  for (int c = 1; c < 0x20; ++c) {
    SCOPED_TRACE(c);
    // Long enough that the byte sits inside a 16-byte block the SIMD scans would skip.
    const std::string in_string =
        "{\"k\":\"0123456789abcdef" + std::string(1, static_cast<char>(c)) + "0123456789abcdef\"}";
    EXPECT_FALSE(parse(in_string).ok());
    EXPECT_FALSE(parse_in_place(in_string).ok());
    const std::string outside = "{\"k\":" + std::string(1, static_cast<char>(c)) + "1}";
    const bool whitespace = c == '\t' || c == '\n' || c == '\r';
    EXPECT_EQ(parse(outside).ok(), whitespace);
    EXPECT_EQ(parse_in_place(outside).ok(), whitespace);
  }
  auto doc = parse_in_place("{\"k\":\"a\x1c\"}");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().message,
            "not valid JSON: control character 0x1C must be escaped (at byte offset 7)");
  EXPECT_TRUE(parse_in_place(R"({"k":"a\u001c"})").ok());  // escaped, it is fine
}

TEST(JsonReader, BracketsInsideStringsDoNotCountAsNesting) {
  const std::string text = "[\"" + std::string(5000, '[') + "\\\"\"]";
  EXPECT_TRUE(parse(text).ok());
}

TEST(JsonReader, HundredThousandNestedArraysAreRejectedWithoutCrashing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto doc = parse(deep);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(doc.error().message.find("nesting deeper than " + std::to_string(kMaxNestingDepth)),
            std::string::npos)
      << doc.error().message;
}

TEST(JsonReader, HundredThousandUnclosedArraysAreRejected) {
  auto doc = parse(std::string(100000, '['));
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
}

TEST(JsonReader, NestingAtTheLimitIsAccepted) {
  const std::string ok = std::string(kMaxNestingDepth, '[') + std::string(kMaxNestingDepth, ']');
  EXPECT_TRUE(parse(ok).ok());
  const std::string over =
      std::string(kMaxNestingDepth + 1, '[') + std::string(kMaxNestingDepth + 1, ']');
  EXPECT_FALSE(parse(over).ok());
}

// Duplicate keys are refused by check_object() and by the readers, in every object a decoder
// reads, naming the object's path; the parser itself accepts them.
TEST(JsonReader, DuplicateKeyIsRejectedWithItsPath) {
  auto doc = parse(R"({"request":{"object":{"spec":{"backoffLimit":0,"backoffLimit":5}}}})");
  ASSERT_TRUE(doc.ok());
  const Value& object = doc.value()["request"]["object"];
  auto spec = read_object(object, "spec", Path("request.object"));
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(spec.error().message, "request.object.spec: duplicate key \"backoffLimit\"");
  EXPECT_TRUE(check_object(object, Path("request.object")).ok());  // only spec repeats a key
}

TEST(JsonReader, DuplicateKeyInStringMapIsRejected) {
  auto doc = parse(R"({"labels":{"a":"1","b":"2","a":"3"}})");
  ASSERT_TRUE(doc.ok());
  std::optional<FlatMap<std::string>> m;
  const Status st = read_string_map(doc.value(), "labels", Path("metadata"), m);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "metadata.labels: duplicate key \"a\"");
  EXPECT_FALSE(split_string_map(doc.value(), "labels", Path("metadata"), {}).ok());
}

TEST(JsonReader, ErrorPathKeepsAKeyWithAnEscapedNul) {
  auto doc = parse(R"({"labels":{"a\u0000b":1}})");
  ASSERT_TRUE(doc.ok());
  std::optional<FlatMap<std::string>> m;
  const Status st = read_string_map(doc.value(), "labels", Path("metadata"), m);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            std::string("metadata.labels.a") + '\0' + "b: expected a string, got number");
}

// duplicate_key has three strategies (pairs up to 8 members, a hash table up to 256, a sort
// above); every size around the boundaries, with keys that share their first and last 8 bytes
// (equal hashes), with and without a repeat.
TEST(JsonReader, DuplicateKeysAreFoundAtEverySize) {
  for (const int n : {2, 3, 8, 9, 17, 40, 100, 255, 256, 257, 1000}) {
    auto key = [](int i) { return "example.com/" + std::to_string(1000 + i) + "/annotation"; };
    std::string distinct = "{";
    for (int i = 0; i < n; ++i) {
      distinct += (i ? "," : "") + ("\"" + key(i) + "\":" + std::to_string(i));
    }
    SCOPED_TRACE(n);
    auto ok = parse(distinct + "}");
    ASSERT_TRUE(ok.ok());
    EXPECT_TRUE(check_object(ok.value(), Path("")).ok());
    for (const int repeat : {0, n / 2, n - 1}) {
      auto doc = parse(distinct + ",\"" + key(repeat) + "\":0}");
      ASSERT_TRUE(doc.ok()) << repeat;
      const Status st = check_object(doc.value(), Path(""));
      ASSERT_FALSE(st.ok()) << repeat;
      EXPECT_EQ(st.error().message, "(document): duplicate key \"" + key(repeat) + "\"");
    }
  }
}

TEST(JsonReader, CheckObjectNamesTheArrayIndex) {
  auto doc = parse(R"({"items":[{},{"a":1,"a":2}]})");
  ASSERT_TRUE(doc.ok());
  const Path x("x");
  const Path items = x.field("items");
  EXPECT_TRUE(check_object(doc.value()["items"][0u], items.index(0)).ok());
  const Status st = check_object(doc.value()["items"][1u], items.index(1));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "x.items[1]: duplicate key \"a\"");
  const Status not_object = check_object(doc.value()["items"], items);
  ASSERT_FALSE(not_object.ok());
  EXPECT_EQ(not_object.error().message, "x.items: expected an object, got array");
}

TEST(JsonReader, TypedReadersNameThePath) {
  auto doc = parse(R"({"s":"x","i":"5","f":1.5,"big":3000000000,"huge":18446744073709551615,
                       "b":"true","m":{"k":1},"l":["a",2]})");
  ASSERT_TRUE(doc.ok());
  const Path root("request.object.spec");
  std::optional<std::int64_t> i;
  Status st = read_int64(doc.value(), "i", root, i);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "request.object.spec.i: expected an integer, got string");
  EXPECT_FALSE(read_int64(doc.value(), "f", root, i).ok());
  EXPECT_FALSE(read_int32(doc.value(), "big", root, i).ok());
  EXPECT_TRUE(read_int64(doc.value(), "big", root, i).ok());
  EXPECT_EQ(i, 3000000000);
  EXPECT_FALSE(read_int64(doc.value(), "huge", root, i).ok());
  std::optional<bool> b;
  st = read_bool(doc.value(), "b", root, b);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "request.object.spec.b: expected a boolean, got string");
  std::optional<FlatMap<std::string>> m;
  st = read_string_map(doc.value(), "m", root, m);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "request.object.spec.m.k: expected a string, got number");
  st = split_string_map(doc.value(), "m", root, {});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "request.object.spec.m.k: expected a string, got number");
  std::vector<std::string> l;
  st = read_string_list(doc.value(), "l", root, l);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "request.object.spec.l[1]: expected a string, got number");
  std::optional<std::string> s;
  EXPECT_TRUE(read_string(doc.value(), "absent", root, s).ok());
  EXPECT_FALSE(s.has_value());
}

TEST(JsonReader, StringMapKeepsOnlyThePrefixButChecksEveryValue) {
  auto doc = parse(R"({"a":{"rayjob-guard.io/x":"1","other":"2","rayjob-guard.io/y":"3"},)"
                   R"("b":{"other":5,"rayjob-guard.io/x":"1"}})");
  ASSERT_TRUE(doc.ok());
  const Path root("metadata");
  std::optional<FlatMap<std::string>> m;
  ASSERT_TRUE(read_string_map(doc.value(), "a", root, m, "rayjob-guard.io/").ok());
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(*m, (FlatMap<std::string>{{"rayjob-guard.io/x", "1"}, {"rayjob-guard.io/y", "3"}}));
  const Status st = read_string_map(doc.value(), "b", root, m, "rayjob-guard.io/");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "metadata.b.other: expected a string, got number");
  EXPECT_TRUE(split_string_map(doc.value(), "a", root, {}).ok());
  EXPECT_FALSE(split_string_map(doc.value(), "b", root, {}).ok());
}

TEST(JsonReader, SplitStringMapKeepsEachPrefixInOnePass) {
  auto doc = parse(R"({"a":{"ray.io/x":"1","kueue.x-k8s.io/q":"2","other":"3","ray.io/y":"4"}})");
  ASSERT_TRUE(doc.ok());
  FlatMap<std::string> ray, kueue, all;
  ASSERT_TRUE(split_string_map(doc.value(), "a", Path("metadata"),
                               {{"ray.io/", &ray}, {"kueue.x-k8s.io/", &kueue}, {"", &all}})
                  .ok());
  EXPECT_EQ(ray, (FlatMap<std::string>{{"ray.io/x", "1"}, {"ray.io/y", "4"}}));
  EXPECT_EQ(kueue, (FlatMap<std::string>{{"kueue.x-k8s.io/q", "2"}}));
  EXPECT_EQ(all.size(), 4u);
  FlatMap<std::string> untouched{{"k", "v"}};
  ASSERT_TRUE(split_string_map(doc.value(), "absent", Path("metadata"), {{"", &untouched}}).ok());
  EXPECT_EQ(untouched, (FlatMap<std::string>{{"k", "v"}}));
}

// parse_in_place runs the same checks as parse; only where the strings and nodes live differs.
TEST(JsonReader, ParseInPlaceAgreesWithParse) {
  const std::vector<std::string> texts = {
      R"({"a":1,"b":[true,null,"x\u00e9\n"],"c":{"d":"e"}})",
      "{\"a\": tru}",
      R"({"request":{"uid":"x")",
      R"({"a":{"k":1,"k":1}})",  // accepted by both: duplicates are the readers' business
      std::string("{\"a\":\"\xff\"}"),
      std::string("{\"a\":\"x\0\"}", 8),
      std::string(100000, '['),
      "",
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE(text.substr(0, 40));
    auto copied = parse(text);
    auto in_place = parse_in_place(text);
    ASSERT_EQ(copied.ok(), in_place.ok());
    if (!copied.ok()) {
      EXPECT_EQ(copied.error().message, in_place.error().message);
      EXPECT_EQ(copied.error().code, in_place.error().code);
    } else {
      EXPECT_TRUE(in_place.value().root() == copied.value());
    }
  }
}

TEST(JsonReader, ParseInPlaceValuesOutliveTheInputAndAMove) {
  // Many small values overflow the pool's first chunk (twice the text), so later nodes come
  // from chunks the pool adds.
  std::string text = "[";
  for (int i = 0; i < 20000; ++i) {
    text += (i ? ",[0]" : "[0]");
  }
  text += R"(,{"name":"sample-job"}])";
  Result<ParsedJson> parsed = parse_in_place(text);
  text.assign(text.size(), ' ');  // the ParsedJson must not point into the caller's text
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const ParsedJson moved = std::move(parsed).value();
  const Value& root = moved.root();
  ASSERT_TRUE(root.IsArray());
  ASSERT_EQ(root.Size(), 20001u);
  std::string name;
  ASSERT_TRUE(read_string(root[20000], "name", Path(""), name).ok());
  EXPECT_EQ(name, "sample-job");
}

TEST(JsonReader, NullIsTreatedAsAbsent) {
  auto doc = parse(R"({"a":null})");
  ASSERT_TRUE(doc.ok());
  std::optional<std::int64_t> i;
  EXPECT_TRUE(read_int64(doc.value(), "a", Path(""), i).ok());
  EXPECT_FALSE(i.has_value());
}

}  // namespace
}  // namespace rjg::admission::json
