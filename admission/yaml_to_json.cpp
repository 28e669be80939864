// YAML -> JSON (see yaml_to_json.hpp).
#include "admission/yaml_to_json.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <rapidjson/reader.h>

#include "admission/yaml_events.hpp"

namespace rjg::admission {
namespace {

bool one_of(std::string_view s, std::initializer_list<std::string_view> list) {
  for (std::string_view x : list) {
    if (s == x) {
      return true;
    }
  }
  return false;
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return 99;
}

// strconv.ParseUint(s, 0, 64) on an unsigned magnitude (no sign): 0x, 0o, 0b, leading 0 octal.
std::optional<std::uint64_t> parse_unsigned_base0(std::string_view s) {
  int base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    const char p = s[1];
    if (p == 'x' || p == 'X') {
      base = 16;
      s.remove_prefix(2);
    } else if (p == 'o' || p == 'O') {
      base = 8;
      s.remove_prefix(2);
    } else if (p == 'b' || p == 'B') {
      base = 2;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  if (s.empty()) {
    return std::nullopt;
  }
  std::uint64_t v = 0;
  for (char c : s) {
    const int d = digit_value(c);
    if (d >= base) {
      return std::nullopt;
    }
    const auto ud = static_cast<std::uint64_t>(d);
    if (v > (std::numeric_limits<std::uint64_t>::max() - ud) / static_cast<std::uint64_t>(base)) {
      return std::nullopt;
    }
    v = v * static_cast<std::uint64_t>(base) + ud;
  }
  return v;
}

// yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool is_yaml_style_float(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&]() {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      ++i;
    }
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    ++i;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) {
      return false;
    }
  } else {
    if (digits() == 0) {
      return false;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
      ++i;
    }
    if (digits() == 0) {
      return false;
    }
  }
  return i == s.size();
}

// Well-formed UTF-8 (RFC 3629: no overlongs, surrogates or code points above U+10FFFF).
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      lo = c == 0xE0 ? 0xA0 : 0x80;
      hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      lo = c == 0xF0 ? 0x90 : 0x80;
      hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
      return false;
    }
    if (i + len > s.size()) {
      return false;
    }
    const auto c1 = static_cast<unsigned char>(s[i + 1]);
    if (c1 < lo || c1 > hi) {
      return false;
    }
    for (std::size_t k = 2; k < len; ++k) {
      const auto ck = static_cast<unsigned char>(s[i + k]);
      if (ck < 0x80 || ck > 0xBF) {
        return false;
      }
    }
    i += len;
  }
  return true;
}

}  // namespace

ResolvedScalar resolve_plain_scalar(std::string_view text) {
  using Kind = ResolvedScalar::Kind;
  ResolvedScalar r;
  if (one_of(text, {"", "~", "null", "Null", "NULL"})) {
    r.kind = Kind::kNull;
    return r;
  }
  if (one_of(text, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) {
    r.kind = Kind::kBool;
    r.boolean = true;
    return r;
  }
  if (one_of(text, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) {
    r.kind = Kind::kBool;
    return r;
  }
  if (one_of(text, {".nan", ".NaN", ".NAN"})) {
    r.kind = Kind::kFloat;
    r.float_value = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  if (one_of(text, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) {
    r.kind = Kind::kFloat;
    r.float_value = std::numeric_limits<double>::infinity();
    return r;
  }
  if (one_of(text, {"-.inf", "-.Inf", "-.INF"})) {
    r.kind = Kind::kFloat;
    r.float_value = -std::numeric_limits<double>::infinity();
    return r;
  }
  const char c0 = text[0];
  if (!((c0 >= '0' && c0 <= '9') || c0 == '-' || c0 == '+' || c0 == '.')) {
    return r;
  }
  // go-yaml v2 strips every underscore before trying the number forms.
  std::string plain;
  plain.reserve(text.size());
  for (char c : text) {
    if (c != '_') {
      plain += c;
    }
  }
  std::string_view mag = plain;
  bool negative = false;
  if (!mag.empty() && (mag[0] == '-' || mag[0] == '+')) {
    negative = mag[0] == '-';
    mag.remove_prefix(1);
  }
  if (auto u = parse_unsigned_base0(mag)) {
    constexpr auto kMaxInt = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (!negative && *u <= kMaxInt) {
      r.kind = Kind::kInt;
      r.int_value = static_cast<std::int64_t>(*u);
      return r;
    }
    if (negative && *u <= kMaxInt + 1) {
      r.kind = Kind::kInt;
      r.int_value = *u == kMaxInt + 1 ? std::numeric_limits<std::int64_t>::min()
                                      : -static_cast<std::int64_t>(*u);
      return r;
    }
    if (!negative && plain[0] != '+') {
      r.kind = Kind::kUint;
      r.uint_value = *u;
      return r;
    }
  }
  if (is_yaml_style_float(plain)) {
    errno = 0;
    const double d = std::strtod(plain.c_str(), nullptr);
    if (errno == 0) {
      r.kind = Kind::kFloat;
      r.float_value = d;
      return r;
    }
  }
  return r;
}

namespace {

using json::Document;
using json::Value;
using Alloc = Document::AllocatorType;

using Tree = yaml::Document;
using Index = Tree::Index;
using Kind = Tree::Kind;

std::string at(const Tree& d, Index i) {
  return "line " + std::to_string(d.line(i)) + ", column " + std::to_string(d.column(i));
}

// go-yaml's view of a node: a plain untagged scalar is resolved (null, bool, int, float);
// quoted, block and tagged ones are strings as written.
class Converter {
 public:
  Converter(const Tree& d, Alloc& alloc) : d_(d), alloc_(alloc) {}

  Status convert(Index node, Value& out, std::size_t depth) {
    if (++count_ > kMaxYamlNodes) {
      return invalid_argument(at(d_, node) + ": more than " + std::to_string(kMaxYamlNodes) +
                              " values after expanding aliases");
    }
    if (depth > kMaxNestingDepth) {
      return invalid_argument(at(d_, node) + ": nesting deeper than " +
                              std::to_string(kMaxNestingDepth) + " levels");
    }
    switch (d_.kind(node)) {
      case Kind::kNull:
        out.SetNull();
        return {};
      case Kind::kScalar:
        return scalar(node, out);
      case Kind::kSequence: {
        out.SetArray();
        for (Index item = d_.first_child(node); item != Tree::kNone; item = d_.next(item)) {
          Value v;
          RJG_RETURN_IF_ERROR(convert(item, v, depth + 1));
          out.PushBack(v, alloc_);
        }
        return {};
      }
      case Kind::kMapping:
        return mapping(node, out, depth);
    }
    return {};
  }

 private:
  void set_string(Value& out, std::string_view text) {
    out.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc_);
  }

  // go-yaml v2's reading of scalar node `node`: a plain untagged scalar is resolved (null, bool,
  // int, float), a quoted or block one is a string. A standard tag resolves the text, quoted or
  // not, and must agree with it (!!int, !!bool, !!null; !!float takes an int too); !!binary is
  // decoded from base64 into `text`; !!str and any other tag give the text as written.
  Result<ResolvedScalar> resolved(Index node, std::string& text) {
    using Tag = Tree::Tag;
    text = d_.scalar(node);
    const Tag tag = d_.tag(node);
    ResolvedScalar as_string;
    if (tag == Tag::kStr || tag == Tag::kOther || (tag == Tag::kNone && !d_.plain(node))) {
      return as_string;
    }
    if (tag == Tag::kBinary) {
      RJG_ASSIGN_OR_RETURN(text, base64_decode(node, text));
      return as_string;
    }
    ResolvedScalar r = resolve_plain_scalar(text);
    if (tag == Tag::kNone) {
      return r;
    }
    using K = ResolvedScalar::Kind;
    const bool agrees = (tag == Tag::kInt && (r.kind == K::kInt || r.kind == K::kUint)) ||
                        (tag == Tag::kBool && r.kind == K::kBool) ||
                        (tag == Tag::kNull && r.kind == K::kNull) ||
                        (tag == Tag::kFloat && (r.kind == K::kFloat || r.kind == K::kInt));
    if (!agrees) {
      return invalid_argument(at(d_, node) + ": \"" + text + "\" does not read as its tag says");
    }
    if (tag == Tag::kFloat && r.kind == K::kInt) {
      r.kind = K::kFloat;
      r.float_value = static_cast<double>(r.int_value);
    }
    return r;
  }

  // base64.StdEncoding.DecodeString as go-yaml applies it to a !!binary scalar (line breaks
  // ignored, padding required); the bytes must be UTF-8 text to go into JSON.
  Result<std::string> base64_decode(Index node, std::string_view in) {
    std::string out;
    std::uint32_t acc = 0;
    int bits = 0;
    std::size_t chars = 0;
    std::size_t pad = 0;
    for (const char c : in) {
      if (c == '\n' || c == '\r') {
        continue;
      }
      ++chars;
      int v = -1;
      if (c >= 'A' && c <= 'Z') {
        v = c - 'A';
      } else if (c >= 'a' && c <= 'z') {
        v = c - 'a' + 26;
      } else if (c >= '0' && c <= '9') {
        v = c - '0' + 52;
      } else if (c == '+') {
        v = 62;
      } else if (c == '/') {
        v = 63;
      } else if (c == '=') {
        ++pad;
        continue;
      }
      if (v < 0 || pad > 0) {
        return invalid_argument(at(d_, node) + ": !!binary value contains invalid base64 data");
      }
      acc = (acc << 6) | static_cast<std::uint32_t>(v);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += static_cast<char>((acc >> bits) & 0xFF);
      }
    }
    if (chars % 4 != 0 || pad > 2) {
      return invalid_argument(at(d_, node) + ": !!binary value contains invalid base64 data");
    }
    if (!valid_utf8(out)) {
      return invalid_argument(at(d_, node) + ": !!binary value is not UTF-8 text");
    }
    return out;
  }

  Status scalar(Index node, Value& out) {
    std::string text;
    RJG_ASSIGN_OR_RETURN(const ResolvedScalar r, resolved(node, text));
    switch (r.kind) {
      case ResolvedScalar::Kind::kNull:
        out.SetNull();
        return {};
      case ResolvedScalar::Kind::kBool:
        out.SetBool(r.boolean);
        return {};
      case ResolvedScalar::Kind::kInt:
        out.SetInt64(r.int_value);
        return {};
      case ResolvedScalar::Kind::kUint:
        out.SetUint64(r.uint_value);
        return {};
      case ResolvedScalar::Kind::kFloat:
        if (!std::isfinite(r.float_value)) {
          return invalid_argument(at(d_, node) + ": \"" + std::string(text) +
                                  "\" is not a finite number and cannot be represented in JSON");
        }
        // Go's JSON encoder writes an integral float64 without a fraction ("1e3" -> 1000).
        if (std::trunc(r.float_value) == r.float_value && std::fabs(r.float_value) < 9.0e18) {
          out.SetInt64(static_cast<std::int64_t>(r.float_value));
        } else {
          out.SetDouble(r.float_value);
        }
        return {};
      case ResolvedScalar::Kind::kString:
        set_string(out, text);
        return {};
    }
    return {};
  }

  // A mapping key: its JSON text, as sigs.k8s.io/yaml stringifies go-yaml's resolved keys (bools
  // and ints in decimal, floats as Go's FormatFloat(f, 'g', -1, 32)), and the value go-yaml's map
  // compares, which tells `1` from `1.0` and `1e39` from `1e40` though each pair has one JSON
  // text. A null key and an integer above int64 have no JSON form there and are refused.
  struct Key {
    std::string name;
    std::string identity;  // equal exactly when Go's == says the decoded keys are equal
  };

  Result<Key> key_of(Index key) {
    const Kind kind = d_.kind(key);
    if (kind == Kind::kNull) {
      return invalid_argument(at(d_, key) + ": a mapping key must not be null");
    }
    if (kind != Kind::kScalar) {
      return invalid_argument(at(d_, key) + ": a mapping key must be a scalar");
    }
    std::string text;
    RJG_ASSIGN_OR_RETURN(const ResolvedScalar r, resolved(key, text));
    switch (r.kind) {
      case ResolvedScalar::Kind::kNull:
        return invalid_argument(at(d_, key) + ": a mapping key must not be null");
      case ResolvedScalar::Kind::kBool:
        return Key{r.boolean ? "true" : "false", r.boolean ? "b:true" : "b:false"};
      case ResolvedScalar::Kind::kInt:
        return Key{std::to_string(r.int_value), "i:" + std::to_string(r.int_value)};
      case ResolvedScalar::Kind::kUint:
        return invalid_argument(at(d_, key) + ": mapping key " + text +
                                " is an integer above 2^63-1, which kubectl cannot use as a key");
      case ResolvedScalar::Kind::kFloat:
        return Key{go_float32_key(r.float_value), float_identity(r.float_value)};
      case ResolvedScalar::Kind::kString:
        break;
    }
    std::string identity = "s:" + text;
    return Key{std::move(text), std::move(identity)};
  }

  // Go's == on float64: +0 equals -0, and a NaN equals nothing, not even another NaN.
  std::string float_identity(double value) {
    if (std::isnan(value)) {
      return "f:nan#" + std::to_string(++nan_keys_);
    }
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, value == 0 ? 0.0 : value);
    return "f:" + std::string(buf, res.ptr);  // shortest round-trip form: one per double
  }

  // strconv.FormatFloat(f, 'g', -1, 32): the shortest digits that read back as the same float32,
  // in %e form when the exponent is below -4 or at least 6 (Go's shortest 'g' decides with
  // precision 6), with a two-digit signed exponent; .inf/-.inf/.nan as sigs.k8s.io/yaml writes
  // them. A finite double beyond float32's range rounds to an infinity first, as Go's float32(v)
  // does.
  static std::string go_float32_key(double value) {
    const auto narrowed = static_cast<float>(value);
    if (std::isnan(narrowed)) {
      return ".nan";
    }
    if (std::isinf(narrowed)) {
      return narrowed > 0 ? ".inf" : "-.inf";
    }
    char buf[64];
    const auto res =
        std::to_chars(buf, buf + sizeof buf, narrowed, std::chars_format::scientific);
    std::string sci(buf, res.ptr);  // d[.ddd]e[+-]XX
    const std::size_t e = sci.find('e');
    const int exp = std::stoi(sci.substr(e + 1));
    std::string mantissa = sci.substr(0, e);
    const bool negative = mantissa[0] == '-';
    if (negative) {
      mantissa.erase(0, 1);
    }
    std::string digits;
    for (char c : mantissa) {
      if (c != '.') {
        digits += c;
      }
    }
    std::string out = negative ? "-" : "";
    if (exp < -4 || exp >= 6) {
      out += digits.substr(0, 1);
      if (digits.size() > 1) {
        out += "." + digits.substr(1);
      }
      out += exp < 0 ? "e-" : "e+";
      const std::string e_digits = std::to_string(exp < 0 ? -exp : exp);
      out += (e_digits.size() < 2 ? "0" : "") + e_digits;
      return out;
    }
    if (exp < 0) {
      return out + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
    }
    const auto point = static_cast<std::size_t>(exp) + 1;
    if (digits.size() <= point) {
      return out + digits + std::string(point - digits.size(), '0');
    }
    return out + digits.substr(0, point) + "." + digits.substr(point);
  }

  // Calls fn(key, value) for every entry of mapping `map`.
  template <typename Fn>
  Status each_entry(Index map, Fn&& fn) {
    for (Index k = d_.first_child(map); k != Tree::kNone;) {
      const Index v = d_.next(k);
      if (v == Tree::kNone) {
        break;
      }
      RJG_RETURN_IF_ERROR(fn(k, v));
      k = d_.next(v);
    }
    return {};
  }

  bool is_merge_key(Index k) const {
    return d_.kind(k) == Kind::kScalar && d_.plain(k) && d_.scalar(k) == "<<";
  }

  // The mappings a `<<` value names: itself, or each item of a list.
  Result<std::vector<Index>> merge_sources(Index merge) const {
    std::vector<Index> sources;
    if (d_.kind(merge) == Kind::kMapping) {
      sources.push_back(merge);
    } else if (d_.kind(merge) == Kind::kSequence) {
      for (Index s = d_.first_child(merge); s != Tree::kNone; s = d_.next(s)) {
        sources.push_back(s);
      }
    }
    if (sources.empty()) {
      return invalid_argument(at(d_, merge) +
                              ": map merge requires a mapping or a list of mappings");
    }
    for (const Index src : sources) {
      if (d_.kind(src) != Kind::kMapping) {
        return invalid_argument(at(d_, src) +
                                ": map merge requires a mapping or a list of mappings");
      }
    }
    return sources;
  }

  // One entry of a mapping as go-yaml v2 decodes it: the key's JSON text and Go identity, the
  // converted value, and whether an explicit entry (not a `<<` merge) set it.
  struct Member {
    Key key;
    Value value;
    bool explicit_key;
  };

  // A key name that two different Go keys share: kubectl's map holds both, and sigs.k8s.io/yaml
  // keeps whichever its map iteration reaches last, so which value is read is chance.
  Status name_collision(Index at_node, const Key& key) const {
    return invalid_argument(at(d_, at_node) + ": duplicate key \"" + key.name +
                            "\": two different keys of this mapping become this one JSON key, "
                            "and kubectl keeps one of them at random; write it once");
  }

  Status mapping(Index node, Value& out, std::size_t depth) {
    std::vector<Member> members;
    RJG_RETURN_IF_ERROR(members_of(node, depth, members));
    out.SetObject();
    for (Member& m : members) {
      out.AddMember(
          Value(m.key.name.data(), static_cast<rapidjson::SizeType>(m.key.name.size()), alloc_),
          m.value, alloc_);
    }
    return {};
  }

  // go-yaml v2 (kubectl) applies each `<<` merge where it stands: the merged mappings (of a list:
  // the earlier one wins) set their keys over what earlier merges set, and the entries after it
  // override the merged keys. A key that two explicit entries set, and an explicit key that a
  // later merge sets again (kubectl keeps the merged value, YAML's merge spec the explicit one),
  // are refused: which value was meant would be a guess. So are two different keys with one JSON
  // text (name_collision). Keys are Go's: one key takes the text of whichever entry set it last
  // (`0.0` then `-0.0` is the key "-0").
  Status members_of(Index node, std::size_t depth, std::vector<Member>& members) {
    std::map<std::string, std::size_t, std::less<>> where;  // identity -> index in members
    std::map<std::string, std::string, std::less<>> names;  // JSON text -> identity
    // Sets `key` to `value` over a merged entry of the same Go key, or adds it; false when another
    // Go key has its JSON text.
    auto put = [&](Key key, Value value, bool explicit_key) -> bool {
      if (const auto n = names.find(key.name); n != names.end() && n->second != key.identity) {
        return false;
      }
      names[key.name] = key.identity;
      if (const auto it = where.find(key.identity); it != where.end()) {
        Member& m = members[it->second];
        names.erase(m.key.name);
        names[key.name] = key.identity;
        m = {std::move(key), std::move(value), explicit_key};
        return true;
      }
      where.emplace(key.identity, members.size());
      members.push_back({std::move(key), std::move(value), explicit_key});
      return true;
    };
    auto explicit_at = [&](const Key& key) {
      const auto it = where.find(key.identity);
      return it != where.end() && members[it->second].explicit_key;
    };
    auto entry = [&](Index k, Index v) -> Status {
      if (!is_merge_key(k)) {
        RJG_ASSIGN_OR_RETURN(Key key, key_of(k));
        if (explicit_at(key)) {
          return invalid_argument(at(d_, k) + ": duplicate key \"" + key.name + "\"");
        }
        Value value;
        RJG_RETURN_IF_ERROR(convert(v, value, depth + 1));
        const Key shown = key;
        return put(std::move(key), std::move(value), true) ? Status{} : name_collision(k, shown);
      }
      RJG_ASSIGN_OR_RETURN(const std::vector<Index> sources, merge_sources(v));
      std::map<std::string, std::string, std::less<>> merged;  // identity -> name, this merge
      for (const Index src : sources) {
        std::vector<Member> from;
        RJG_RETURN_IF_ERROR(members_of(src, depth, from));
        for (Member& m : from) {
          if (!merged.emplace(m.key.identity, m.key.name).second) {
            continue;  // an earlier mapping of this merge set it: that one wins
          }
          if (explicit_at(m.key)) {
            return invalid_argument(at(d_, v) + ": duplicate key \"" + m.key.name +
                                    "\": set before this `<<` merge and again by it (kubectl "
                                    "would take the merged value); set it once");
          }
          const Key shown = m.key;
          if (!put(std::move(m.key), std::move(m.value), false)) {
            return name_collision(v, shown);
          }
        }
      }
      return {};
    };
    return each_entry(node, entry);
  }

  const Tree& d_;
  Alloc& alloc_;
  std::size_t count_ = 0;
  std::size_t nan_keys_ = 0;  // each NaN key is a key of its own (float_identity)
};

}  // namespace

namespace {

// The first key of `v` (recursively) that appears twice in one object, or nullptr.
const Value* duplicate_key(const Value& v) {
  if (v.IsArray()) {
    for (const Value& item : v.GetArray()) {
      if (const Value* d = duplicate_key(item)) {
        return d;
      }
    }
  }
  if (v.IsObject()) {
    std::set<std::string_view> seen;
    for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
      if (!seen.insert(json::key_of(*m)).second) {
        return &m->name;
      }
      if (const Value* d = duplicate_key(m->value)) {
        return d;
      }
    }
  }
  return nullptr;
}

int line_at(std::string_view text, std::size_t pos) {
  return 1 + static_cast<int>(
                 std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

// kubectl's YAMLOrJSONDecoder reads a stream that starts (after white space) with `{` as JSON
// values first (encoding/json's decoder, one after the other), and only when the next value is
// not JSON goes on as YAML from there: after one JSON value, from the next line; after two or
// more, it stops with an error. Reads those JSON values into `out` (each with our JSON reader's
// checks, and duplicate keys refused, as everywhere here) and returns where the YAML goes on
// (text.size() when nothing is left).
Result<std::size_t> leading_json(std::string_view text, std::vector<YamlDocument>& out) {
  constexpr std::string_view kSpace = " \t\r\n";
  std::size_t pos = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  const std::string copy(text);  // RapidJSON's reader wants a NUL-terminated text
  while (true) {
    const std::size_t start = text.find_first_not_of(kSpace, pos);
    if (start == std::string_view::npos) {
      return out.empty() ? std::size_t{0} : text.size();  // blank: the YAML reader judges it
    }
    if (out.empty() && text[start] != '{') {
      return std::size_t{0};
    }
    rapidjson::StringStream in(copy.c_str() + start);
    rapidjson::BaseReaderHandler<> handler;
    rapidjson::Reader reader;
    const bool is_json = !reader.Parse<rapidjson::kParseStopWhenDoneFlag>(in, handler).IsError();
    if (!is_json) {
      if (out.empty()) {
        return std::size_t{0};
      }
      if (out.size() > 1) {
        return invalid_argument("YAML error at line " + std::to_string(line_at(text, start)) +
                                ": the file starts with JSON values, and kubectl reads it as "
                                "JSON to the end; this is not JSON");
      }
      // The YAML goes on after the white space up to the end of the JSON value's line.
      std::size_t next = pos;
      while (next < text.size() && (text[next] == ' ' || text[next] == '\t' ||
                                    text[next] == '\r' || text[next] == '\n')) {
        if (text[next++] == '\n') {
          break;
        }
      }
      return next;
    }
    const std::size_t end = start + in.Tell();
    Result<json::Document> doc = json::parse(text.substr(start, end - start));
    if (!doc.ok()) {
      return invalid_argument("JSON error at line " + std::to_string(line_at(text, start)) + ": " +
                              doc.error().message);
    }
    if (const Value* key = duplicate_key(doc.value())) {
      return invalid_argument("JSON error at line " + std::to_string(line_at(text, start)) +
                              ": duplicate key \"" +
                              std::string(key->GetString(), key->GetStringLength()) + "\"");
    }
    YamlDocument d;
    d.line = line_at(text, start);
    d.doc.Swap(doc.value());
    out.push_back(std::move(d));
    pos = end;
  }
}

}  // namespace

Result<std::vector<YamlDocument>> yaml_to_json(std::string_view text) {
  std::vector<YamlDocument> out;
  RJG_ASSIGN_OR_RETURN(const std::size_t yaml_from, leading_json(text, out));
  if (yaml_from == text.size()) {
    return out;
  }
  // Lines before the YAML stay as empty lines (line numbers stay true); the YAML itself is read
  // as kubectl's splitter reads a fresh stream.
  const std::string before(static_cast<std::size_t>(line_at(text, yaml_from) - 1), '\n');
  // libyaml checks the syntax of the whole stream (and bounds its nesting) and says where each
  // document is; each document is then read alone into libyaml's event tree (yaml_events.hpp),
  // which keeps scalar style and tags, and aliases as references. The parser counts lines from
  // the document's first line (a span starts at the start of its line, so columns stay true
  // too), so that lines in messages and YamlDocument::line are the file's. Each document is read
  // alone, without the lines before it: the cost stays linear in the number of documents.
  std::string storage;
  Result<std::string_view> stream =
      yaml::kubectl_stream(text.substr(yaml_from), storage, before.size() + 1);
  if (!stream.ok()) {
    return invalid_argument("YAML error at " + stream.error().message);
  }
  std::string prefixed;
  text = stream.value();
  if (!before.empty()) {
    prefixed = before + std::string(text);
    text = prefixed;
  }
  Result<std::vector<yaml::DocumentSpan>> spans = yaml::document_spans(text);
  if (!spans.ok()) {
    return invalid_argument("YAML error at " + spans.error().message);
  }
  for (const yaml::DocumentSpan& span : spans.value()) {
    Result<Tree> parsed =
        yaml::parse_first_document(text.substr(span.begin, span.end - span.begin),
                                   yaml::Limits{kMaxYamlNodes, kMaxNestingDepth}, span.line);
    if (!parsed.ok()) {
      return invalid_argument("YAML error at " + parsed.error().message);
    }
    const Tree& d = parsed.value();
    if (d.empty() || d.kind(0) == Kind::kNull) {
      continue;  // kubectl skips empty documents
    }
    YamlDocument doc;
    doc.line = static_cast<int>(d.line(0));
    Converter converter(d, doc.doc.GetAllocator());
    RJG_RETURN_IF_ERROR(converter.convert(0, doc.doc, 1));
    out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace rjg::admission
