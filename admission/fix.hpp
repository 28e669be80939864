// fix: a verdict's literal edits (policy::Finding::fix) applied to the manifest as the tenant
// wrote it, for `rayjob-guard check --fix`. The edits of all findings go in together, in the
// order of the verdict (denials, then warnings), so one round is all a tenant needs.
#pragma once

#include <cstddef>
#include <vector>

#include "admission/json_reader.hpp"
#include "common/result.hpp"
#include "policy/verdict.hpp"

namespace rjg::admission {

struct FixOutcome {
  std::size_t edits = 0;  // edits applied (repeats of the same edit counted once)
  // Violations with no literal fix: their message names what to change, and the tenant chooses.
  std::vector<const policy::Finding*> unfixed;
};

// Applies every edit of `verdict`'s findings to `object` (a JSON object, changed in place; its
// allocator owns what is added). The same edit asked for by two findings is applied once; an
// edit of a field inside one that another edit removes is not applied (the removal settles it:
// what it would fix is gone). Indexes in the edits name items of the object as given: list-item
// removals are applied last, highest index first.
// kInvalidArgument, naming both findings and `object` left as it was, when two findings ask for
// different edits of one field or of a field and a field inside it other than a removal of the
// outer one (a contradiction between rules), or when an edit's path runs through a value of
// another kind (a list where it names a key). The returned pointers point into `verdict`.
Result<FixOutcome> apply_fixes(json::Document& object, const policy::Verdict& verdict);

// Applies one edit. kInvalidArgument as above, naming the path.
Status apply_edit(json::Document& object, const policy::Edit& edit);

}  // namespace rjg::admission
