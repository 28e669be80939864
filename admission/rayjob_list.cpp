// RayJobList JSON -> reaper candidates. Every read goes through json_reader.hpp, so each field's
// type is checked before it is read and every error names its JSON path.
#include "admission/rayjob_list.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <utility>

#include "admission/json_reader.hpp"
#include "policy/reaper_annotations.hpp"

namespace rjg::admission {
namespace {

using json::Path;
using json::Value;

Status decode_metadata(const Value& item, const Path& path, policy::ReapCandidate& c) {
  const Path mpath = path.field("metadata");
  RJG_ASSIGN_OR_RETURN(const Value* meta, json::read_required_object(item, "metadata", path));
  const Value& m = *meta;
  for (const auto& [key, out] : {std::pair{"name", &c.name}, std::pair{"namespace", &c.namespace_},
                                 std::pair{"uid", &c.uid}}) {
    if (Status s = json::read_string(m, key, mpath, *out); !s) {
      return s;
    }
    if (out->empty()) {
      return invalid_argument(mpath.str() + "." + key + ": required string is missing");
    }
  }
  std::optional<std::string> deletion;
  if (Status s = json::read_string(m, "deletionTimestamp", mpath, deletion); !s) {
    return s;
  }
  c.being_deleted = deletion.has_value();
  std::optional<FlatMap<std::string>> annotations;
  if (Status s =
          json::read_string_map(m, "annotations", mpath, annotations, policy::kAnnotationPrefix);
      !s) {
    return s;
  }
  if (annotations) {
    c.annotations = std::move(*annotations);
  }
  return {};
}

Status decode_status(const Value& item, const Path& path, policy::ReapCandidate& c) {
  Result<const Value*> status = json::read_object(item, "status", path);
  if (!status) {
    return status.error();
  }
  if (status.value() == nullptr) {
    return {};  // a RayJob the operator has not reconciled yet
  }
  const Value& st = *status.value();
  const Path spath = path.field("status");
  if (Status s = json::read_string(st, "jobStatus", spath, c.job_status); !s) {
    return s;
  }
  if (Status s = json::read_string(st, "jobDeploymentStatus", spath, c.job_deployment_status); !s) {
    return s;
  }
  if (Status s = json::read_string(st, "message", spath, c.message); !s) {
    return s;
  }
  std::optional<std::string> end;
  if (Status s = json::read_string(st, "endTime", spath, end); !s) {
    return s;
  }
  if (end) {
    Result<std::int64_t> t = parse_rfc3339(*end);
    if (!t) {
      return invalid_argument(spath.field("endTime").str() + ": " + t.error().message);
    }
    c.end_time = t.value();
  }
  return {};
}

// Reads exactly `n` digits at `pos` into `out`. Returns false when any is not a digit.
bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) {
    return false;
  }
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') {
      return false;
    }
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

Result<std::int64_t> parse_rfc3339(std::string_view s) {
  const std::string quoted = "\"" + std::string(s) + "\"";
  const auto fail = [&]() -> Error {
    return invalid_argument(quoted + " is not an RFC 3339 date-time (like 2026-11-29T15:07:29Z)");
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, month) ||
      s[7] != '-' || !digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't') ||
      !digits(s, 11, 2, hour) || s[13] != ':' || !digits(s, 14, 2, minute) || s[16] != ':' ||
      !digits(s, 17, 2, second)) {
    return fail();
  }
  std::size_t pos = 19;
  if (s[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      ++pos;
    }
    if (pos == start) {
      return fail();
    }
  }
  int offset_seconds = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh = 0, om = 0;
    if (!digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !digits(s, pos + 4, 2, om) || oh > 23 || om > 59) {
      return fail();
    }
    offset_seconds = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return fail();
  }
  if (pos != s.size()) {
    return fail();
  }
  // Leap second 60 is allowed by RFC 3339; it is counted as the next second.
  if (hour > 23 || minute > 59 || second > 60) {
    return fail();
  }
  const std::chrono::year_month_day ymd{std::chrono::year{year},
                                        std::chrono::month{static_cast<unsigned>(month)},
                                        std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok()) {
    return fail();
  }
  const std::int64_t days = std::chrono::sys_days{ymd}.time_since_epoch().count();
  return days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
}

Status decode_reap_candidate(const Value& item, const Path& path, policy::ReapCandidate& out) {
  RJG_RETURN_IF_ERROR(json::check_object(item, path));
  RJG_RETURN_IF_ERROR(decode_metadata(item, path, out));
  return decode_status(item, path, out);
}

Result<std::string> decode_list_page(
    std::string_view text, std::string_view kind,
    const std::function<Status(const json::Value& item, const json::Path& path)>& each) {
  const std::string what = kind.empty() ? std::string("list") : std::string(kind);
  Result<json::Document> parsed = json::parse(text);
  if (!parsed) {
    return invalid_argument(what + ": " + parsed.error().message);
  }
  const json::Document& doc = parsed.value();
  const Path root("");  // a Path points at its parent, which must outlive it
  if (!doc.IsObject()) {
    const std::string expected = "a " + what + " object";
    return json::type_error(root, expected.c_str(), doc);
  }
  RJG_RETURN_IF_ERROR(json::check_object(doc, root));
  if (!kind.empty()) {
    std::optional<std::string> got;
    RJG_RETURN_IF_ERROR(json::read_string(doc, "kind", root, got));
    if (got != kind) {
      return invalid_argument("kind: expected \"" + what + "\", got " +
                              (got ? "\"" + *got + "\"" : std::string("nothing")));
    }
  }
  std::string continue_token;
  Result<const Value*> meta = json::read_object(doc, "metadata", root);
  if (!meta) {
    return meta.error();
  }
  if (meta.value() != nullptr) {
    RJG_RETURN_IF_ERROR(
        json::read_string(*meta.value(), "continue", root.field("metadata"), continue_token));
  }
  Result<const Value*> items = json::read_array(doc, "items", root);
  if (!items) {
    return items.error();
  }
  // The apiserver writes "items": [] for an empty list; a missing array means this is not one.
  if (items.value() == nullptr) {
    return invalid_argument("items: required array is missing");
  }
  const Path ipath = root.field("items");
  for (rapidjson::SizeType i = 0; i < items.value()->Size(); ++i) {
    RJG_RETURN_IF_ERROR(each((*items.value())[i], ipath.index(i)));
  }
  return continue_token;
}

Result<RayJobListPage> decode_rayjob_list(std::string_view text) {
  RayJobListPage page;
  Result<std::string> token =
      decode_list_page(text, "RayJobList", [&page](const Value& item, const Path& path) -> Status {
        policy::ReapCandidate c;
        RJG_RETURN_IF_ERROR(decode_reap_candidate(item, path, c));
        page.items.push_back(std::move(c));
        return {};
      });
  if (!token) {
    return token.error();
  }
  page.continue_token = std::move(token.value());
  return page;
}

std::string encode_delete_options(std::string_view uid) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("kind");
  w.String("DeleteOptions");
  w.Key("apiVersion");
  w.String("v1");
  w.Key("propagationPolicy");
  w.String("Background");
  w.Key("preconditions");
  w.StartObject();
  w.Key("uid");
  w.String(uid.data(), static_cast<rapidjson::SizeType>(uid.size()));
  w.EndObject();
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

}  // namespace rjg::admission
