// JSON reading helpers (see json_reader.hpp).
#include "admission/json_reader.hpp"

#include <rapidjson/error/en.h>

#include <algorithm>
#include <limits>

namespace rjg::admission::json {

void Path::append_to(std::string& out) const {
  if (parent_ != nullptr) {
    parent_->append_to(out);
  }
  if (key_ != nullptr) {
    if (!out.empty() && key_[0] != '\0') {
      out += '.';
    }
    out += key_;
  } else {
    out += '[';
    out += std::to_string(index_);
    out += ']';
  }
}

std::string Path::str() const {
  std::string out;
  append_to(out);
  return out;
}

const char* type_name(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "unknown";
}

namespace {

std::string where(const Path& path) {
  std::string p = path.str();
  return p.empty() ? std::string("(document)") : p;
}

// One container seen by the post-parse walk; parent links rebuild the path of an error.
struct Node {
  const Value* value;
  std::size_t parent;  // index into the node list; npos for the root
  const char* key;     // member name under an object parent, else nullptr
  std::size_t key_length;
  std::size_t index;  // element index under an array parent
  std::size_t depth;
};

constexpr std::size_t kNoParent = static_cast<std::size_t>(-1);

std::string node_path(const std::vector<Node>& nodes, std::size_t at, const char* root) {
  std::vector<std::size_t> chain;
  for (std::size_t i = at; i != kNoParent; i = nodes[i].parent) {
    chain.push_back(i);
  }
  std::string out = root;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Node& n = nodes[*it];
    if (n.parent == kNoParent) {
      continue;
    }
    if (n.key != nullptr) {
      if (!out.empty()) {
        out += '.';
      }
      out.append(n.key, n.key_length);
    } else {
      out += '[' + std::to_string(n.index) + ']';
    }
  }
  return out.empty() ? std::string("(document)") : out;
}

std::string_view key_of(const Value::Member& m) {
  return {m.name.GetString(), m.name.GetStringLength()};
}

// Returns the first key of `obj` that appears twice, or nullopt.
std::optional<std::string_view> duplicate_key(const Value& obj) {
  const auto n = obj.MemberEnd() - obj.MemberBegin();
  if (n < 2) {
    return std::nullopt;
  }
  if (n <= 16) {
    for (auto a = obj.MemberBegin(); a != obj.MemberEnd(); ++a) {
      for (auto b = a + 1; b != obj.MemberEnd(); ++b) {
        if (key_of(*a) == key_of(*b)) {
          return key_of(*a);
        }
      }
    }
    return std::nullopt;
  }
  std::vector<std::string_view> keys;
  keys.reserve(static_cast<std::size_t>(n));
  for (auto m = obj.MemberBegin(); m != obj.MemberEnd(); ++m) {
    keys.push_back(key_of(*m));
  }
  std::sort(keys.begin(), keys.end());
  auto dup = std::adjacent_find(keys.begin(), keys.end());
  if (dup != keys.end()) {
    return *dup;
  }
  return std::nullopt;
}

// Walks the parsed tree without recursion: checks depth and duplicate keys.
Status check_structure(const Value& root_value, const char* root) {
  std::vector<Node> nodes;
  std::vector<std::size_t> stack;
  nodes.push_back(Node{&root_value, kNoParent, nullptr, 0, 0, 1});
  stack.push_back(0);
  while (!stack.empty()) {
    const std::size_t at = stack.back();
    stack.pop_back();
    const Node node = nodes[at];
    if (node.depth > kMaxDepth) {
      return invalid_argument(node_path(nodes, node.parent, root) + ": JSON nesting deeper than " +
                              std::to_string(kMaxDepth) + " levels");
    }
    const Value& v = *node.value;
    if (v.IsObject()) {
      if (auto dup = duplicate_key(v)) {
        return invalid_argument(node_path(nodes, at, root) + ": duplicate key \"" +
                                std::string(*dup) + "\"");
      }
      for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
        if (m->value.IsObject() || m->value.IsArray()) {
          nodes.push_back(Node{&m->value, at, m->name.GetString(), m->name.GetStringLength(), 0,
                               node.depth + 1});
          stack.push_back(nodes.size() - 1);
        }
      }
    } else if (v.IsArray()) {
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        if (v[i].IsObject() || v[i].IsArray()) {
          nodes.push_back(Node{&v[i], at, nullptr, 0, i, node.depth + 1});
          stack.push_back(nodes.size() - 1);
        }
      }
    }
  }
  return {};
}

}  // namespace

Result<Document> parse(std::string_view text, const char* root) {
  Document doc;
  constexpr unsigned kFlags =
      rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
  doc.Parse<kFlags>(text.data(), text.size());
  if (doc.HasParseError()) {
    return invalid_argument(std::string("not valid JSON: ") +
                            rapidjson::GetParseError_En(doc.GetParseError()) + " (at byte offset " +
                            std::to_string(doc.GetErrorOffset()) + ")");
  }
  Status st = check_structure(doc, root);
  if (!st.ok()) {
    return st.error();
  }
  return doc;
}

Error type_error(const Path& path, const char* what, const Value& v) {
  return invalid_argument(where(path) + ": expected " + what + ", got " + type_name(v));
}

const Value* member(const Value& obj, std::string_view key) {
  auto it = obj.FindMember(
      Value(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size()))));
  if (it == obj.MemberEnd() || it->value.IsNull()) {
    return nullptr;
  }
  return &it->value;
}

Status read_string(const Value& obj, const char* key, const Path& path, std::string& out) {
  const Value* v = member(obj, key);
  if (v == nullptr) {
    return {};
  }
  if (!v->IsString()) {
    return type_error(path.field(key), "a string", *v);
  }
  out.assign(v->GetString(), v->GetStringLength());
  return {};
}

Status read_string(const Value& obj, const char* key, const Path& path,
                   std::optional<std::string>& out) {
  const Value* v = member(obj, key);
  if (v == nullptr) {
    return {};
  }
  if (!v->IsString()) {
    return type_error(path.field(key), "a string", *v);
  }
  out.emplace(v->GetString(), v->GetStringLength());
  return {};
}

Status read_bool(const Value& obj, const char* key, const Path& path, std::optional<bool>& out) {
  const Value* v = member(obj, key);
  if (v == nullptr) {
    return {};
  }
  if (!v->IsBool()) {
    return type_error(path.field(key), "a boolean", *v);
  }
  out = v->GetBool();
  return {};
}

Status read_bool(const Value& obj, const char* key, const Path& path, bool& out) {
  std::optional<bool> b;
  Status st = read_bool(obj, key, path, b);
  if (st.ok() && b) {
    out = *b;
  }
  return st;
}

Result<std::int64_t> as_int64(const Value& v, const Path& path) {
  if (!v.IsNumber()) {
    return type_error(path, "an integer", v);
  }
  if (v.IsInt64()) {
    return v.GetInt64();
  }
  if (v.IsUint64()) {
    return invalid_argument(where(path) + ": integer " + std::to_string(v.GetUint64()) +
                            " does not fit in int64");
  }
  return invalid_argument(where(path) + ": expected an integer, got a number with a fraction or " +
                          "an exponent out of int64 range");
}

Status read_int64(const Value& obj, const char* key, const Path& path,
                  std::optional<std::int64_t>& out) {
  const Value* v = member(obj, key);
  if (v == nullptr) {
    return {};
  }
  Result<std::int64_t> i = as_int64(*v, path.field(key));
  if (!i.ok()) {
    return i.error();
  }
  out = i.value();
  return {};
}

Status read_int32(const Value& obj, const char* key, const Path& path,
                  std::optional<std::int64_t>& out) {
  std::optional<std::int64_t> i;
  Status st = read_int64(obj, key, path, i);
  if (!st.ok()) {
    return st;
  }
  if (i && (*i < std::numeric_limits<std::int32_t>::min() ||
            *i > std::numeric_limits<std::int32_t>::max())) {
    return invalid_argument(where(path.field(key)) + ": integer " + std::to_string(*i) +
                            " does not fit in int32");
  }
  if (i) {
    out = i;
  }
  return {};
}

Status read_string_map(const Value& obj, const char* key, const Path& path,
                       std::optional<std::map<std::string, std::string>>& out) {
  const Value* v = member(obj, key);
  if (v == nullptr) {
    return {};
  }
  const Path p = path.field(key);
  if (!v->IsObject()) {
    return type_error(p, "an object of strings", *v);
  }
  std::map<std::string, std::string> m;
  for (auto it = v->MemberBegin(); it != v->MemberEnd(); ++it) {
    if (!it->value.IsString()) {
      return type_error(p.field(it->name.GetString()), "a string", it->value);
    }
    m.emplace(std::string(it->name.GetString(), it->name.GetStringLength()),
              std::string(it->value.GetString(), it->value.GetStringLength()));
  }
  out = std::move(m);
  return {};
}

Status read_string_list(const Value& obj, const char* key, const Path& path,
                        std::vector<std::string>& out) {
  const Value* v = member(obj, key);
  if (v == nullptr) {
    return {};
  }
  const Path p = path.field(key);
  if (!v->IsArray()) {
    return type_error(p, "an array of strings", *v);
  }
  std::vector<std::string> list;
  list.reserve(v->Size());
  for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
    if (!(*v)[i].IsString()) {
      return type_error(p.index(i), "a string", (*v)[i]);
    }
    list.emplace_back((*v)[i].GetString(), (*v)[i].GetStringLength());
  }
  out = std::move(list);
  return {};
}

Result<const Value*> read_object(const Value& obj, const char* key, const Path& path) {
  const Value* v = member(obj, key);
  if (v == nullptr) {
    return static_cast<const Value*>(nullptr);
  }
  if (!v->IsObject()) {
    return type_error(path.field(key), "an object", *v);
  }
  return v;
}

Result<const Value*> read_array(const Value& obj, const char* key, const Path& path) {
  const Value* v = member(obj, key);
  if (v == nullptr) {
    return static_cast<const Value*>(nullptr);
  }
  if (!v->IsArray()) {
    return type_error(path.field(key), "an array", *v);
  }
  return v;
}

}  // namespace rjg::admission::json
