// fix (see fix.hpp).
#include "admission/fix.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "admission/finding_format.hpp"

namespace rjg::admission {

namespace {

// One step of a field path: a key (`name` or `[key]`) or a list index (`[N]`).
struct Step {
  std::string key;
  std::optional<std::size_t> index;  // set for `[N]`
};

Result<std::vector<Step>> parse_path(std::string_view field) {
  std::vector<Step> steps;
  std::size_t i = 0;
  const auto bad = [&](std::string_view why) {
    return invalid_argument("fix path \"" + std::string(field) + "\": " + std::string(why));
  };
  while (i < field.size()) {
    if (field[i] == '[') {
      const std::size_t close = field.find(']', i);
      if (close == std::string_view::npos || close == i + 1) {
        return bad("unclosed or empty []");
      }
      const std::string_view inner = field.substr(i + 1, close - i - 1);
      Step step{std::string(inner), std::nullopt};
      if (inner.find_first_not_of("0123456789") == std::string_view::npos && inner.size() < 10) {
        step.index = std::stoul(std::string(inner));
      }
      steps.push_back(std::move(step));
      i = close + 1;
      if (i < field.size() && field[i] == '.') {
        ++i;
      }
      continue;
    }
    const std::size_t end = field.find_first_of(".[", i);
    const std::size_t stop = end == std::string_view::npos ? field.size() : end;
    if (stop == i) {
      return bad("empty name");
    }
    steps.push_back(Step{std::string(field.substr(i, stop - i)), std::nullopt});
    i = stop;
    if (i < field.size() && field[i] == '.') {
      ++i;
    }
  }
  if (steps.empty()) {
    return bad("empty");
  }
  return steps;
}

// Whether `inner` is `outer` or lies inside it ("spec.a" holds "spec.a.b" and "spec.a[0]").
bool within(std::string_view inner, std::string_view outer) {
  return inner.substr(0, outer.size()) == outer &&
         (inner.size() == outer.size() || inner[outer.size()] == '.' ||
          inner[outer.size()] == '[');
}

bool has(const std::vector<policy::Edit>& fix, const policy::Edit& e) {
  return std::find(fix.begin(), fix.end(), e) != fix.end();
}

// Whether `e`, an edit of `mine`, is inside a field that `removal`, an edit of another finding,
// takes away, and `mine` does not remove that field itself (a finding that removes a field and
// then sets fields inside it writes it anew). The removal settles what `e` would have fixed (the
// field it is about is gone), so the two do not contradict, and `e` is not applied.
bool removed_by(const policy::Edit& e, const policy::Finding& mine, const policy::Edit& removal) {
  return removal.op == policy::Edit::Op::kRemove && e.field.size() > removal.field.size() &&
         within(e.field, removal.field) && !has(mine.fix, removal);
}

json::Value to_json(const policy::Edit::Value& v, json::Document::AllocatorType& a) {
  json::Value out;
  if (const bool* b = std::get_if<bool>(&v)) {
    out.SetBool(*b);
  } else if (const long long* n = std::get_if<long long>(&v)) {
    out.SetInt64(*n);
  } else {
    const std::string& s = std::get<std::string>(v);
    out.SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
  }
  return out;
}

// The child of `node` at `step`, created (as `make_list` says) when missing and `create`.
// nullptr when missing and !create; an error when `node` is of the wrong kind.
Result<json::Value*> child(json::Value& node, const Step& step, bool create, bool make_list,
                           json::Document::AllocatorType& a, std::string_view field) {
  const auto wrong = [&](std::string_view kind) -> Error {
    return invalid_argument("fix path \"" + std::string(field) + "\": \"" + step.key +
                            "\" needs " + std::string(kind) + " there");
  };
  if (step.index && node.IsArray()) {
    if (*step.index < node.Size()) {
      return &node[static_cast<rapidjson::SizeType>(*step.index)];
    }
    if (!create) {
      return static_cast<json::Value*>(nullptr);
    }
    if (*step.index != node.Size()) {
      return wrong("a list of at least " + std::to_string(*step.index) + " items");
    }
    node.PushBack(json::Value(make_list ? rapidjson::kArrayType : rapidjson::kObjectType), a);
    return &node[node.Size() - 1];
  }
  if (!node.IsObject()) {
    return wrong(step.index ? "a list" : "a mapping");
  }
  // Every member, not json::member: a member that is present but null is still the one to fill.
  // (By index: clang refuses `!=` on RapidJSON's mutable member iterators in C++20.)
  for (rapidjson::SizeType i = 0; i < node.MemberCount(); ++i) {
    auto& m = node.MemberBegin()[i];
    if (std::string_view(m.name.GetString(), m.name.GetStringLength()) == step.key) {
      return &m.value;
    }
  }
  if (!create) {
    return static_cast<json::Value*>(nullptr);
  }
  json::Value key(step.key.data(), static_cast<rapidjson::SizeType>(step.key.size()), a);
  node.AddMember(key, json::Value(make_list ? rapidjson::kArrayType : rapidjson::kObjectType), a);
  return &node.MemberEnd()[-1].value;
}

// The error naming two findings whose edits contradict, if any: one edits a field the other also
// edits (the same field, or one inside the other) with an edit that is not among the other's own.
std::optional<Error> contradiction(const std::vector<const policy::Finding*>& fixing) {
  // Both ways round: an edit of one may be fine with the other's edits but not the reverse
  // (a field written anew by one finding, removed by another).
  for (std::size_t i = 0; i < fixing.size(); ++i) {
    for (std::size_t j = 0; j < fixing.size(); ++j) {
      if (j == i) {
        continue;
      }
      const std::vector<policy::Edit>& theirs = fixing[j]->fix;
      for (const policy::Edit& e : fixing[i]->fix) {
        const bool touches = std::any_of(theirs.begin(), theirs.end(), [&](const policy::Edit& o) {
          return (within(e.field, o.field) || within(o.field, e.field)) &&
                 !removed_by(e, *fixing[i], o) && !removed_by(o, *fixing[j], e);
        });
        if (touches && !has(theirs, e)) {
          return invalid_argument("the fixes contradict each other: " +
                                  format_finding(*fixing[std::min(i, j)]) + " / " +
                                  format_finding(*fixing[std::max(i, j)]));
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

Status apply_edit(json::Document& object, const policy::Edit& edit) {
  RJG_ASSIGN_OR_RETURN(const std::vector<Step> path, parse_path(edit.field));
  auto& a = object.GetAllocator();
  const bool set = edit.op == policy::Edit::Op::kSet;
  json::Value* node = &object;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    const bool list = path[i + 1].index.has_value();
    RJG_ASSIGN_OR_RETURN(node, child(*node, path[i], set, list, a, edit.field));
    if (node == nullptr || (!set && node->IsNull())) {
      return {};  // removing what is not there changes nothing
    }
    if (node->IsNull()) {  // `key:` with no value in YAML: the parent to fill
      list ? node->SetArray() : node->SetObject();
    }
  }
  const Step& last = path.back();
  if (set) {
    RJG_ASSIGN_OR_RETURN(json::Value* target, child(*node, last, true, false, a, edit.field));
    *target = to_json(edit.value, a);
  } else if (last.index && node->IsArray()) {
    if (*last.index < node->Size()) {
      node->Erase(node->Begin() + static_cast<std::ptrdiff_t>(*last.index));
    }
  } else if (node->IsObject()) {
    node->RemoveMember(last.key.c_str());
  }
  return {};
}

Result<FixOutcome> apply_fixes(json::Document& object, const policy::Verdict& verdict) {
  std::vector<const policy::Finding*> fixing;  // findings with edits, in verdict order
  FixOutcome outcome;
  for (const policy::Findings* list : {&verdict.denials, &verdict.warnings}) {
    for (const policy::Finding& f : *list) {
      if (!f.fix.empty()) {
        fixing.push_back(&f);
      } else if (f.kind == policy::Finding::Kind::kViolation) {
        outcome.unfixed.push_back(&f);  // an advisory asks for no change
      }
    }
  }
  if (std::optional<Error> e = contradiction(fixing)) {
    return *e;
  }
  // Each edit once, none inside a field another edit removes. Every index in an edit names the
  // item of the manifest as written, so list-item removals go last, from the highest index down:
  // no edit shifts another's item.
  struct Owned {
    const policy::Edit* edit;
    const policy::Finding* finding;
    std::optional<std::size_t> removed_item;  // set for the removal of a list item
  };
  std::vector<Owned> edits;
  for (const policy::Finding* f : fixing) {
    for (const policy::Edit& e : f->fix) {
      if (std::any_of(edits.begin(), edits.end(), [&e](const Owned& o) { return *o.edit == e; })) {
        continue;
      }
      std::optional<std::size_t> item;
      if (e.op == policy::Edit::Op::kRemove) {
        if (Result<std::vector<Step>> path = parse_path(e.field); path.ok()) {
          item = path.value().back().index;
        }
      }
      edits.push_back({&e, f, item});
    }
  }
  std::erase_if(edits, [&fixing](const Owned& o) {
    return std::any_of(fixing.begin(), fixing.end(), [&o](const policy::Finding* f) {
      return f != o.finding &&
             std::any_of(f->fix.begin(), f->fix.end(), [&o](const policy::Edit& r) {
               return removed_by(*o.edit, *o.finding, r);
             });
    });
  });
  const auto removals = std::stable_partition(
      edits.begin(), edits.end(), [](const Owned& o) { return !o.removed_item.has_value(); });
  std::stable_sort(removals, edits.end(), [](const Owned& a, const Owned& b) {
    return *a.removed_item > *b.removed_item;
  });
  json::Document work;
  work.CopyFrom(object, work.GetAllocator());
  for (const Owned& o : edits) {
    if (Status s = apply_edit(work, *o.edit); !s.ok()) {
      return Error{s.error().code, s.error().message + " (" + format_finding(*o.finding) + ")"};
    }
  }
  object.Swap(work);
  outcome.edits = edits.size();
  return outcome;
}

}  // namespace rjg::admission
