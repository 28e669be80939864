// encode_review (see encode_review.hpp).
#include "admission/encode_review.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdint>

#include "admission/finding_format.hpp"

namespace rjg::admission {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void put(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void key(Writer& w, std::string_view s) {
  w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// Length of the UTF-8 sequence starting with `lead` (1 for a stray byte, so we always advance).
std::size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) {
    return 1;
  }
  if ((lead & 0xE0) == 0xC0) {
    return 2;
  }
  if ((lead & 0xF0) == 0xE0) {
    return 3;
  }
  if ((lead & 0xF8) == 0xF0) {
    return 4;
  }
  return 1;
}

std::size_t rune_count(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); i += sequence_length(static_cast<unsigned char>(s[i]))) {
    ++n;
  }
  return n;
}

// The apiserver silently drops a warning containing a control character (C0, DEL or C1).
std::string sanitize_and_cut(std::string_view text) {
  std::string out;
  out.reserve(std::min(text.size(), kMaxWarningRunes * 4));
  std::size_t runes = 0;
  const std::size_t total = rune_count(text);
  const std::size_t keep = total > kMaxWarningRunes ? kMaxWarningRunes - 3 : total;
  for (std::size_t i = 0; i < text.size() && runes < keep;) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t len = std::min(sequence_length(lead), text.size() - i);
    const bool c0_or_del = len == 1 && (lead < 0x20 || lead == 0x7F);
    const bool c1 = len == 2 && lead == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
    if (c0_or_del || c1 || (len == 1 && lead >= 0x80)) {
      out += ' ';
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
    ++runes;
  }
  if (total > kMaxWarningRunes) {
    out += "...";
  }
  return out;
}

std::string more_line(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " more warning" : " more warnings") +
         ": run rayjob-guard check";
}

}  // namespace

std::vector<std::string> build_warnings(const policy::Findings& warnings) {
  std::vector<std::string> distinct;
  distinct.reserve(warnings.size());
  for (const policy::Finding& f : warnings) {
    std::string w = sanitize_and_cut(format_finding(f));
    if (std::find(distinct.begin(), distinct.end(), w) == distinct.end()) {
      distinct.push_back(std::move(w));
    }
  }
  std::size_t total = 0;
  for (const std::string& w : distinct) {
    total += rune_count(w);
  }
  if (total <= kWarningBudgetRunes) {
    return distinct;
  }
  // Over budget: keep a prefix that leaves room for the final "N more" line.
  std::vector<std::string> out;
  std::size_t used = 0;
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    const std::size_t reserve = rune_count(more_line(distinct.size() - i));
    const std::size_t len = rune_count(distinct[i]);
    if (used + len + reserve > kWarningBudgetRunes) {
      out.push_back(more_line(distinct.size() - i));
      return out;
    }
    used += len;
    out.push_back(std::move(distinct[i]));
  }
  return out;
}

std::string deny_message(const policy::Findings& denials) {
  std::string message;
  for (const policy::Finding& f : denials) {
    if (!message.empty()) {
      message += '\n';
    }
    message += format_finding(f);
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
      put(w, format_cause_message(f));
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
