// ASCII letter case, independent of the C locale: for comparing Kubernetes and KubeRay names,
// whose spelling is ASCII.
#pragma once

#include <string>
#include <string_view>

namespace rjg {

// Returns `s` with A-Z turned into a-z; every other byte is kept.
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

// Returns `s` with a-z turned into A-Z; every other byte is kept.
inline std::string ascii_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

}  // namespace rjg
