// FlatMap: a string-keyed map kept as a vector sorted by key. The maps of a RayJob (resource lists,
// selectors, footprints) hold a handful of entries, where a sorted vector is faster than std::map
// (one allocation instead of one per entry, lookups by std::string_view without building a
// std::string). Iteration is in key order, as with std::map, so messages built by iterating stay
// deterministic. Insertion is O(n): use it for small maps only.
#pragma once

#include <algorithm>
#include <cassert>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace rjg {

template <typename V>
class FlatMap {
 public:
  using value_type = std::pair<std::string, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  FlatMap() = default;
  // As std::map: when a key repeats, the first entry wins.
  FlatMap(std::initializer_list<value_type> entries) {
    entries_.reserve(entries.size());
    for (const value_type& e : entries) {
      emplace(e.first, e.second);
    }
  }

  // Returns the map holding `entries`: the vector is taken over, with no copy and no insertion.
  // REQUIRES: the keys of `entries` are sorted and unique. Debug builds (the suite's asan pass)
  // assert it; a check in release builds would cost about 1 % of a typical review's instructions.
  static FlatMap from_sorted(std::vector<value_type> entries) {
    assert(std::adjacent_find(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
             return !(a.first < b.first);
           }) == entries.end());
    FlatMap m;
    m.entries_ = std::move(entries);
    return m;
  }

  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }
  void reserve(std::size_t n) { entries_.reserve(n); }

  // Returns the entry for `key`, or end().
  const_iterator find(std::string_view key) const {
    const_iterator it = lower_bound(key);
    return it != entries_.end() && it->first == key ? it : entries_.end();
  }
  iterator find(std::string_view key) {
    iterator it = lower_bound(key);
    return it != entries_.end() && it->first == key ? it : entries_.end();
  }
  bool contains(std::string_view key) const { return find(key) != end(); }
  std::size_t count(std::string_view key) const { return contains(key) ? 1 : 0; }

  // Returns the value for `key`; throws std::out_of_range when absent (as std::map::at; for tests
  // and for keys known to be present).
  const V& at(std::string_view key) const {
    const_iterator it = find(key);
    if (it == end()) {
      throw std::out_of_range("FlatMap::at: no such key");
    }
    return it->second;
  }

  // Returns the value for `key`, inserting a value-initialized one first when absent.
  V& operator[](std::string_view key) {
    iterator it = lower_bound(key);
    if (it == entries_.end() || it->first != key) {
      it = entries_.emplace(it, std::string(key), V{});
    }
    return it->second;
  }

  // Inserts (key, value) unless `key` is present. Returns the entry and whether it was inserted.
  template <typename K, typename... Args>
  std::pair<iterator, bool> emplace(K&& key, Args&&... value) {
    const std::string_view k(key);
    iterator it = lower_bound(k);
    if (it != entries_.end() && it->first == k) {
      return {it, false};
    }
    it = entries_.emplace(it, std::piecewise_construct, std::forward_as_tuple(std::forward<K>(key)),
                          std::forward_as_tuple(std::forward<Args>(value)...));
    return {it, true};
  }

  // Removes `key`; returns how many entries were removed (0 or 1).
  std::size_t erase(std::string_view key) {
    iterator it = find(key);
    if (it == end()) {
      return 0;
    }
    entries_.erase(it);
    return 1;
  }

  friend bool operator==(const FlatMap&, const FlatMap&) = default;

 private:
  // std::string's order (bytes compared as unsigned char), deciding on the first byte inline when
  // it differs: resource and quota keys mostly do ("cpu", "memory", "limits.*", "requests.*"),
  // and the general compare is a memcmp call.
  static bool key_less(const value_type& e, std::string_view k) {
    const std::string_view a = e.first;
    if (!a.empty() && !k.empty() && a[0] != k[0]) {
      return static_cast<unsigned char>(a[0]) < static_cast<unsigned char>(k[0]);
    }
    return a < k;
  }
  const_iterator lower_bound(std::string_view key) const {
    return std::lower_bound(entries_.begin(), entries_.end(), key, key_less);
  }
  iterator lower_bound(std::string_view key) {
    return std::lower_bound(entries_.begin(), entries_.end(), key, key_less);
  }

  std::vector<value_type> entries_;
};

}  // namespace rjg
