// YAML -> JSON (see yaml_to_json.hpp).
#include "admission/yaml_to_json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>

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
    if (depth > json::kMaxDepth) {
      return invalid_argument(at(d_, node) + ": nesting deeper than " +
                              std::to_string(json::kMaxDepth) + " levels");
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

  Status scalar(Index node, Value& out) {
    const std::string_view text = d_.scalar(node);
    if (!d_.plain(node)) {
      set_string(out, text);
      return {};
    }
    const ResolvedScalar r = resolve_plain_scalar(text);
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

  // A mapping key as JSON text: sigs.k8s.io/yaml stringifies resolved keys (`on:` -> "true").
  Result<std::string> key_text(Index key) {
    const Kind kind = d_.kind(key);
    if (kind == Kind::kNull) {
      return std::string("null");
    }
    if (kind != Kind::kScalar) {
      return invalid_argument(at(d_, key) + ": a mapping key must be a scalar");
    }
    const std::string text(d_.scalar(key));
    if (!d_.plain(key)) {
      return text;
    }
    const ResolvedScalar r = resolve_plain_scalar(text);
    switch (r.kind) {
      case ResolvedScalar::Kind::kNull:
        return std::string("null");
      case ResolvedScalar::Kind::kBool:
        return std::string(r.boolean ? "true" : "false");
      case ResolvedScalar::Kind::kInt:
        return std::to_string(r.int_value);
      case ResolvedScalar::Kind::kUint:
        return std::to_string(r.uint_value);
      case ResolvedScalar::Kind::kFloat:
      case ResolvedScalar::Kind::kString:
        return text;
    }
    return text;
  }

  Status add_member(const std::string& name, Index key, Index value, Value& out,
                    std::set<std::string>& seen, bool from_merge, std::size_t depth) {
    if (!seen.insert(name).second) {
      if (from_merge) {
        return {};  // explicit keys win over merged ones
      }
      return invalid_argument(at(d_, key) + ": duplicate key \"" + name + "\"");
    }
    Value v;
    RJG_RETURN_IF_ERROR(convert(value, v, depth + 1));
    out.AddMember(Value(name.data(), static_cast<rapidjson::SizeType>(name.size()), alloc_), v,
                  alloc_);
    return {};
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

  Status mapping(Index node, Value& out, std::size_t depth) {
    out.SetObject();
    std::set<std::string> seen;
    std::vector<Index> merges;
    RJG_RETURN_IF_ERROR(each_entry(node, [&](Index k, Index v) -> Status {
      if (d_.kind(k) == Kind::kScalar && d_.plain(k) && d_.scalar(k) == "<<") {
        merges.push_back(v);
        return {};
      }
      RJG_ASSIGN_OR_RETURN(const std::string name, key_text(k));
      return add_member(name, k, v, out, seen, false, depth);
    }));
    for (const Index m : merges) {
      std::vector<Index> sources;
      if (d_.kind(m) == Kind::kMapping) {
        sources.push_back(m);
      } else if (d_.kind(m) == Kind::kSequence) {
        for (Index s = d_.first_child(m); s != Tree::kNone; s = d_.next(s)) {
          sources.push_back(s);
        }
      }
      if (sources.empty()) {
        return invalid_argument(at(d_, m) + ": map merge requires a mapping or a list of mappings");
      }
      for (const Index src : sources) {
        if (d_.kind(src) != Kind::kMapping) {
          return invalid_argument(at(d_, src) +
                                  ": map merge requires a mapping or a list of mappings");
        }
        RJG_RETURN_IF_ERROR(each_entry(src, [&](Index k, Index v) -> Status {
          RJG_ASSIGN_OR_RETURN(const std::string name, key_text(k));
          return add_member(name, k, v, out, seen, true, depth);
        }));
      }
    }
    return {};
  }

  const Tree& d_;
  Alloc& alloc_;
  std::size_t count_ = 0;
};

}  // namespace

Result<std::vector<YamlDocument>> yaml_to_json(std::string_view text) {
  // libyaml checks the syntax of the whole stream (and bounds its nesting) and says where each
  // document is; each document is then read alone into libyaml's event tree (yaml_events.hpp),
  // which keeps scalar style and tags, and aliases as references. The parser counts lines from
  // the document's first line (a span starts at the start of its line, so columns stay true
  // too), so that lines in messages and YamlDocument::line are the file's. Each document is read
  // alone, without the lines before it: the cost stays linear in the number of documents.
  Result<std::vector<yaml::DocumentSpan>> spans = yaml::document_spans(text);
  if (!spans.ok()) {
    return invalid_argument("YAML error at " + spans.error().message);
  }
  std::vector<YamlDocument> out;
  for (const yaml::DocumentSpan& span : spans.value()) {
    Result<Tree> parsed =
        yaml::parse_first_document(text.substr(span.begin, span.end - span.begin),
                                   yaml::Limits{kMaxYamlNodes, yaml::kMaxFileDepth}, span.line);
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
