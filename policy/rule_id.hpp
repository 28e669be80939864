// RuleId: the closed set of rules. Each id's kebab-case text names its file under rules/, its
// check function, its test suite, its messages, its log fields and its metric labels.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace rjg::policy {

enum class RuleId {
  kKuberaySchema,      // kuberay-schema
  kSubmissionMode,     // submission-mode
  kReapSelf,           // reap-self
  kReapTtl,            // reap-ttl
  kActiveDeadline,     // active-deadline
  kBackoffLimit,       // backoff-limit
  kClusterSelector,    // cluster-selector
  kResourcesDeclared,  // resources-declared
  kQuotaFit,           // quota-fit
  kImageContract,      // image-contract
  kImagePinned,        // image-pinned
  kKueueWebhook,       // kueue-webhook
};

inline constexpr std::array<RuleId, 12> kAllRules = {
    RuleId::kKuberaySchema,   RuleId::kSubmissionMode,    RuleId::kReapSelf,
    RuleId::kReapTtl,         RuleId::kActiveDeadline,    RuleId::kBackoffLimit,
    RuleId::kClusterSelector, RuleId::kResourcesDeclared, RuleId::kQuotaFit,
    RuleId::kImageContract,   RuleId::kImagePinned,       RuleId::kKueueWebhook,
};

// Returns the rule's stable kebab-case id, e.g. "reap-self".
constexpr std::string_view rule_id_name(RuleId id) {
  switch (id) {
    case RuleId::kKuberaySchema: return "kuberay-schema";
    case RuleId::kSubmissionMode: return "submission-mode";
    case RuleId::kReapSelf: return "reap-self";
    case RuleId::kReapTtl: return "reap-ttl";
    case RuleId::kActiveDeadline: return "active-deadline";
    case RuleId::kBackoffLimit: return "backoff-limit";
    case RuleId::kClusterSelector: return "cluster-selector";
    case RuleId::kResourcesDeclared: return "resources-declared";
    case RuleId::kQuotaFit: return "quota-fit";
    case RuleId::kImageContract: return "image-contract";
    case RuleId::kImagePinned: return "image-pinned";
    case RuleId::kKueueWebhook: return "kueue-webhook";
  }
  return "unknown";
}

// Returns the RuleId whose id is `name`, or nullopt for an unknown id.
constexpr std::optional<RuleId> rule_id_from_name(std::string_view name) {
  for (RuleId id : kAllRules) {
    if (rule_id_name(id) == name) {
      return id;
    }
  }
  return std::nullopt;
}

}  // namespace rjg::policy
