// JSON reading helpers (see json_reader.hpp).
#include "admission/json_reader.hpp"

#include <rapidjson/error/en.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <memory>
#include <span>

namespace rjg::admission::json {

void Path::append_to(std::string& out) const {
  if (parent_ != nullptr) {
    parent_->append_to(out);
  }
  if (index_ == kNoIndex) {
    if (!out.empty() && !key_.empty()) {
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

// A cheap hash of a key for duplicate detection: its length and its first and last 8 bytes.
// Equal keys always hash equal; a collision only costs a full comparison.
std::uint64_t key_hash(std::string_view k) {
  std::uint64_t h = (k.size() + 1) * 0x9E3779B97F4A7C15ULL;
  if (k.size() >= 8) {
    std::uint64_t head;
    std::uint64_t tail;
    std::memcpy(&head, k.data(), sizeof head);
    std::memcpy(&tail, k.data() + k.size() - sizeof tail, sizeof tail);
    h ^= head * 0xC2B2AE3D27D4EB4FULL;
    h = (h ^ (h >> 29) ^ tail) * 0x165667B19E3779F9ULL;
  } else {
    for (const char c : k) {
      h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
    }
  }
  return h ^ (h >> 32);
}

// Returns the first key of `obj` that appears twice, or nullopt. Small objects compare every
// pair; objects up to 256 members use an open-addressing table on the stack; bigger ones sort.
std::optional<std::string_view> duplicate_key(const Value& obj) {
  const auto n = static_cast<std::size_t>(obj.MemberEnd() - obj.MemberBegin());
  if (n < 2) {
    return std::nullopt;
  }
  if (n <= 8) {
    for (auto a = obj.MemberBegin(); a != obj.MemberEnd(); ++a) {
      for (auto b = a + 1; b != obj.MemberEnd(); ++b) {
        if (key_of(*a) == key_of(*b)) {
          return key_of(*a);
        }
      }
    }
    return std::nullopt;
  }
  if (n <= 256) {
    std::size_t size = 32;
    while (size < 2 * n) {
      size *= 2;
    }
    std::uint16_t slots[512];   // member index + 1; 0 is empty
    std::uint64_t hashes[512];  // the hash of the key in the same slot
    std::fill_n(slots, size, std::uint16_t{0});
    const auto* members = &*obj.MemberBegin();
    for (std::size_t m = 0; m < n; ++m) {
      const std::string_view key = key_of(members[m]);
      const std::uint64_t h = key_hash(key);
      for (std::size_t s = h & (size - 1);; s = (s + 1) & (size - 1)) {
        if (slots[s] == 0) {
          slots[s] = static_cast<std::uint16_t>(m + 1);
          hashes[s] = h;
          break;
        }
        if (hashes[s] == h && key_of(members[slots[s] - 1]) == key) {
          return key;
        }
      }
    }
    return std::nullopt;
  }
  std::vector<std::string_view> keys;
  keys.reserve(n);
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

// Returns the length of the valid UTF-8 sequence starting at p[0] (a byte >= 0x80), or 0 when it
// is not one: overlong forms, UTF-16 surrogates, code points above U+10FFFF and truncated or stray
// continuation bytes are all invalid.
std::size_t utf8_sequence(const unsigned char* p, std::size_t left) {
  const unsigned char c = p[0];
  auto cont = [&](std::size_t i, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return i < left && p[i] >= lo && p[i] <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) {
    return cont(1) ? 2 : 0;
  }
  if (c == 0xE0) {
    return cont(1, 0xA0) && cont(2) ? 3 : 0;
  }
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (c == 0xED) {
    return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  }
  if (c == 0xF0) {
    return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  }
  if (c >= 0xF1 && c <= 0xF3) {
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  if (c == 0xF4) {
    return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

// Checks the raw bytes before RapidJSON sees them: valid UTF-8 (overlongs, surrogates and code
// points above U+10FFFF are rejected, so the parser can skip its own slower validation), no NUL
// byte (this lets the parser read a NUL-terminated copy) and no control byte other than tab, LF
// and CR (RapidJSON 1.1.0's SIMD string scan would let 0x1A-0x1F through; see
// admission/CMakeLists.txt). All of these are invalid JSON wherever they appear (outside strings
// only ASCII tokens and whitespace are valid), so no string tracking is needed and plain ASCII
// runs are skipped 16 or 8 bytes at a time.
Status check_bytes(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    // Skip to the next byte below 0x20 or above 0x7F.
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(0x20);
    while (i + 16 <= n) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      // Signed compare: bytes >= 0x80 are negative, so one compare catches both kinds.
      const auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(v, space)));
      if (mask != 0) {
        i += static_cast<std::size_t>(__builtin_ctz(mask));
        break;
      }
      i += 16;
    }
#endif
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, p + i, sizeof w);
      if ((((w - kOnes * 0x20) & ~w) | w) & kHigh) {  // a byte below 0x20 or above 0x7F
        break;
      }
      i += 8;
    }
    for (; i < n && p[i] >= 0x20 && p[i] < 0x80; ++i) {
    }
    if (i >= n) {
      break;
    }
    const unsigned char c = p[i];
    if (c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    if (c == 0) {
      return invalid_argument("not valid JSON: NUL byte (at byte offset " + std::to_string(i) +
                              ")");
    }
    if (c < 0x20) {
      constexpr char kHex[] = "0123456789ABCDEF";
      return invalid_argument("not valid JSON: control character 0x" +
                              std::string{kHex[c >> 4], kHex[c & 15]} +
                              " must be escaped (at byte offset " + std::to_string(i) + ")");
    }
    const std::size_t len = utf8_sequence(p + i, n - i);
    if (len == 0) {
      return invalid_argument("not valid JSON: invalid UTF-8 (at byte offset " + std::to_string(i) +
                              ")");
    }
    i += len;
  }
  return {};
}

// RapidJSON's DOM builder (the Document itself is the SAX handler) with a cap on nesting. The
// recursive parser calls StartObject/StartArray before it descends, so refusing the level past
// kMaxNestingDepth stops it at bounded recursion: 100k nested `[` never reach a deep stack.
class DepthLimitedBuilder {
 public:
  explicit DepthLimitedBuilder(Document& doc) : doc_(doc) {}
  bool too_deep() const { return too_deep_; }

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(std::int64_t i) { return doc_.Int64(i); }
  bool Uint64(std::uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return doc_.RawNumber(s, n, copy);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return doc_.String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return doc_.Key(s, n, copy); }
  bool StartObject() { return descend() && doc_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return doc_.EndObject(members);
  }
  bool StartArray() { return descend() && doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return doc_.EndArray(elements);
  }

 private:
  bool descend() {
    if (++depth_ > kMaxNestingDepth) {
      too_deep_ = true;
      return false;
    }
    return true;
  }

  Document& doc_;
  std::size_t depth_ = 0;
  bool too_deep_ = false;
};

// Fills `doc` from the NUL-terminated `text` (parsed in place when kInsitu: strings are then
// unescaped inside `text` and point into it) and maps RapidJSON's error to ours.
template <bool kInsitu>
Status build_document(char* text, Document& doc) {
  constexpr unsigned kFlags = kInsitu ? rapidjson::kParseInsituFlag : rapidjson::kParseDefaultFlags;
  rapidjson::ParseResult result;
  bool too_deep = false;
  auto generator = [&](Document& d) {
    DepthLimitedBuilder builder(d);
    rapidjson::Reader reader;
    if constexpr (kInsitu) {
      rapidjson::InsituStringStream in(text);
      result = reader.Parse<kFlags>(in, builder);
    } else {
      rapidjson::StringStream in(text);
      result = reader.Parse<kFlags>(in, builder);
    }
    too_deep = builder.too_deep();
    return !result.IsError();
  };
  doc.Populate(generator);
  if (too_deep) {
    // The parser stopped just after the opening bracket of the level that is one too deep.
    return invalid_argument("JSON nesting deeper than " + std::to_string(kMaxNestingDepth) +
                            " levels (at byte offset " + std::to_string(result.Offset() - 1) + ")");
  }
  if (result.IsError()) {
    return invalid_argument(std::string("not valid JSON: ") +
                            rapidjson::GetParseError_En(result.Code()) + " (at byte offset " +
                            std::to_string(result.Offset()) + ")");
  }
  return {};
}

// RapidJSON reads a NUL-terminated copy of the text: its fast string stream needs the terminator
// (the (pointer, length) overload goes through a slower bounds-checked stream). check_bytes() has
// ruled out NUL bytes inside the text, so the terminator is the only one. The padding keeps
// RapidJSON's 16-byte SIMD scans (enabled for this file only: admission/CMakeLists.txt says why)
// inside the allocation.
constexpr std::size_t kPadding = 16;

void copy_terminated(std::string_view text, char* out) {
  std::memcpy(out, text.data(), text.size());
  std::memset(out + text.size(), 0, kPadding);
}

// parse_in_place() sizes the pool's first chunk from the text: Kubernetes JSON has about one
// 16-byte node per 10-20 bytes of text, plus 32 bytes per object member; twice the text covers
// that, and the pool adds chunks of the same size if a document needs more.
std::size_t pool_bytes_for(std::size_t text_size) { return 2 * text_size + 1024; }

// The text region of ParsedJson's storage, rounded up so that the pool after it is aligned.
std::size_t text_bytes_for(std::size_t text_size) {
  return (text_size + kPadding + 15) & ~static_cast<std::size_t>(15);
}

}  // namespace

Result<Document> parse(std::string_view text) {
  RJG_RETURN_IF_ERROR(check_bytes(text));
  const std::unique_ptr<char[]> terminated(new char[text.size() + kPadding]);
  copy_terminated(text, terminated.get());
  Document doc;
  RJG_RETURN_IF_ERROR(build_document<false>(terminated.get(), doc));
  return doc;
}

ParsedJson::ParsedJson(std::size_t text_bytes, std::size_t pool_bytes)
    : storage_(new char[text_bytes + pool_bytes]),
      pool_(std::make_unique<rapidjson::MemoryPoolAllocator<>>(storage_.get() + text_bytes,
                                                               pool_bytes, pool_bytes)),
      doc_(pool_.get()) {}

Result<ParsedJson> parse_in_place(std::string_view text) {
  RJG_RETURN_IF_ERROR(check_bytes(text));
  // One allocation holds the terminated text and the pool's first chunk (operator new[] aligns
  // to 16 bytes, and text_bytes_for() keeps the pool at a multiple of 16 after it).
  const std::size_t text_bytes = text_bytes_for(text.size());
  const std::size_t pool_bytes = pool_bytes_for(text.size());
  ParsedJson out(text_bytes, pool_bytes);
  copy_terminated(text, out.storage_.get());
  RJG_RETURN_IF_ERROR(build_document<true>(out.storage_.get(), out.doc_));
  return out;
}

Status check_object(const Value& v, const Path& path) {
  if (!v.IsObject()) {
    return type_error(path, "an object", v);
  }
  if (const std::optional<std::string_view> dup = duplicate_key(v)) {
    return invalid_argument(where(path) + ": duplicate key \"" + std::string(*dup) + "\"");
  }
  return {};
}

std::string_view key_of(const Value::Member& m) {
  return {m.name.GetString(), m.name.GetStringLength()};
}

Error type_error(const Path& path, const char* what, const Value& v) {
  return invalid_argument(where(path) + ": expected " + what + ", got " + type_name(v));
}

Error error_at(const Path& path, std::string_view what) {
  std::string message = path.str();
  message += ": ";
  message += what;
  return invalid_argument(std::move(message));
}

// RapidJSON's FindMember calls memcmp for every member whose name has the key's length, and
// Kubernetes objects have many same-length names ("kind", "name", "spec"); comparing the first
// byte first skips almost all of those calls (decoding looks up every field it reads).
const Value* member(const Value& obj, std::string_view key) {
  assert(obj.IsObject());
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    const std::string_view name = key_of(*it);
    if (name.size() == key.size() &&
        (key.empty() ||
         (name[0] == key[0] && std::memcmp(name.data(), key.data(), key.size()) == 0))) {
      return it->value.IsNull() ? nullptr : &it->value;
    }
  }
  return nullptr;
}

Status read_string(const Value& obj, std::string_view key, const Path& path, std::string& out) {
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

Status read_string(const Value& obj, std::string_view key, const Path& path,
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

Status read_bool(const Value& obj, std::string_view key, const Path& path,
                 std::optional<bool>& out) {
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

Status read_bool(const Value& obj, std::string_view key, const Path& path, bool& out) {
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

Status read_int64(const Value& obj, std::string_view key, const Path& path,
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

Status read_int32(const Value& obj, std::string_view key, const Path& path,
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

namespace {

// Returns the map of `members` (string values), in O(n log n).
FlatMap<std::string> sorted_string_map(std::vector<const Value::Member*>& members) {
  // FlatMap keeps a sorted vector: inserting the members in document order costs O(n^2) when
  // their keys descend (every insertion at the front; seconds for a 1.4 MiB map of a request).
  // Sorted first, then taken over whole. Keys are unique (check_object ran).
  std::sort(members.begin(), members.end(), [](const Value::Member* a, const Value::Member* b) {
    return key_of(*a) < key_of(*b);
  });
  std::vector<FlatMap<std::string>::value_type> entries;
  entries.reserve(members.size());
  for (const Value::Member* member : members) {
    entries.emplace_back(key_of(*member), std::string_view(member->value.GetString(),
                                                           member->value.GetStringLength()));
  }
  return FlatMap<std::string>::from_sorted(std::move(entries));
}

// The map at `key` type-checked in one pass, each subset of `keep` collected; `present` says
// whether there was a map at all.
Status string_map(const Value& obj, std::string_view key, const Path& path,
                  std::span<const KeptPrefix> keep, bool& present) {
  present = false;
  const Value* v = member(obj, key);
  if (v == nullptr) {
    return {};
  }
  const Path p = path.field(key);
  if (!v->IsObject()) {
    return type_error(p, "an object of strings", *v);
  }
  RJG_RETURN_IF_ERROR(check_object(*v, p));
  std::vector<std::vector<const Value::Member*>> kept(keep.size());
  for (auto it = v->MemberBegin(); it != v->MemberEnd(); ++it) {
    if (!it->value.IsString()) {
      return type_error(p.field(key_of(*it)), "a string", it->value);
    }
    const std::string_view name = key_of(*it);
    for (std::size_t i = 0; i < keep.size(); ++i) {
      if (name.starts_with(keep[i].prefix)) {
        kept[i].push_back(&*it);
      }
    }
  }
  for (std::size_t i = 0; i < keep.size(); ++i) {
    *keep[i].out = sorted_string_map(kept[i]);
  }
  present = true;
  return {};
}

}  // namespace

Status read_string_map(const Value& obj, std::string_view key, const Path& path,
                       std::optional<FlatMap<std::string>>& out, std::string_view keep_prefix) {
  FlatMap<std::string> m;
  const KeptPrefix keep[] = {{keep_prefix, &m}};
  bool present = false;
  RJG_RETURN_IF_ERROR(string_map(obj, key, path, keep, present));
  if (present) {
    out = std::move(m);
  }
  return {};
}

Status split_string_map(const Value& obj, std::string_view key, const Path& path,
                        std::initializer_list<KeptPrefix> keep) {
  bool present = false;
  return string_map(obj, key, path, std::span<const KeptPrefix>(keep.begin(), keep.size()),
                    present);
}

Status read_string_list(const Value& obj, std::string_view key, const Path& path,
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

Result<const Value*> read_object(const Value& obj, std::string_view key, const Path& path) {
  const Value* v = member(obj, key);
  if (v == nullptr) {
    return static_cast<const Value*>(nullptr);
  }
  const Path p = path.field(key);
  RJG_RETURN_IF_ERROR(check_object(*v, p));
  return v;
}

Result<const Value*> read_required_object(const Value& obj, std::string_view key,
                                          const Path& path) {
  RJG_ASSIGN_OR_RETURN(const Value* v, read_object(obj, key, path));
  if (v == nullptr) {
    return invalid_argument(path.field(key).str() + ": required object is missing");
  }
  return v;
}

Result<const Value*> read_array(const Value& obj, std::string_view key, const Path& path) {
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
