// Tests common/flat_map.hpp: std::map semantics (key order, first insertion wins, lookups by
// string_view) on a sorted vector.
#include "common/flat_map.hpp"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rjg {
namespace {

std::vector<std::string> keys(const FlatMap<int>& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) {
    out.push_back(k);
  }
  return out;
}

TEST(FlatMap, IteratesInKeyOrderWhateverTheInsertionOrder) {
  FlatMap<int> m;
  for (std::string_view k : {"memory", "cpu", "nvidia.com/gpu", "ephemeral-storage", "cpu"}) {
    ++m[k];
  }
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"cpu", "ephemeral-storage", "memory", "nvidia.com/gpu"}));
  EXPECT_EQ(m.at("cpu"), 2);
  EXPECT_EQ(m.size(), 4u);
}

// The same order as std::map<std::string, ...> (bytes as unsigned char) for keys that differ in
// the first byte, share a prefix, are prefixes of each other, are empty or use bytes >= 0x80.
TEST(FlatMap, OrdersKeysExactlyAsStdMap) {
  const std::vector<std::string> inserted = {"requests.memory",
                                             "limits.cpu",
                                             "requests.cpu",
                                             "",
                                             "\xc3\xa9",
                                             "Z",
                                             "a",
                                             "ab",
                                             "a\x01",
                                             "requests.",
                                             "\x7f",
                                             "limits.memory",
                                             "count/jobs.batch",
                                             "cpu",
                                             "requests.cpu"};
  FlatMap<int> flat;
  std::map<std::string, int> tree;
  for (const auto& k : inserted) {
    ++flat[k];
    ++tree[k];
  }
  std::vector<std::string> want;
  for (const auto& [k, v] : tree) {
    want.push_back(k);
    EXPECT_EQ(flat.at(k), v) << k;
  }
  EXPECT_EQ(keys(flat), want);
  EXPECT_FALSE(flat.contains("requests"));
  EXPECT_FALSE(flat.contains("\xc3"));
}

// from_sorted takes over entries already in key order: the same map as inserting them one by one.
TEST(FlatMap, FromSortedIsTheMapOfItsEntries) {
  std::vector<FlatMap<int>::value_type> entries = {
      {"cpu", 1}, {"memory", 2}, {"nvidia.com/gpu", 3}, {"\xc3\xa9", 4}};
  FlatMap<int> inserted;
  for (const auto& [k, v] : entries) {
    inserted.emplace(k, v);
  }
  const FlatMap<int> adopted = FlatMap<int>::from_sorted(std::move(entries));
  EXPECT_EQ(adopted, inserted);
  EXPECT_EQ(keys(adopted),
            (std::vector<std::string>{"cpu", "memory", "nvidia.com/gpu", "\xc3\xa9"}));
  EXPECT_EQ(adopted.at("memory"), 2);
  EXPECT_FALSE(adopted.contains("gpu"));
  EXPECT_TRUE(FlatMap<int>::from_sorted({}).empty());
}

TEST(FlatMap, InitializerListKeepsTheFirstOfRepeatedKeysLikeStdMap) {
  const FlatMap<int> m{{"b", 1}, {"a", 2}, {"b", 3}};
  EXPECT_EQ(keys(m), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(m.at("b"), 1);
}

TEST(FlatMap, EmplaceDoesNotOverwrite) {
  FlatMap<int> m;
  EXPECT_TRUE(m.emplace(std::string_view("k"), 1).second);
  const auto [it, inserted] = m.emplace(std::string("k"), 2);
  EXPECT_FALSE(inserted);
  EXPECT_EQ(it->second, 1);
}

TEST(FlatMap, FindCountContainsEraseAndAt) {
  FlatMap<std::string> m{{"ray.io/cluster", "c"}, {"team", "vision"}};
  EXPECT_NE(m.find("team"), m.end());
  EXPECT_EQ(m.find("tea"), m.end());
  EXPECT_EQ(m.find("teams"), m.end());
  EXPECT_EQ(m.count("ray.io/cluster"), 1u);
  EXPECT_FALSE(m.contains(""));
  EXPECT_THROW((void)m.at("absent"), std::out_of_range);
  EXPECT_EQ(m.erase("team"), 1u);
  EXPECT_EQ(m.erase("team"), 0u);
  EXPECT_EQ(m.size(), 1u);
  m.clear();
  EXPECT_TRUE(m.empty());
}

TEST(FlatMap, EqualityComparesEntriesInOrder) {
  FlatMap<int> a{{"x", 1}, {"y", 2}};
  FlatMap<int> b;
  b["y"] = 2;
  b["x"] = 1;
  EXPECT_EQ(a, b);
  b["x"] = 3;
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace rjg
