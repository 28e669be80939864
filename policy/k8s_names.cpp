#include "policy/k8s_names.hpp"

#include <algorithm>

namespace rjg::policy {
namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// One label of a subdomain, whose length the caller bounds.
bool is_dns_label_text(std::string_view s) {
  return !s.empty() && lower_alnum(s.front()) && lower_alnum(s.back()) &&
         std::all_of(s.begin(), s.end(), [](char c) { return lower_alnum(c) || c == '-'; });
}

// The name part of a qualified name, and a non-empty label value.
bool is_name_part(std::string_view s) {
  return !s.empty() && s.size() <= 63 && alnum(s.front()) && alnum(s.back()) &&
         std::all_of(s.begin(), s.end(),
                     [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

}  // namespace

bool is_dns1123_label(std::string_view s) { return s.size() <= 63 && is_dns_label_text(s); }

bool is_dns1035_label(std::string_view s) {
  return is_dns1123_label(s) && s.front() >= 'a' && s.front() <= 'z';
}

bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    if (!is_dns_label_text(s.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}

bool is_qualified_name(std::string_view s) {
  const std::size_t slash = s.find('/');
  if (slash == std::string_view::npos) {
    return is_name_part(s);
  }
  return s.find('/', slash + 1) == std::string_view::npos &&
         is_dns1123_subdomain(s.substr(0, slash)) && is_name_part(s.substr(slash + 1));
}

bool is_label_value(std::string_view s) { return s.empty() || is_name_part(s); }

}  // namespace rjg::policy
