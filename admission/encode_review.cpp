// encode_review (see encode_review.hpp).
#include "admission/encode_review.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdint>

#include "admission/finding_format.hpp"
#include "common/utf8.hpp"
#include "common/visible_text.hpp"

namespace rjg::admission {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void put(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void key(Writer& w, std::string_view s) {
  w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

std::size_t rune_count(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();
       i += utf8_sequence_length(static_cast<unsigned char>(s[i]))) {
    ++n;
  }
  return n;
}

// Byte offset just past the first `runes` runes of `s` (s.size() when it is shorter).
std::size_t offset_after_runes(std::string_view s, std::size_t runes) {
  std::size_t i = 0;
  for (std::size_t n = 0; n < runes && i < s.size(); ++n) {
    i += std::min(utf8_sequence_length(static_cast<unsigned char>(s[i])), s.size() - i);
  }
  return i;
}

constexpr std::string_view kContinuation = "... ";
// A finding longer than this many pieces is cut: no real message comes near it.
constexpr std::size_t kMaxPiecesPerWarning = 4;

// Splits one sanitized warning into pieces of at most kMaxWarningRunes runes, at a space where
// there is one in the last third of a piece. Pieces after the first start with "... ", so kubectl
// shows a long finding as consecutive Warning: lines that still read as one sentence and keep
// the "what to do" part, instead of a cut line that loses it.
std::vector<std::string> split_warning(std::string_view text) {
  std::vector<std::string> pieces;
  while (!text.empty()) {
    const bool first = pieces.empty();
    const std::size_t room = kMaxWarningRunes - (first ? 0 : kContinuation.size());
    const std::string prefix = first ? std::string() : std::string(kContinuation);
    if (rune_count(text) <= room) {
      pieces.push_back(prefix + std::string(text));
      break;
    }
    if (pieces.size() + 1 == kMaxPiecesPerWarning) {
      pieces.push_back(prefix + std::string(text.substr(0, offset_after_runes(text, room - 3))) +
                       "...");
      break;
    }
    std::size_t cut = offset_after_runes(text, room);
    const std::size_t space = text.rfind(' ', cut);
    if (space != std::string_view::npos && space >= offset_after_runes(text, room * 2 / 3)) {
      cut = space;
    }
    pieces.push_back(prefix + std::string(text.substr(0, cut)));
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == ' ') {
      text.remove_prefix(1);
    }
  }
  return pieces;
}

std::string more_line(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " more warning" : " more warnings") +
         ": run rayjob-guard check";
}

}  // namespace

std::vector<std::string> build_warnings(const policy::Findings& warnings) {
  // One group of pieces per distinct finding text; a group is shown whole or not at all.
  std::vector<std::string> texts;
  std::vector<std::vector<std::string>> groups;
  for (const policy::Finding& f : warnings) {
    // The apiserver drops a warning holding a control character, and kubectl prints what it
    // keeps to the tenant's terminal: visible() leaves neither.
    std::string text = visible(format_finding(f));
    if (std::find(texts.begin(), texts.end(), text) == texts.end()) {
      groups.push_back(split_warning(text));
      texts.push_back(std::move(text));
    }
  }
  auto group_runes = [](const std::vector<std::string>& group) {
    std::size_t n = 0;
    for (const std::string& piece : group) {
      n += rune_count(piece);
    }
    return n;
  };
  std::vector<std::string> out;
  std::size_t used = 0;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::size_t len = group_runes(groups[i]);
    const bool last = i + 1 == groups.size();
    const std::size_t reserve = last ? 0 : rune_count(more_line(groups.size() - i - 1));
    if (used + len + reserve > kWarningBudgetRunes) {
      out.push_back(more_line(groups.size() - i));
      return out;
    }
    used += len;
    for (std::string& piece : groups[i]) {
      out.push_back(std::move(piece));
    }
  }
  return out;
}

std::string deny_message(const policy::Findings& denials) {
  std::string message;
  for (const policy::Finding& f : denials) {
    if (!message.empty()) {
      message += '\n';
    }
    // kubectl prints the message as it is ("Error from server (Forbidden): ..."): what a
    // finding quotes from the manifest must not act on the tenant's terminal.
    message += visible(format_finding(f));
  }
  return message;
}

std::string encode_review(const ResponseContext& context, const policy::Verdict& verdict) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  key(w, "apiVersion");
  put(w, "admission.k8s.io/v1");
  key(w, "kind");
  put(w, "AdmissionReview");
  key(w, "response");
  w.StartObject();
  key(w, "uid");
  put(w, context.uid);
  key(w, "allowed");
  w.Bool(verdict.allowed);
  if (!verdict.allowed) {
    key(w, "status");
    w.StartObject();
    key(w, "status");
    put(w, "Failure");
    key(w, "code");
    w.Int(403);
    key(w, "reason");
    put(w, "Forbidden");
    key(w, "message");
    put(w, deny_message(verdict.denials));
    key(w, "details");
    w.StartObject();
    key(w, "name");
    put(w, context.name);
    key(w, "group");
    put(w, "ray.io");
    key(w, "kind");
    put(w, "rayjobs");
    key(w, "causes");
    w.StartArray();
    for (const policy::Finding& f : verdict.denials) {
      w.StartObject();
      key(w, "reason");
      put(w, "FieldValueForbidden");
      key(w, "message");
      put(w, visible(format_cause_message(f)));
      if (!f.field.empty()) {
        key(w, "field");
        put(w, f.field);
      }
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    w.EndObject();
  }
  if (!verdict.warnings.empty()) {
    key(w, "warnings");
    w.StartArray();
    for (const std::string& s : build_warnings(verdict.warnings)) {
      put(w, s);
    }
    w.EndArray();
  }
  key(w, "auditAnnotations");
  w.StartObject();
  key(w, "rayjob-guard-policy");
  put(w, context.policy_hash);
  auto join = [](const std::vector<std::string>& ids) {
    std::string out;
    for (const std::string& id : ids) {
      if (!out.empty()) {
        out += ',';
      }
      out += id;
    }
    return out;
  };
  if (!verdict.denials.empty()) {
    key(w, "rayjob-guard-denied");
    put(w, join(distinct_rule_ids(verdict.denials)));
  }
  if (!verdict.warnings.empty()) {
    key(w, "rayjob-guard-warned");
    put(w, join(distinct_rule_ids(verdict.warnings)));
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace rjg::admission
