// List pages and watch lines, read with json_reader so every error names its JSON path.
#include "admission/watch_event.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "admission/json_reader.hpp"

namespace rjg::admission {
namespace {

using json::Path;
using json::Value;

std::string compact(const Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  v.Accept(w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// metadata.namespace, .name (required unless `bookmark`) and .resourceVersion of `object`.
Status read_object(const Value& object, const Path& path, bool bookmark, WatchedObject& out,
                   std::string& resource_version) {
  if (Status s = json::check_object(object, path); !s) {
    return s;
  }
  RJG_ASSIGN_OR_RETURN(const Value* meta, json::read_required_object(object, "metadata", path));
  const Path mpath = path.field("metadata");
  const Value& m = *meta;
  std::optional<std::string> ns;
  std::optional<std::string> name;
  std::optional<std::string> rv;
  for (const auto& [key, into] : std::array{std::pair{"namespace", &ns}, std::pair{"name", &name},
                                            std::pair{"resourceVersion", &rv}}) {
    if (Status s = json::read_string(m, key, mpath, *into); !s) {
      return s;
    }
  }
  if (!bookmark && (!name || name->empty())) {
    return invalid_argument(mpath.str() + ".name: required string is missing");
  }
  out.namespace_ = ns.value_or("");
  out.name = name.value_or("");
  resource_version = rv.value_or("");
  if (!bookmark) {
    out.json = compact(object);
  }
  return {};
}

}  // namespace

Result<ObjectListPage> decode_object_list(std::string_view text) {
  RJG_ASSIGN_OR_RETURN(json::Document doc, json::parse(text));
  const Path root("");
  if (Status s = json::check_object(doc, root); !s) {
    return s.error();
  }
  ObjectListPage page;
  Result<const Value*> meta = json::read_object(doc, "metadata", root);
  if (!meta) {
    return meta.error();
  }
  if (meta.value() != nullptr) {
    std::optional<std::string> rv;
    std::optional<std::string> token;
    const Path mpath = root.field("metadata");
    if (Status s = json::read_string(*meta.value(), "resourceVersion", mpath, rv); !s) {
      return s.error();
    }
    if (Status s = json::read_string(*meta.value(), "continue", mpath, token); !s) {
      return s.error();
    }
    page.resource_version = rv.value_or("");
    page.continue_token = token.value_or("");
  }
  Result<const Value*> items = json::read_array(doc, "items", root);
  if (!items) {
    return items.error();
  }
  if (items.value() == nullptr) {
    return page;  // an empty list may leave items out
  }
  const Path ipath = root.field("items");
  rapidjson::SizeType i = 0;
  for (const Value& item : items.value()->GetArray()) {
    WatchedObject o;
    std::string ignored;
    if (Status s = read_object(item, ipath.index(i++), false, o, ignored); !s) {
      return s.error();
    }
    page.items.push_back(std::move(o));
  }
  return page;
}

Result<WatchEvent> decode_watch_event(std::string_view line) {
  RJG_ASSIGN_OR_RETURN(json::Document doc, json::parse(line));
  const Path root("");
  if (Status s = json::check_object(doc, root); !s) {
    return s.error();
  }
  std::string type;
  if (Status s = json::read_string(doc, "type", root, type); !s) {
    return s.error();
  }
  RJG_ASSIGN_OR_RETURN(const Value* object, json::read_required_object(doc, "object", root));
  const Path opath = root.field("object");
  WatchEvent e;
  static constexpr std::array<std::pair<std::string_view, WatchEvent::Type>, 5> kTypes = {{
      {"ADDED", WatchEvent::Type::kAdded},
      {"MODIFIED", WatchEvent::Type::kModified},
      {"DELETED", WatchEvent::Type::kDeleted},
      {"BOOKMARK", WatchEvent::Type::kBookmark},
      {"ERROR", WatchEvent::Type::kError},
  }};
  const auto known = std::find_if(kTypes.begin(), kTypes.end(),
                                  [&](const auto& t) { return t.first == type; });
  if (known == kTypes.end()) {
    return invalid_argument(root.field("type").str() + ": unknown watch event type \"" + type +
                            "\"");
  }
  e.type = known->second;
  if (e.type == WatchEvent::Type::kError) {
    Result<std::int64_t> code = 0;
    if (const Value* c = json::member(*object, "code"); c != nullptr) {
      code = json::as_int64(*c, opath.field("code"));
      if (!code) {
        return code.error();
      }
    }
    e.error_code = static_cast<int>(code.value());
    std::optional<std::string> message;
    if (Status s = json::read_string(*object, "message", opath, message); !s) {
      return s.error();
    }
    e.error_message = message.value_or("");
    return e;
  }
  if (Status s = read_object(*object, opath, e.type == WatchEvent::Type::kBookmark,
                             e.object, e.resource_version);
      !s) {
    return s.error();
  }
  return e;
}

}  // namespace rjg::admission
