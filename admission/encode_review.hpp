// encode_review: a verdict -> the AdmissionReview admission.k8s.io/v1 response body.
// Compact JSON, deterministic member order, never `patch`/`patchType` (a validating webhook's
// response is invalid with either).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "policy/verdict.hpp"

namespace rjg::admission {

// Per-warning cap (Kubernetes API guidance) and the apiserver's total per request.
inline constexpr std::size_t kMaxWarningRunes = 120;
inline constexpr std::size_t kWarningBudgetRunes = 4096;

// What the response echoes besides the verdict.
struct ResponseContext {
  std::string_view uid;          // request.uid, echoed exactly
  std::string_view name;         // the object's name for status.details.name
  std::string_view policy_hash;  // auditAnnotations["rayjob-guard-policy"]
};

// Returns the response body:
// {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid",
//  "allowed", "status" (deny only: 403 Forbidden, message = one line per denial, details.causes),
//  "warnings" (when any), "auditAnnotations"}}.
std::string encode_review(const ResponseContext& context, const policy::Verdict& verdict);

// Returns the warning strings for `warnings`: each "[rule-id] field: text" through visible()
// (control characters, bytes that are not UTF-8 and bidi overrides as visible escapes such as
// \x1b), exact duplicates dropped. A text longer than
// kMaxWarningRunes is split on UTF-8 boundaries (at a space where possible) into consecutive
// warnings, the later ones starting with "... " (at most 4 pieces; a longer one ends in "...").
// When the total would exceed kWarningBudgetRunes the list stops before a whole finding and ends
// with "N more warnings: run rayjob-guard check".
std::vector<std::string> build_warnings(const policy::Findings& warnings);

// Returns the deny message: one line per denial, "[rule-id] field: text" through visible(),
// joined by "\n". The causes' messages go through visible() too.
std::string deny_message(const policy::Findings& denials);

}  // namespace rjg::admission
