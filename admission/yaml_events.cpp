// yaml_events (see yaml_events.hpp).
#include "admission/yaml_events.hpp"

#include <yaml.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "common/utf8.hpp"

namespace rjg::admission::yaml {
namespace {

// Owns a libyaml parser reading from `text`, which must outlive it. Its marks count lines from
// `first_line` (0: the start of `text`); libyaml only compares lines, so the offset changes nothing
// else.
class Parser {
 public:
  explicit Parser(std::string_view text, std::size_t first_line = 0) {
    ok_ = yaml_parser_initialize(&parser_) != 0;
    if (ok_) {
      yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                   text.size());
      parser_.mark.line = first_line;
    }
  }
  ~Parser() {
    if (ok_) {
      yaml_parser_delete(&parser_);
    }
  }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  bool initialized() const { return ok_; }
  yaml_parser_t* get() { return &parser_; }

  // Returns "line L, column C: problem (context)" for the parser's current error.
  // Reader (encoding) errors carry a byte offset instead of a mark.
  std::string error() const {
    std::string out = parser_.error == YAML_READER_ERROR
                          ? "byte offset " + std::to_string(parser_.problem_offset) + ": "
                          : "line " + std::to_string(parser_.problem_mark.line + 1) + ", column " +
                                std::to_string(parser_.problem_mark.column + 1) + ": ";
    out += parser_.problem != nullptr ? parser_.problem : "YAML syntax error";
    if (parser_.context != nullptr) {
      out += " (";
      out += parser_.context;
      out += ")";
    }
    return out;
  }

 private:
  yaml_parser_t parser_{};
  bool ok_ = false;
};

// One event; deleted when it goes out of scope.
class Event {
 public:
  Event() = default;
  ~Event() { reset(); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Returns false on a parse error (the event is then empty).
  bool next(Parser& parser) {
    reset();
    live_ = yaml_parser_parse(parser.get(), &event_) != 0;
    return live_;
  }
  const yaml_event_t& operator*() const { return event_; }
  const yaml_event_t* operator->() const { return &event_; }

 private:
  void reset() {
    if (live_) {
      yaml_event_delete(&event_);
      live_ = false;
    }
  }
  yaml_event_t event_{};
  bool live_ = false;
};

std::string at(const yaml_mark_t& mark) {
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1);
}

const char* text_of(const yaml_char_t* s) { return reinterpret_cast<const char*>(s); }

Document::Tag tag_of(const yaml_char_t* tag) {
  using Tag = Document::Tag;
  if (tag == nullptr) {
    return Tag::kNone;
  }
  const std::string_view t = text_of(tag);
  if (t == YAML_STR_TAG) {
    return Tag::kStr;
  }
  if (t == YAML_INT_TAG) {
    return Tag::kInt;
  }
  if (t == YAML_FLOAT_TAG) {
    return Tag::kFloat;
  }
  if (t == YAML_BOOL_TAG) {
    return Tag::kBool;
  }
  if (t == YAML_NULL_TAG) {
    return Tag::kNull;
  }
  return t == "tag:yaml.org,2002:binary" ? Tag::kBinary : Tag::kOther;
}

bool is_null_scalar(const yaml_event_t& e) {
  const char* tag = text_of(e.data.scalar.tag);
  if (tag != nullptr) {
    return std::strcmp(tag, YAML_NULL_TAG) == 0;
  }
  if (e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
    return false;
  }
  const std::string_view v(text_of(e.data.scalar.value), e.data.scalar.length);
  return v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL";
}

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// libyaml's yaml_mark_t.index counts characters (code points; a CRLF is two), not bytes, and does
// not count a byte-order mark at the start of the stream. This turns such an index into the byte
// offset in the text. Marks are asked for in stream order, so the cursor only moves forward and
// the whole stream costs one pass. The bytes it walks over have been read and checked as UTF-8 by
// libyaml already.
class ByteOffsets {
 public:
  explicit ByteOffsets(std::string_view text)
      : text_(text), bom_(text.starts_with(kUtf8Bom) ? kUtf8Bom.size() : 0), byte_(bom_) {}

  std::size_t at(std::size_t index) {
    if (index < chars_) {
      chars_ = 0;  // never seen (marks come in order), but a restart keeps the answer right
      byte_ = bom_;
    }
    while (chars_ < index && byte_ < text_.size()) {
      byte_ += utf8_sequence_length(static_cast<unsigned char>(text_[byte_]));
      ++chars_;
    }
    return std::min(byte_, text_.size());
  }

 private:
  std::string_view text_;
  std::size_t bom_;
  std::size_t byte_;
  std::size_t chars_ = 0;
};

// True when the double-quoted scalar written at `raw` uses the escape `\/`: YAML 1.2 added it and
// libyaml 0.2.5 reads it, but go-yaml v2 (kubectl, the KubeRay operator) refuses it.
bool has_slash_escape(std::string_view raw) {
  for (std::size_t i = 0; i + 1 < raw.size(); ++i) {
    if (raw[i] == '\\') {
      if (raw[i + 1] == '/') {
        return true;
      }
      ++i;  // the escaped character
    }
  }
  return false;
}

}  // namespace

std::string_view Document::scalar(Index i) const {
  const Node& n = nodes_[resolve(i)];
  if (n.kind != Kind::kScalar) {
    return {};
  }
  return std::string_view(text_).substr(n.text_begin, n.text_size);
}

Document::Index Document::find(Index i, std::string_view key) const {
  if (kind(i) != Kind::kMapping) {
    return kNone;
  }
  for (Index k = first_child(i); k != kNone; k = next(nodes_[k].next)) {
    const Index v = nodes_[k].next;
    if (v == kNone) {
      return kNone;
    }
    if (kind(k) == Kind::kScalar && scalar(k) == key) {
      return v;
    }
  }
  return kNone;
}

Document::Index Document::append(Kind kind, std::uint32_t line, std::uint32_t column,
                                 Index parent) {
  const auto i = static_cast<Index>(nodes_.size());
  Node node;
  node.kind = kind;
  node.line = line;
  node.column = column;
  nodes_.push_back(node);
  if (parent != kNone) {
    Node& p = nodes_[parent];
    if (p.last_child == kNone) {
      p.first_child = i;
    } else {
      nodes_[p.last_child].next = i;
    }
    p.last_child = i;
  }
  return i;
}

void Document::set_text(Index i, std::string_view text) {
  nodes_[i].text_begin = static_cast<std::uint32_t>(text_.size());
  nodes_[i].text_size = static_cast<std::uint32_t>(text.size());
  text_.append(text);
}

Result<Document> parse_first_document(std::string_view text, const Limits& limits,
                                      std::size_t first_line) {
  using Index = Document::Index;
  Document doc;
  Parser parser(text, first_line);
  if (!parser.initialized()) {
    return internal_error("libyaml: parser initialization failed");
  }
  struct Anchor {
    std::string name;
    Index node;
  };
  std::vector<Anchor> anchors;
  std::vector<std::pair<Index, std::string>> open;  // collections being filled, with their anchor
  ByteOffsets offsets(text);
  Event event;

  // Appends a node under the innermost open collection (or as the root) and returns its index.
  auto add = [&](Document::Kind kind, const yaml_mark_t& mark) -> Result<Index> {
    if (doc.nodes_.size() >= limits.max_nodes) {
      return invalid_argument(at(mark) + ": more than " + std::to_string(limits.max_nodes) +
                              " YAML nodes");
    }
    return doc.append(kind, static_cast<std::uint32_t>(mark.line + 1),
                      static_cast<std::uint32_t>(mark.column + 1),
                      open.empty() ? Document::kNone : open.back().first);
  };

  while (true) {
    if (!event.next(parser)) {
      return invalid_argument(parser.error());
    }
    const yaml_event_t& e = *event;
    switch (e.type) {
      case YAML_STREAM_END_EVENT:
        return doc;
      case YAML_DOCUMENT_START_EVENT:
        break;
      case YAML_DOCUMENT_END_EVENT:
        return doc;
      case YAML_ALIAS_EVENT: {
        const char* name = text_of(e.data.alias.anchor);
        Index target = Document::kNone;
        for (auto it = anchors.rbegin(); it != anchors.rend(); ++it) {
          if (it->name == name) {
            target = it->node;
            break;
          }
        }
        if (target == Document::kNone) {
          return invalid_argument(at(e.start_mark) + ": alias *" + name +
                                  " names no finished anchor");
        }
        Result<Index> i = add(doc.nodes_[target].kind, e.start_mark);
        if (!i.ok()) {
          return i.error();
        }
        doc.nodes_[i.value()].alias_of = target;
        break;
      }
      case YAML_SCALAR_EVENT: {
        if (e.data.scalar.tag != nullptr && e.data.scalar.length == 0 &&
            e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
          // go-yaml v2 reads `,`, `]` and `}` right after a tag as part of the tag.
          const std::size_t after = offsets.at(e.end_mark.index);
          if (after < text.size() &&
              (text[after] == ',' || text[after] == ']' || text[after] == '}')) {
            return invalid_argument(at(e.start_mark) + ": kubectl reads the `" + text[after] +
                                    "` right after this tag as part of it; put a value or a "
                                    "space between them");
          }
        }
        if (e.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
          const std::size_t begin = offsets.at(e.start_mark.index);
          if (has_slash_escape(text.substr(begin, offsets.at(e.end_mark.index) - begin))) {
            return invalid_argument(at(e.start_mark) +
                                    ": the escape \\/ is YAML 1.2; kubectl's YAML 1.1 refuses "
                                    "it: write / alone");
          }
        }
        Result<Index> i =
            add(is_null_scalar(e) ? Document::Kind::kNull : Document::Kind::kScalar, e.start_mark);
        if (!i.ok()) {
          return i.error();
        }
        doc.set_text(i.value(),
                     std::string_view(text_of(e.data.scalar.value), e.data.scalar.length));
        doc.nodes_[i.value()].tag = tag_of(e.data.scalar.tag);
        doc.nodes_[i.value()].plain =
            e.data.scalar.tag == nullptr && e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (e.data.scalar.anchor != nullptr) {
          anchors.push_back({text_of(e.data.scalar.anchor), i.value()});
        }
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        if (open.size() >= limits.max_depth) {
          return invalid_argument(at(e.start_mark) + ": nesting deeper than " +
                                  std::to_string(limits.max_depth) + " levels");
        }
        const bool seq = e.type == YAML_SEQUENCE_START_EVENT;
        Result<Index> i =
            add(seq ? Document::Kind::kSequence : Document::Kind::kMapping, e.start_mark);
        if (!i.ok()) {
          return i.error();
        }
        const yaml_char_t* anchor =
            seq ? e.data.sequence_start.anchor : e.data.mapping_start.anchor;
        // Registered when the collection ends, so an alias inside it cannot make a cycle.
        open.emplace_back(i.value(), anchor != nullptr ? text_of(anchor) : std::string());
        break;
      }
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        if (!open.empty()) {
          if (!open.back().second.empty()) {
            anchors.push_back({std::move(open.back().second), open.back().first});
          }
          open.pop_back();
        }
        break;
      case YAML_STREAM_START_EVENT:
      case YAML_NO_EVENT:
        break;
    }
  }
}

namespace {

void render(const Document& doc, Document::Index i, std::string& out) {
  static constexpr const char* kKinds[] = {"null", "scalar", "seq", "map"};
  out += kKinds[static_cast<int>(doc.kind(i))];
  out += '@' + std::to_string(doc.line(i)) + ':' + std::to_string(doc.column(i));
  if (doc.kind(i) == Document::Kind::kScalar) {
    out += '"';
    out += doc.scalar(i);
    out += '"';
  }
  if (doc.kind(i) == Document::Kind::kSequence || doc.kind(i) == Document::Kind::kMapping) {
    out += '[';
    for (Document::Index c = doc.first_child(i); c != Document::kNone; c = doc.next(c)) {
      render(doc, c, out);
      out += ' ';
    }
    out += ']';
  }
}

}  // namespace

std::string debug_string(const Document& doc) {
  std::string out;
  if (!doc.empty()) {
    render(doc, 0, out);
  }
  return out;
}

Status check_stream(std::string_view text, std::size_t max_events) {
  Parser parser(text);
  if (!parser.initialized()) {
    return internal_error("libyaml: parser initialization failed");
  }
  Event event;
  for (std::size_t n = 0; n < max_events; ++n) {
    if (!event.next(parser)) {
      return invalid_argument(parser.error());
    }
    if (event->type == YAML_STREAM_END_EVENT) {
      return {};
    }
  }
  return invalid_argument("more than " + std::to_string(max_events) + " YAML events");
}

Result<std::vector<DocumentSpan>> document_spans(std::string_view text, std::size_t max_events,
                                                 std::size_t max_depth) {
  Parser parser(text);
  if (!parser.initialized()) {
    return internal_error("libyaml: parser initialization failed");
  }
  std::vector<DocumentSpan> spans;
  ByteOffsets offsets(text);
  Event event;
  std::size_t depth = 0;
  for (std::size_t n = 0; n < max_events; ++n) {
    if (!event.next(parser)) {
      return invalid_argument(parser.error());
    }
    if (event->type == YAML_SEQUENCE_START_EVENT || event->type == YAML_MAPPING_START_EVENT) {
      if (++depth > max_depth) {
        return invalid_argument(at(event->start_mark) + ": nesting deeper than " +
                                std::to_string(max_depth) + " levels (the limit)");
      }
    } else if (event->type == YAML_SEQUENCE_END_EVENT || event->type == YAML_MAPPING_END_EVENT) {
      --depth;
    } else if (event->type == YAML_DOCUMENT_START_EVENT) {
      const auto& start = event->data.document_start;
      if (start.version_directive != nullptr ||
          start.tag_directives.start != start.tag_directives.end) {
        // kubectl splits the directive from the document it belongs to, and then refuses it.
        return invalid_argument(at(event->start_mark) +
                                ": %YAML and %TAG directives are not supported; remove them");
      }
      DocumentSpan span;
      span.begin = offsets.at(event->start_mark.index);
      // Back to the start of the line, so that the document keeps its columns.
      while (span.begin > 0 && text[span.begin - 1] != '\n') {
        --span.begin;
      }
      span.line = event->start_mark.line;
      spans.push_back(span);
    } else if (event->type == YAML_DOCUMENT_END_EVENT && !spans.empty()) {
      spans.back().end = std::max(offsets.at(event->end_mark.index), spans.back().begin);
    } else if (event->type == YAML_STREAM_END_EVENT) {
      return spans;
    }
  }
  return invalid_argument("more than " + std::to_string(max_events) + " YAML events");
}

namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

Result<std::string_view> kubectl_stream(std::string_view text, std::string& storage,
                                        std::size_t first_line) {
  if (text.starts_with("\xFE\xFF") || text.starts_with("\xFF\xFE")) {
    return invalid_argument(
        "byte offset 0: the text is UTF-16 (it starts with a UTF-16 byte-order mark); save it as "
        "UTF-8");
  }
  std::string_view rest = text;
  if (rest.starts_with(kUtf8Bom)) {
    rest.remove_prefix(kUtf8Bom.size());  // kubectl's unicode.BOMOverride
  }
  // apimachinery's YAMLReader: a `---` line ends the piece being read and is dropped; when no
  // line has been read since the last piece ended, it is kept as the first line of the next.
  std::vector<std::size_t> piece_boms;  // offsets in `rest` of the byte-order marks that go
  bool piece_empty = true;              // no line read into the current piece yet
  bool piece_start = true;              // the next line is the first byte of a piece
  bool in_document = false;             // the piece has content or a `---`: `...` may end it
  bool blank_text = true;               // nothing but white space so far
  std::size_t first_tab_line = 0;       // the first line that starts with a tab
  std::size_t line = first_line;
  for (std::size_t pos = 0; pos < rest.size(); ++line) {
    std::size_t eol = rest.find('\n', pos);
    if (eol == std::string_view::npos) {
      eol = rest.size();
    }
    std::string_view l = rest.substr(pos, eol - pos);
    pos = eol + 1;
    const bool at_piece_start = piece_start;
    piece_start = false;
    if (l.find_first_not_of(" \t\r\v\f") != std::string_view::npos) {
      blank_text = false;
    } else if (l.starts_with('\t') && first_tab_line == 0) {
      first_tab_line = line;
    }
    if (l.starts_with(kUtf8Bom)) {
      if (!at_piece_start) {
        return invalid_argument("line " + std::to_string(line) +
                                ": a byte-order mark starts this line; kubectl reads it as part "
                                "of the text (it is allowed only at the start of the file or of "
                                "a document): remove it");
      }
      piece_boms.push_back(pos - (l.size() + 1));  // go-yaml drops it as it starts reading
      l.remove_prefix(kUtf8Bom.size());
    }
    if (l.starts_with("---#")) {
      return invalid_argument("line " + std::to_string(line) +
                              ": `---#`: kubectl ends a document here, YAML does not (it needs "
                              "white space after `---`), so the two would read different "
                              "documents; write `--- #`");
    }
    if (l.starts_with("---")) {
      const std::size_t after = l.find_first_not_of(" \t\r\v\f", 3);
      if (after != std::string_view::npos && l[after] != '#') {
        return invalid_argument("line " + std::to_string(line) +
                                ": a line that starts with `---` may hold only white space and a "
                                "comment after it (kubectl refuses it as a document separator); "
                                "put the rest on the next line");
      }
      if (!piece_empty) {
        piece_empty = true;
        piece_start = true;
        in_document = false;
        continue;
      }
      piece_empty = false;
      in_document = true;
      continue;
    }
    piece_empty = false;
    const std::size_t first = l.find_first_not_of(" \t\r\v\f");
    if (l.starts_with("...") && (l.size() == 3 || blank(l[3]))) {
      if (!in_document) {
        return invalid_argument("line " + std::to_string(line) +
                                ": `...` ends a document that has no content, which kubectl "
                                "refuses; remove the line");
      }
      in_document = false;
    } else if (first != std::string_view::npos && l[first] != '#') {
      in_document = true;
    }
  }
  if (blank_text && first_tab_line != 0) {
    // libyaml reads a text of white space as empty; go-yaml refuses the tab.
    return invalid_argument("line " + std::to_string(first_tab_line) +
                            ": found character that cannot start any token (a tab at the start "
                            "of a line; kubectl refuses it)");
  }
  // Its line reader also ends the last line with a line break (a `|+` scalar at the end keeps it).
  const bool add_break = !rest.empty() && rest.back() != '\n';
  if (piece_boms.empty() && !add_break) {
    return rest;
  }
  // libyaml would skip the marks too, but count them as a column.
  storage.clear();
  storage.reserve(rest.size() + 1);
  std::size_t from = 0;
  for (const std::size_t bom : piece_boms) {
    storage.append(rest.substr(from, bom - from));
    from = bom + kUtf8Bom.size();
  }
  storage.append(rest.substr(from));
  if (add_break) {
    storage += '\n';
  }
  return std::string_view(storage);
}

}  // namespace rjg::admission::yaml
