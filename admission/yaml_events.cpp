// yaml_events (see yaml_events.hpp).
#include "admission/yaml_events.hpp"

#include <yaml.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

namespace rjg::admission::yaml {
namespace {

// Owns a libyaml parser reading from `text`, which must outlive it.
class Parser {
 public:
  explicit Parser(std::string_view text) {
    ok_ = yaml_parser_initialize(&parser_) != 0;
    if (ok_) {
      yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                   text.size());
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

Result<Document> parse_first_document_with_libyaml(std::string_view text, const Limits& limits) {
  using Index = Document::Index;
  Document doc;
  Parser parser(text);
  if (!parser.initialized()) {
    return internal_error("libyaml: parser initialization failed");
  }
  struct Anchor {
    std::string name;
    Index node;
  };
  std::vector<Anchor> anchors;
  std::vector<std::pair<Index, std::string>> open;  // collections being filled, with their anchor
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
        Result<Index> i =
            add(is_null_scalar(e) ? Document::Kind::kNull : Document::Kind::kScalar, e.start_mark);
        if (!i.ok()) {
          return i.error();
        }
        doc.set_text(i.value(),
                     std::string_view(text_of(e.data.scalar.value), e.data.scalar.length));
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

// Reads the plain block YAML runtimeEnvYAML is nearly always written in, building exactly the
// Document libyaml's events build (same nodes in the same order, same kinds, texts, lines and
// columns), or declines so that libyaml reads the text instead. It accepts only:
// - printable ASCII and '\n' (no tab, CR, control or non-ASCII byte), and no line starting with
//   "---", "..." or '%' (document markers, directives);
// - a root block mapping at column 1; blank lines and comment lines anywhere;
// - mapping entries `key: value` and `key:` followed by a more indented block, or by a sequence at
//   the key's own indentation; keys are plain, start with a letter, digit, '_' or '$', hold only
//   letters, digits and `_ - . / $`, and are at most 1000 characters;
// - sequence entries `- value`;
// - values on one line: plain scalars that start with a letter, digit or one of `_ . / ~ $ ( + =
//   < ^ ;` and hold no ": " and do not end in ':' (a " #" starts a comment), or single- or
//   double-quoted scalars without escapes or their own quote inside, followed by nothing or a
//   comment.
// Anything else (empty values, nested collections in sequences, multi-line scalars, flow
// collections, anchors, tags, block scalars, escapes...) declines, as does a text that would
// exceed the limits. Declining is never an error: libyaml decides.
class SimpleBlockReader {
 public:
  SimpleBlockReader(std::string_view text, const Limits& limits)
      : text_(text),
        max_nodes_(limits.max_nodes),
        max_depth_(std::min<std::size_t>(limits.max_depth, 32)) {}

  // Returns the Document, or nullopt to decline.
  std::optional<Document> read() && {
    if (!split_lines() || lines_.empty() || lines_[0].indent != 0) {
      return std::nullopt;
    }
    if (!mapping(0, Document::kNone, 0) || pos_ != lines_.size()) {
      return std::nullopt;
    }
    return std::move(doc_);
  }

 private:
  using Index = Document::Index;
  struct Line {
    std::uint32_t number = 0;  // 1-based
    std::size_t indent = 0;
    std::string_view content;  // after the indentation; never blank, never a comment
  };

  static bool is_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }
  static bool starts_entry(std::string_view content) {
    return content.size() >= 2 && content[0] == '-' && content[1] == ' ';
  }

  bool split_lines() {
    std::uint32_t number = 0;
    std::size_t begin = 0;
    while (begin < text_.size()) {
      std::size_t end = text_.find('\n', begin);
      if (end == std::string_view::npos) {
        end = text_.size();
      }
      ++number;
      const std::string_view line = text_.substr(begin, end - begin);
      begin = end + 1;
      for (char c : line) {
        if (c < 0x20 || c > 0x7e) {
          return false;
        }
      }
      if (line.substr(0, 3) == "---" || line.substr(0, 3) == "..." ||
          (!line.empty() && line[0] == '%')) {
        return false;
      }
      const std::size_t indent = line.find_first_not_of(' ');
      if (indent == std::string_view::npos || line[indent] == '#') {
        continue;  // blank or comment
      }
      lines_.push_back({number, indent, line.substr(indent)});
    }
    return true;
  }

  bool add(Document::Kind kind, std::uint32_t line, std::size_t column, Index parent, Index& out) {
    if (doc_.nodes_.size() >= max_nodes_) {
      return false;
    }
    out = doc_.append(kind, line, static_cast<std::uint32_t>(column), parent);
    return true;
  }

  // Adds the scalar `value` begins with (`value` is the rest of the line from the scalar's first
  // character, at 0-based `column` of line `line`) as the last child of `parent`.
  bool scalar(std::string_view value, std::uint32_t line, std::size_t column, Index parent) {
    std::string_view text;
    std::string_view rest;
    Document::Kind kind = Document::Kind::kScalar;
    const char first = value[0];
    if (first == '"' || first == '\'') {
      const std::size_t close = value.find(first, 1);
      if (close == std::string_view::npos) {
        return false;
      }
      text = value.substr(1, close - 1);
      if (first == '"' && text.find('\\') != std::string_view::npos) {
        return false;
      }
      rest = value.substr(close + 1);
      const std::size_t after = rest.find_first_not_of(' ');
      if (after != std::string_view::npos && (after == 0 || rest[after] != '#')) {
        return false;
      }
    } else {
      if (!is_alnum(first) &&
          std::string_view("_./~$(+=<^;").find(first) == std::string_view::npos) {
        return false;
      }
      text = value;
      if (const std::size_t comment = text.find(" #"); comment != std::string_view::npos) {
        text = text.substr(0, comment);
      }
      text = text.substr(0, text.find_last_not_of(' ') + 1);
      if (text.find(": ") != std::string_view::npos || text.back() == ':') {
        return false;
      }
      if (text == "~" || text == "null" || text == "Null" || text == "NULL") {
        kind = Document::Kind::kNull;
      }
    }
    Index i = Document::kNone;
    if (!add(kind, line, column + 1, parent, i)) {
      return false;
    }
    doc_.set_text(i, text);
    return true;
  }

  // The block mapping whose keys are at `indent`, starting at lines_[pos_].
  bool mapping(std::size_t indent, Index parent, std::size_t depth) {
    if (depth >= max_depth_) {
      return false;
    }
    Index node = Document::kNone;
    if (!add(Document::Kind::kMapping, lines_[pos_].number, indent + 1, parent, node)) {
      return false;
    }
    while (pos_ < lines_.size() && lines_[pos_].indent == indent) {
      const Line& line = lines_[pos_];
      const std::string_view content = line.content;
      std::size_t colon = 0;
      while (colon < content.size() && !(content[colon] == ':' && (colon + 1 == content.size() ||
                                                                   content[colon + 1] == ' '))) {
        ++colon;
      }
      if (colon == content.size() || colon == 0 || colon > 1000) {
        return false;
      }
      const std::string_view key = content.substr(0, colon);
      if (!is_alnum(key[0]) && key[0] != '_' && key[0] != '$') {
        return false;
      }
      for (char c : key) {
        if (!is_alnum(c) && std::string_view("_-./$").find(c) == std::string_view::npos) {
          return false;
        }
      }
      if (!scalar(key, line.number, indent, node)) {
        return false;
      }
      const std::size_t value_at = content.find_first_not_of(' ', colon + 1);
      if (value_at != std::string_view::npos && content[value_at] != '#') {
        if (!scalar(content.substr(value_at), line.number, indent + value_at, node)) {
          return false;
        }
        ++pos_;
        if (pos_ < lines_.size() && lines_[pos_].indent > indent) {
          return false;  // a continuation line or a misplaced block
        }
        continue;
      }
      // `key:` (maybe with a comment): the value is the block that follows.
      ++pos_;
      if (pos_ == lines_.size()) {
        return false;  // an empty (null) value
      }
      const Line& next = lines_[pos_];
      const bool entry = starts_entry(next.content);
      bool ok = false;
      if (next.indent > indent) {
        ok = entry ? sequence(next.indent, node, depth + 1, false)
                   : mapping(next.indent, node, depth + 1);
      } else if (next.indent == indent && entry) {
        ok = sequence(indent, node, depth + 1, true);
      }
      if (!ok) {
        return false;
      }
      if (pos_ < lines_.size() && lines_[pos_].indent > indent) {
        return false;  // a dedent to no enclosing block's indentation
      }
    }
    return true;
  }

  // The block sequence whose entries are at `indent`, starting at lines_[pos_]. `indentless`: it
  // sits at its parent key's indentation, so a line there that is not an entry is the parent's.
  bool sequence(std::size_t indent, Index parent, std::size_t depth, bool indentless) {
    if (depth >= max_depth_) {
      return false;
    }
    Index node = Document::kNone;
    if (!add(Document::Kind::kSequence, lines_[pos_].number, indent + 1, parent, node)) {
      return false;
    }
    while (pos_ < lines_.size() && lines_[pos_].indent == indent &&
           starts_entry(lines_[pos_].content)) {
      const Line& line = lines_[pos_];
      const std::size_t value_at = line.content.find_first_not_of(' ', 2);
      if (value_at == std::string_view::npos || line.content[value_at] == '#') {
        return false;  // an empty entry, or a nested block
      }
      if (!scalar(line.content.substr(value_at), line.number, indent + value_at, node)) {
        return false;
      }
      ++pos_;
      if (pos_ < lines_.size() && lines_[pos_].indent > indent) {
        return false;
      }
    }
    return indentless || pos_ == lines_.size() || lines_[pos_].indent < indent;
  }

  std::string_view text_;
  std::size_t max_nodes_;
  std::size_t max_depth_;
  std::vector<Line> lines_;
  std::size_t pos_ = 0;
  Document doc_;
};

Result<Document> parse_first_document(std::string_view text, const Limits& limits) {
  if (std::optional<Document> doc = SimpleBlockReader(text, limits).read()) {
    return std::move(*doc);
  }
  return parse_first_document_with_libyaml(text, limits);
}

bool takes_short_path(std::string_view text, const Limits& limits) {
  return SimpleBlockReader(text, limits).read().has_value();
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

Result<std::vector<DocumentSpan>> document_spans(std::string_view text, std::size_t max_events) {
  Parser parser(text);
  if (!parser.initialized()) {
    return internal_error("libyaml: parser initialization failed");
  }
  std::vector<DocumentSpan> spans;
  Event event;
  for (std::size_t n = 0; n < max_events; ++n) {
    if (!event.next(parser)) {
      return invalid_argument(parser.error());
    }
    if (event->type == YAML_DOCUMENT_START_EVENT) {
      DocumentSpan span;
      span.begin = std::min(event->start_mark.index, text.size());
      // Back to the start of the line, so that the document keeps its columns.
      while (span.begin > 0 && text[span.begin - 1] != '\n') {
        --span.begin;
      }
      span.line = event->start_mark.line;
      spans.push_back(span);
    } else if (event->type == YAML_DOCUMENT_END_EVENT && !spans.empty()) {
      spans.back().end = std::min(std::max(event->end_mark.index, spans.back().begin), text.size());
    } else if (event->type == YAML_STREAM_END_EVENT) {
      return spans;
    }
  }
  return invalid_argument("more than " + std::to_string(max_events) + " YAML events");
}

}  // namespace rjg::admission::yaml
