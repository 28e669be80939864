// yaml_events: a small reader over libyaml's event parser. It builds a compact, read-only tree of
// one YAML document (scalars, sequences, mappings; aliases point at their anchored node instead of
// copying it, so the tree is linear in the input; scalar style and tags are kept), and it can scan
// a whole stream for syntax errors. It is the project's one YAML reader: runtimeEnvYAML on the
// request path, and manifests, policy files and kubeconfigs (yaml_to_json.hpp, kubeconfig.hpp).
// It replaced yaml-cpp 0.7, which was an order of magnitude slower on runtimeEnvYAML and loops
// forever on some malformed input (fuzz/regressions/*/yaml-loadall-hang-*).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "admission/nesting_limit.hpp"
#include "common/result.hpp"

namespace rjg::admission::yaml {

// Budgets for one parse: events (nodes, aliases included) and nesting depth (nesting_limit.hpp).
struct Limits {
  std::size_t max_nodes = 100'000;
  std::size_t max_depth = kMaxNestingDepth;
};

// One parsed YAML document. Node 0 is the root. Values returned by accessors point into the
// Document, which must outlive them.
class Document {
 public:
  enum class Kind : std::uint8_t { kNull, kScalar, kSequence, kMapping };
  // A scalar's explicit tag: none, one of YAML's standard scalar tags (!!str, !!int, ...), or any
  // other (a local tag such as !foo, or a standard one go-yaml does not resolve).
  enum class Tag : std::uint8_t { kNone, kStr, kInt, kFloat, kBool, kNull, kBinary, kOther };
  using Index = std::uint32_t;
  static constexpr Index kNone = static_cast<Index>(-1);

  // Returns the kind of node `i` (aliases resolved). A plain scalar spelled ""/~/null/Null/NULL
  // or tagged !!null is kNull, as go-yaml reads it.
  Kind kind(Index i) const { return nodes_[resolve(i)].kind; }
  // Returns the text of scalar node `i` (empty for other kinds).
  std::string_view scalar(Index i) const;
  // True for a plain scalar without a tag (aliases resolved): YAML 1.1 resolution applies to it
  // (null, bool, int, float); quoted, block and tagged scalars are strings as written.
  bool plain(Index i) const { return nodes_[resolve(i)].plain; }
  // The explicit tag of scalar node `i` (aliases resolved); kNone for other kinds.
  Tag tag(Index i) const { return nodes_[resolve(i)].tag; }
  // Returns the first child of sequence `i` (for a mapping: its first key, followed by that key's
  // value, the next key...), or kNone.
  Index first_child(Index i) const { return nodes_[resolve(i)].first_child; }
  // Returns the sibling after node `i` in its parent, or kNone.
  Index next(Index i) const { return nodes_[i].next; }
  // Returns the value of the first key of mapping `i` whose scalar text is `key`, or kNone when
  // absent or when `i` is not a mapping.
  Index find(Index i, std::string_view key) const;
  // 1-based line and column where node `i` starts.
  std::uint32_t line(Index i) const { return nodes_[i].line; }
  std::uint32_t column(Index i) const { return nodes_[i].column; }
  // True when the stream held no document at all (empty text, comments only).
  bool empty() const { return nodes_.empty(); }

 private:
  friend Result<Document> parse_first_document(std::string_view, const Limits&, std::size_t);
  struct Node {
    Kind kind = Kind::kNull;
    bool plain = false;       // a plain, untagged scalar
    Tag tag = Tag::kNone;
    Index alias_of = kNone;  // for an alias: the anchored node it stands for
    Index first_child = kNone;
    Index last_child = kNone;
    Index next = kNone;
    std::uint32_t text_begin = 0;  // scalar text in text_
    std::uint32_t text_size = 0;
    std::uint32_t line = 0;
    std::uint32_t column = 0;
  };
  Index resolve(Index i) const { return nodes_[i].alias_of == kNone ? i : nodes_[i].alias_of; }
  // Appends a node of `kind` starting at 1-based (`line`, `column`) as the last child of `parent`
  // (kNone: the root), and returns its index.
  Index append(Kind kind, std::uint32_t line, std::uint32_t column, Index parent);
  // Stores `text` as the text of scalar (or null) node `i`.
  void set_text(Index i, std::string_view text);

  std::vector<Node> nodes_;
  std::string text_;  // every scalar's text, back to back
};

// Parses the first document of `text` (later documents are not read, as go-yaml's Unmarshal
// does). Returns kInvalidArgument "line L, column C: <libyaml problem>" for a
// syntax error ("byte offset N: ..." for invalid UTF-8 or control characters), an alias to an
// unknown (or still open) anchor, or a budget overrun. An empty stream gives an empty() Document.
// Every text goes through libyaml: the hand-written short path for plain block YAML that was here
// saved about 1.7 us of a review that sits behind a multi-millisecond apiserver hop, and was
// removed (docs/performance.md).
// `first_line` is the number of lines before `text` in the file it was cut from (a document of
// a multi-document stream, see document_spans()): lines in nodes and messages count from there,
// without the caller handing over those lines (re-reading them for every document of a file is
// quadratic in the number of documents).
Result<Document> parse_first_document(std::string_view text, const Limits& limits = {},
                                      std::size_t first_line = 0);

// Returns a one-line rendering of every node of `doc` (kind, line:column, scalar text, children),
// so that two Documents can be compared. For tests and the fuzz target.
std::string debug_string(const Document& doc);

// Reads every event of every document of `text` without building anything. Returns ok or the
// first error, as parse_first_document words it. Cost is linear in the input.
Status check_stream(std::string_view text, std::size_t max_events = 10'000'000);

// Where one document of a stream lies: text.substr(begin, end - begin) holds exactly it (byte
// offsets), and `begin` is the start of the line its first event is on (`line` lines precede it).
struct DocumentSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t line = 0;
};

// Checks the whole stream as check_stream does, and returns the span of every document, so that
// a caller can hand each document alone to a parser that must not see the others. A UTF-8
// byte-order mark is accepted at the start of the stream and at the start of a line, as kubectl
// and libyaml accept it; the spans are byte offsets either way. kInvalidArgument: nesting deeper
// than `max_depth` ("line L, column C: nesting deeper than N levels (the limit)", found in time
// linear in the input, before any parser builds a tree), %YAML or %TAG directives.
Result<std::vector<DocumentSpan>> document_spans(std::string_view text,
                                                 std::size_t max_events = 10'000'000,
                                                 std::size_t max_depth = kMaxNestingDepth);

// kubectl's reading of a file's lines before any YAML, for a reader that must see what kubectl
// sees (apimachinery's document splitter after cli-runtime's byte-order-mark handling): a file
// is cut into pieces at every line that starts with `---`, and each piece is read alone. Returns
// the text to parse: `text` without the byte-order marks kubectl drops (at the start of the file
// and of each piece; libyaml would skip them too, but count them as a column) and ending with a
// line break (kubectl's line reader adds one to the last line), a view into
// `text` or into `storage`, which must outlive it. kInvalidArgument "line L: ..." for what kubectl
// refuses or reads differently from libyaml: a UTF-16 text (save it as UTF-8), a line that starts
// with `---` followed by more than white space and a comment, or by a comment with no white space
// before it (`---#`: a separator for kubectl, not for YAML), a `...` that ends a piece with no
// content, a byte-order mark at the start of another line (kubectl reads it as text). Linear.
// `first_line` numbers the first line of `text` in messages.
Result<std::string_view> kubectl_stream(std::string_view text, std::string& storage,
                                        std::size_t first_line = 1);

}  // namespace rjg::admission::yaml
