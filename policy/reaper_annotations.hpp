// The two annotations that carry a RayJob's reap TTLs in lifecycle mode "reaper", and how their
// values are read. Shared by reap-self (they must be there and parse) and reap-ttl (their bounds);
// the reaper reads the same keys (policy/reap_decision.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rjg::policy {

// Every annotation rayjob-guard reads starts with this; the model keeps no others.
inline constexpr std::string_view kAnnotationPrefix = "rayjob-guard.io/";
inline constexpr std::string_view kTtlAfterSuccessKey = "rayjob-guard.io/ttl-after-success";
inline constexpr std::string_view kTtlAfterFailureKey = "rayjob-guard.io/ttl-after-failure";

// Returns the whole number of seconds `text` spells: ASCII digits only (no sign, no space, no
// unit), at most 18 of them so the value fits int64. nullopt for anything else, including "".
inline std::optional<std::int64_t> parse_ttl_annotation(std::string_view text) {
  if (text.empty() || text.size() > 18) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace rjg::policy
