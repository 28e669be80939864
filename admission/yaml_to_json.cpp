// YAML -> JSON (see yaml_to_json.hpp).
#include "admission/yaml_to_json.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <exception>
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

std::string at(const YAML::Mark& mark) {
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1);
}

bool is_plain(const YAML::Node& node) { return node.Tag() == "?" || node.Tag().empty(); }

bool is_str_tag(const YAML::Node& node) {
  return node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str";
}

class Converter {
 public:
  explicit Converter(Alloc& alloc) : alloc_(alloc) {}

  Status convert(const YAML::Node& node, Value& out, std::size_t depth) {
    if (++count_ > kMaxYamlNodes) {
      return invalid_argument(at(node.Mark()) + ": more than " + std::to_string(kMaxYamlNodes) +
                              " values after expanding aliases");
    }
    if (depth > json::kMaxDepth) {
      return invalid_argument(at(node.Mark()) + ": nesting deeper than " +
                              std::to_string(json::kMaxDepth) + " levels");
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out.SetNull();
        return {};
      case YAML::NodeType::Scalar:
        return scalar(node, out);
      case YAML::NodeType::Sequence: {
        out.SetArray();
        out.Reserve(static_cast<rapidjson::SizeType>(node.size()), alloc_);
        for (const YAML::Node& item : node) {
          Value v;
          Status st = convert(item, v, depth + 1);
          if (!st.ok()) {
            return st;
          }
          out.PushBack(v, alloc_);
        }
        return {};
      }
      case YAML::NodeType::Map:
        return mapping(node, out, depth);
    }
    return {};
  }

 private:
  Status scalar(const YAML::Node& node, Value& out) {
    const std::string& text = node.Scalar();
    if (is_str_tag(node) || !is_plain(node)) {
      out.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc_);
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
          return invalid_argument(at(node.Mark()) + ": \"" + text +
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
        out.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc_);
        return {};
    }
    return {};
  }

  // A mapping key as JSON text: sigs.k8s.io/yaml stringifies resolved keys (`on:` -> "true").
  Result<std::string> key_text(const YAML::Node& key) {
    if (!key.IsScalar() && !key.IsNull()) {
      return invalid_argument(at(key.Mark()) + ": a mapping key must be a scalar");
    }
    if (key.IsNull()) {
      return std::string("null");
    }
    const std::string& text = key.Scalar();
    if (is_str_tag(key) || !is_plain(key)) {
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

  Status add_member(const std::string& name, const YAML::Node& value_node, const YAML::Mark& mark,
                    Value& out, std::set<std::string>& seen, bool from_merge, std::size_t depth) {
    if (!seen.insert(name).second) {
      if (from_merge) {
        return {};  // explicit keys win over merged ones
      }
      return invalid_argument(at(mark) + ": duplicate key \"" + name + "\"");
    }
    Value v;
    Status st = convert(value_node, v, depth + 1);
    if (!st.ok()) {
      return st;
    }
    out.AddMember(Value(name.data(), static_cast<rapidjson::SizeType>(name.size()), alloc_), v,
                  alloc_);
    return {};
  }

  Status mapping(const YAML::Node& node, Value& out, std::size_t depth) {
    out.SetObject();
    std::set<std::string> seen;
    std::vector<YAML::Node> merges;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node k = it->first;  // a copy: it->first is a temporary proxy
      if (k.IsScalar() && is_plain(k) && k.Scalar() == "<<") {
        merges.push_back(it->second);
        continue;
      }
      Result<std::string> name = key_text(k);
      if (!name.ok()) {
        return name.error();
      }
      Status st = add_member(name.value(), it->second, k.Mark(), out, seen, false, depth);
      if (!st.ok()) {
        return st;
      }
    }
    for (const YAML::Node& m : merges) {
      std::vector<YAML::Node> sources;
      if (m.IsMap()) {
        sources.push_back(m);
      } else if (m.IsSequence()) {
        for (const YAML::Node& s : m) {
          sources.push_back(s);
        }
      }
      for (const YAML::Node& src : sources) {
        if (!src.IsMap()) {
          return invalid_argument(at(src.Mark()) +
                                  ": map merge requires a mapping or a list of mappings");
        }
        for (auto it = src.begin(); it != src.end(); ++it) {
          Result<std::string> name = key_text(it->first);
          if (!name.ok()) {
            return name.error();
          }
          Status st =
              add_member(name.value(), it->second, it->first.Mark(), out, seen, true, depth);
          if (!st.ok()) {
            return st;
          }
        }
      }
      if (sources.empty()) {
        return invalid_argument(at(m.Mark()) +
                                ": map merge requires a mapping or a list of mappings");
      }
    }
    return {};
  }

  Alloc& alloc_;
  std::size_t count_ = 0;
};

}  // namespace

Result<std::vector<YamlDocument>> yaml_to_json(std::string_view text) {
  // yaml-cpp 0.7's LoadAll loops forever, allocating without bound, on some malformed streams
  // (a "," where a document may start) that its single-document Load handles. libyaml's parser
  // always terminates: it checks the syntax of the whole stream and says where each document is,
  // and yaml-cpp then loads each document alone. The lines before a document are kept as empty
  // lines, so that yaml-cpp's marks (in messages, and YamlDocument::line) stay true.
  Result<std::vector<yaml::DocumentSpan>> spans = yaml::document_spans(text);
  if (!spans.ok()) {
    return invalid_argument("YAML error at " + spans.error().message);
  }
  std::vector<YAML::Node> nodes;
  // yaml-cpp reports errors by throwing; this is the boundary where they become values.
  try {
    for (const yaml::DocumentSpan& span : spans.value()) {
      std::string document(span.line, '\n');
      document.append(text.substr(span.begin, span.end - span.begin));
      nodes.push_back(YAML::Load(document));
    }
  } catch (const YAML::Exception& e) {
    return invalid_argument("YAML error at " + at(e.mark) + ": " + e.msg);
  } catch (const std::exception& e) {
    return invalid_argument(std::string("YAML error: ") + e.what());
  }
  std::vector<YamlDocument> out;
  for (const YAML::Node& node : nodes) {
    if (!node.IsDefined() || node.IsNull()) {
      continue;  // kubectl skips empty documents
    }
    YamlDocument doc;
    doc.line = node.Mark().line + 1;
    Converter converter(doc.doc.GetAllocator());
    Status st;
    try {
      st = converter.convert(node, doc.doc, 1);
    } catch (const std::exception& e) {
      return invalid_argument(std::string("YAML error: ") + e.what());
    }
    if (!st.ok()) {
      return st.error();
    }
    out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace rjg::admission
