// JSON reading helpers: parse strictly, then "find member, check type, copy out" with a JSON path
// in every error. Every read of request JSON in the admission layer goes through this file, so
// every field access has the same shape and RapidJSON's debug-only type asserts are never relied
// on.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/nesting_limit.hpp"
#include "common/flat_map.hpp"
#include "common/result.hpp"

namespace rjg::admission::json {

using Value = rapidjson::Value;
using Document = rapidjson::Document;

// A JSON path built on the stack while descending: `request.object.spec.workerGroupSpecs[0]`.
// A Path points at its parent, so the parent must outlive it (true for the descent pattern
// `const Path child = path.field("x");`). The string form is built only when an error is reported.
class Path {
 public:
  // A root such as "request.object" or "" (for manifests, where paths start at "spec...").
  explicit Path(std::string_view root) : parent_(nullptr), key_(root) {}

  // The path of member `key` of this value. The characters of `key` must outlive the returned
  // Path (string literals, or keys in the parsed document).
  Path field(std::string_view key) const& { return Path(this, key, kNoIndex); }
  // The path of element `index` of this array.
  Path index(std::size_t i) const& { return Path(this, {}, i); }
  // Not on a temporary: the child would point at a parent that dies at the end of the
  // statement. Name each level (`const Path spec = path.field("spec");`).
  Path field(std::string_view key) const&& = delete;
  Path index(std::size_t i) const&& = delete;

  // Returns the dotted text: "request.object.spec.backoffLimit", "spec.containers[2]".
  std::string str() const;

 private:
  static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);
  Path(const Path* parent, std::string_view key, std::size_t i)
      : parent_(parent), key_(key), index_(i) {}
  void append_to(std::string& out) const;

  const Path* parent_;
  std::string_view key_;  // unused for an array element (index_ != kNoIndex)
  std::size_t index_ = kNoIndex;
};

// A JSON document parsed in place by parse_in_place(). Its strings point into the ParsedJson's own
// copy of the text and its nodes live in the ParsedJson's own pool, so every Value reached from
// root() stays valid exactly as long as this object (moving it keeps them valid: nothing it owns
// moves). The cheaper form of parse() for a document that is read once and thrown away.
class ParsedJson {
 public:
  const Value& root() const { return doc_; }

 private:
  friend Result<ParsedJson> parse_in_place(std::string_view text);
  // Allocates the storage (text region of `text_bytes`, then a pool chunk of `pool_bytes`).
  ParsedJson(std::size_t text_bytes, std::size_t pool_bytes);

  std::unique_ptr<char[]>
      storage_;  // the text (NUL-terminated, padded), then the pool's first chunk
  std::unique_ptr<rapidjson::MemoryPoolAllocator<>> pool_;  // allocates doc_'s nodes
  Document doc_;  // declared last: destroyed before the memory it points into
};

// Parses `text` as one JSON document, no trailing content. Invalid UTF-8 (overlongs, surrogates,
// > U+10FFFF), NUL bytes and nesting deeper than kMaxNestingDepth are refused (100k nested `[` never
// recurse deeply). Returns kInvalidArgument with the parser's message and byte offset. Duplicate
// keys are not looked for here: check_object() and the readers below refuse them in every object
// a decoder reads, which is where a repeated key could change a decision.
// The returned Document owns copies of every string.
Result<Document> parse(std::string_view text);

// As parse(), with the same checks and messages, but without copying strings or nodes out of one
// buffer: see ParsedJson. Use it where the document does not outlive one function's work (a
// review); use parse() where Values are moved or copied into other Documents.
Result<ParsedJson> parse_in_place(std::string_view text);

// Returns ok when `v` is an object in which no key appears twice. kInvalidArgument otherwise:
// "<path>: expected an object, got <type>" or "<path>: duplicate key \"<key>\"" (a repeated key
// is ambiguous: RapidJSON finds the first, Go's encoding/json keeps the last, so the webhook
// refuses it rather than guess; Kubernetes' strict decoding refuses it too).
Status check_object(const Value& v, const Path& path);

// Returns the name of object member `m` (pointing into the document; names may hold NUL bytes,
// so never read it up to a terminator).
std::string_view key_of(const Value::Member& m);

// Returns "null", "boolean", "object", "array", "string" or "number" for messages.
const char* type_name(const Value& v);

// Returns an error "<path>: expected <what>, got <type of v>".
Error type_error(const Path& path, const char* what, const Value& v);

// Returns kInvalidArgument "<path>: <what>", for what a decoder refuses beyond a type.
Error error_at(const Path& path, std::string_view what);

// Returns member `key` of object `obj`, or nullptr when it is absent or JSON null (the apiserver
// treats an explicit null like an absent optional field). REQUIRES: obj.IsObject().
const Value* member(const Value& obj, std::string_view key);

// The readers below look up member `key` of object `obj` (path `path` is obj's path). When the
// member is absent or null they leave `out` untouched and return ok; when its type is wrong they
// return kInvalidArgument "<path>.<key>: expected ..., got ...". REQUIRES: obj.IsObject().
Status read_string(const Value& obj, std::string_view key, const Path& path, std::string& out);
Status read_string(const Value& obj, std::string_view key, const Path& path,
                   std::optional<std::string>& out);
Status read_bool(const Value& obj, std::string_view key, const Path& path,
                 std::optional<bool>& out);
Status read_bool(const Value& obj, std::string_view key, const Path& path, bool& out);
// An integer that fits in int64 (a number with a fraction, or one out of range, is an error).
Status read_int64(const Value& obj, std::string_view key, const Path& path,
                  std::optional<std::int64_t>& out);
// As read_int64, for Kubernetes int32 fields: values outside int32 are errors.
Status read_int32(const Value& obj, std::string_view key, const Path& path,
                  std::optional<std::int64_t>& out);
// A map of string to string (labels, annotations, clusterSelector), without duplicate keys. Every
// value must be a string; only the entries whose key starts with `keep_prefix` are stored in
// `out` (all of them when it is empty), so that a reader can type-check a whole map but copy only
// what it uses.
Status read_string_map(const Value& obj, std::string_view key, const Path& path,
                       std::optional<FlatMap<std::string>>& out, std::string_view keep_prefix = {});
// One subset of a string map that split_string_map keeps: the entries whose key starts with
// `prefix`, stored into `*out` (which must outlive the call).
struct KeptPrefix {
  std::string_view prefix;
  FlatMap<std::string>* out;
};
// As read_string_map, in one pass over the map, keeping one subset per entry of `keep` (an entry
// may land in several); with `keep` empty only the types are checked. Absent or null: nothing is
// stored.
Status split_string_map(const Value& obj, std::string_view key, const Path& path,
                        std::initializer_list<KeptPrefix> keep);
Status read_string_list(const Value& obj, std::string_view key, const Path& path,
                        std::vector<std::string>& out);

// Returns member `key` when it is an object, nullptr when absent or null, kInvalidArgument when
// it has another type or a duplicate key (see check_object). The returned pointer is into `obj`'s
// document.
Result<const Value*> read_object(const Value& obj, std::string_view key, const Path& path);
// As read_object, for a member the object must have: absent or null is kInvalidArgument
// "<path>.<key>: required object is missing". Never returns nullptr.
Result<const Value*> read_required_object(const Value& obj, std::string_view key,
                                          const Path& path);
// As read_object, for arrays.
Result<const Value*> read_array(const Value& obj, std::string_view key, const Path& path);

// Converts `v` (a JSON integer in int64 range) to int64. kInvalidArgument otherwise.
Result<std::int64_t> as_int64(const Value& v, const Path& path);

}  // namespace rjg::admission::json
