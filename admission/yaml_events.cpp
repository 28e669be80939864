// yaml_events (see yaml_events.hpp).
#include "admission/yaml_events.hpp"

#include <yaml.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

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
