#include "policy/kuberay/go_text.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace rjg::policy::kuberay {
namespace {

// The length of the Unicode white space (Go's unicode.IsSpace) that starts `s` at `i`, or 0.
std::size_t space_at(std::string_view s, std::size_t i) {
  constexpr std::array<std::string_view, 13> kSpaces = {
      "\t",           "\n",           "\v",           "\f",           "\r",
      " ",            "\xC2\x85",     "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\xA8",
      "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F"};
  for (std::string_view sp : kSpaces) {
    if (s.substr(i, sp.size()) == sp) {
      return sp.size();
    }
  }
  // U+2000 .. U+200A, and U+3000.
  const std::string_view rest = s.substr(i);
  if (rest.size() >= 3 && rest.substr(0, 2) == "\xE2\x80" &&
      static_cast<unsigned char>(rest[2]) <= 0x8A) {
    return 3;
  }
  return rest.substr(0, 3) == "\xE3\x80\x80" ? 3 : 0;
}

}  // namespace

std::optional<std::vector<long long>> parse_generic_version(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' ||
                        s.front() == '\f' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  if (!s.empty() && s.front() == 'v') {
    s.remove_prefix(1);
  }
  std::vector<long long> parts;
  std::size_t i = 0;
  while (true) {
    const std::size_t start = i;
    long long n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 18) {
      n = n * 10 + (s[i] - '0');
      ++i;
    }
    if (i == start || (parts.empty() && s[start] == '0' && i - start > 1)) {
      return std::nullopt;
    }
    parts.push_back(n);
    if (i + 1 < s.size() && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
      ++i;
      continue;
    }
    break;
  }
  if (parts.size() < 2 || (i < s.size() && s[i] >= '0' && s[i] <= '9') ||
      s.find('\n', i) != std::string_view::npos) {
    return std::nullopt;
  }
  return parts;
}

std::string metadata_version_problem(std::string_view s) {
  const auto alnum = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
  };
  // Splits s[i..] at dots into parts of [0-9A-Za-z-] up to `stop` or the end.
  const auto parts = [&](std::size_t& i, char stop, bool pre) {
    bool ok = true;
    while (true) {
      const std::size_t start = i;
      bool numeric = true;
      while (i < s.size() && alnum(s[i])) {
        numeric = numeric && s[i] >= '0' && s[i] <= '9';
        ++i;
      }
      if (i == start || (pre && numeric && i - start > 1 && s[start] == '0')) {
        ok = false;
      }
      if (i < s.size() && s[i] == '.') {
        ++i;
        continue;
      }
      break;
    }
    return ok && (i == s.size() || s[i] == stop);
  };
  std::size_t i = 0;
  if (i < s.size() && s[i] == 'v') {
    ++i;
  }
  std::array<unsigned long long, 3> num = {0, 0, 0};
  for (std::size_t k = 0; k < 3; ++k) {
    if (k > 0) {
      if (i + 1 >= s.size() || s[i] != '.' || s[i + 1] < '0' || s[i + 1] > '9') {
        break;
      }
      ++i;
    }
    const std::size_t start = i;
    unsigned long long n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      const auto d = static_cast<unsigned long long>(s[i] - '0');
      if (n > (~0ULL - d) / 10) {
        return "its version number overflows";
      }
      n = n * 10 + d;
      ++i;
    }
    if (i == start) {
      return "is not a semantic version";
    }
    num[k] = n;
  }
  bool pre = false;
  if (i < s.size() && s[i] == '-') {
    ++i;
    pre = true;
    if (!parts(i, '+', true)) {
      return "is not a semantic version";
    }
  }
  if (i < s.size() && s[i] == '+') {
    ++i;
    if (!parts(i, '\0', false)) {
      return "is not a semantic version";
    }
  }
  if (i != s.size()) {
    return "is not a semantic version";
  }
  if (pre) {
    return "is a pre-release, which never satisfies >= 2.6.0";
  }
  if (num < std::array<unsigned long long, 3>{2, 6, 0}) {
    return "is older than 2.6.0";
  }
  return {};
}

bool version_less(const std::vector<long long>& a, const std::vector<long long>& b) {
  for (std::size_t i = 0; i < a.size() || i < b.size(); ++i) {
    const long long x = i < a.size() ? a[i] : 0;
    const long long y = i < b.size() ? b[i] : 0;
    if (x != y) {
      return x < y;
    }
  }
  return false;
}

std::string go_upper(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= 'a' && c <= 'z') {
      out += static_cast<char>(c - 'a' + 'A');
    } else if (s.substr(i, 2) == "\xC4\xB1") {
      out += 'I';
      ++i;
    } else if (s.substr(i, 2) == "\xC5\xBF") {
      out += 'S';
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

std::string go_lower(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (s.substr(i, 2) == "\xC4\xB0") {
      out += 'i';
      ++i;
    } else if (s.substr(i, 3) == "\xE2\x84\xAA") {
      out += 'k';
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view go_trim_space(std::string_view s) {
  while (!s.empty()) {
    const std::size_t n = space_at(s, 0);
    if (n == 0) {
      break;
    }
    s.remove_prefix(n);
  }
  std::size_t end = 0;  // just past the last byte that is not white space
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = space_at(s, i);
    i += n > 0 ? n : 1;
    end = n > 0 ? end : i;
  }
  return s.substr(0, end);
}

}  // namespace rjg::policy::kuberay
