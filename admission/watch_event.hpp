// The Kubernetes list and watch wire formats, for the watch cache (kube/watcher.hpp): one page of
// any list, and one line of a watch stream (`?watch=1`, newline-delimited JSON). Objects are kept
// as compact JSON for the cache's consumer to decode.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace rjg::admission {

// One object of a watched collection.
struct WatchedObject {
  std::string namespace_;  // empty for a cluster-scoped object
  std::string name;
  std::string json;        // the whole object, compact JSON
};

// One page of a list: its items, metadata.resourceVersion (where a watch resumes) and
// metadata.continue (empty on the last page).
struct ObjectListPage {
  std::vector<WatchedObject> items;
  std::string resource_version;
  std::string continue_token;
};

// Returns the page, or kInvalidArgument naming the JSON path when `text` is not a list whose
// items each have metadata.name.
Result<ObjectListPage> decode_object_list(std::string_view text);

struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark, kError };
  Type type = Type::kAdded;
  WatchedObject object;          // kAdded, kModified, kDeleted (a bookmark's name is empty)
  std::string resource_version;  // the object's metadata.resourceVersion; empty for kError
  int error_code = 0;            // kError: the Status's code (410: the resourceVersion is gone)
  std::string error_message;     // kError: the Status's message
};

// Decodes one line of a watch stream. Returns kInvalidArgument naming the JSON path for anything
// else (an unknown type, an object without metadata).
Result<WatchEvent> decode_watch_event(std::string_view line);

}  // namespace rjg::admission
