// PEP 508 requirement items and PEP 440 version ordering, as far as image-contract needs them.
#include "policy/pip_requirement.hpp"

#include <cctype>
#include <climits>
#include <tuple>

namespace rjg::policy {

namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && is_space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

// Reads a PEP 508 identifier ([A-Za-z0-9] ([A-Za-z0-9._-]* [A-Za-z0-9])?) at the start of `s`.
std::string_view read_identifier(std::string_view s) {
  if (s.empty() || !is_alnum(s[0])) {
    return {};
  }
  std::size_t n = 1;
  while (n < s.size() && (is_alnum(s[n]) || s[n] == '.' || s[n] == '_' || s[n] == '-')) {
    ++n;
  }
  while (n > 1 && !is_alnum(s[n - 1])) {
    --n;
  }
  return s.substr(0, n);
}

// Reads an unsigned decimal number at `pos`; nullopt when there is none or it overflows.
std::optional<long long> read_number(std::string_view s, std::size_t& pos) {
  if (pos >= s.size() || !is_digit(s[pos])) {
    return std::nullopt;
  }
  long long v = 0;
  while (pos < s.size() && is_digit(s[pos])) {
    if (v > (LLONG_MAX - 9) / 10) {
      return std::nullopt;
    }
    v = v * 10 + (s[pos] - '0');
    ++pos;
  }
  return v;
}

bool is_separator(char c) { return c == '.' || c == '-' || c == '_'; }

// Tries each spelling in `words` at `pos` (after an optional separator); on a match moves `pos`
// past it and returns its index.
int read_word(std::string_view s, std::size_t& pos, std::initializer_list<std::string_view> words) {
  std::size_t p = pos;
  if (p < s.size() && is_separator(s[p])) {
    ++p;
  }
  int index = 0;
  for (std::string_view w : words) {
    if (s.substr(p, w.size()) == w) {
      pos = p + w.size();
      return index;
    }
    ++index;
  }
  return -1;
}

// Reads the optional number after a pre/post/dev word: an optional separator, then digits;
// implicit 0.
long long read_implicit_number(std::string_view s, std::size_t& pos) {
  std::size_t p = pos;
  if (p < s.size() && is_separator(s[p])) {
    ++p;
  }
  if (std::optional<long long> n = read_number(s, p)) {
    pos = p;
    return *n;
  }
  return 0;
}

std::vector<long long> trimmed(const std::vector<long long>& release) {
  std::vector<long long> r = release;
  while (!r.empty() && r.back() == 0) {
    r.pop_back();
  }
  return r;
}

std::tuple<int, long long> pre_key(const Pep440Version& v) {
  if (v.pre_phase >= 0) {
    return {v.pre_phase, v.pre_number};
  }
  if (v.dev >= 0 && v.post < 0) {
    return {-1, 0};  // X.devN sorts before X's pre-releases
  }
  return {3, 0};
}

// The release right after every version that starts with `prefix` (1.34 -> 1.35).
Pep440Version next_prefix(const Pep440Version& prefix) {
  Pep440Version next;
  next.epoch = prefix.epoch;
  next.release = prefix.release;
  if (!next.release.empty()) {
    next.release.back() += 1;
  }
  // The smallest version of that release is its first dev release.
  next.dev = 0;
  return next;
}

std::optional<Pep440Version> parse_spec_version(std::string_view text, bool& wildcard) {
  wildcard = text.size() > 2 && text.substr(text.size() - 2) == ".*";
  if (wildcard) {
    text.remove_suffix(2);
  }
  return parse_pep440(text);
}

}  // namespace

std::string normalize_project_name(std::string_view name) {
  std::string out;
  bool in_run = false;
  for (char c : name) {
    if (is_separator(c)) {
      in_run = true;
      continue;
    }
    if (in_run && !out.empty()) {
      out.push_back('-');
    }
    in_run = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

Result<PipRequirement> parse_pip_requirement(std::string_view item) {
  std::string_view s = trim(item);
  if (s.empty()) {
    return invalid_argument("empty pip item");
  }
  PipRequirement req;
  if (s[0] == '-') {
    req.kind = PipRequirement::Kind::kOption;
    return req;
  }
  const bool bare_url =
      s.find("://") != std::string_view::npos && s.find('@') == std::string_view::npos;
  if (s[0] == '.' || s[0] == '/' || s[0] == '~' || bare_url) {
    req.kind = PipRequirement::Kind::kUrl;
    return req;
  }
  const std::string_view name = read_identifier(s);
  if (name.empty()) {
    return invalid_argument("\"" + std::string(s) + "\" does not start with a project name");
  }
  std::string_view rest = s.substr(name.size());
  if (!rest.empty() && (rest[0] == ':' || rest[0] == '+')) {
    req.kind = PipRequirement::Kind::kUrl;  // "git+https://...", "file:..."
    return req;
  }
  req.name = normalize_project_name(name);
  rest = trim(rest);
  if (!rest.empty() && rest[0] == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) {
      return invalid_argument("\"" + std::string(s) + "\": extras are missing their closing ']'");
    }
    std::string_view extras = rest.substr(1, close - 1);
    while (!extras.empty()) {
      const std::size_t comma = extras.find(',');
      const std::string_view e = trim(extras.substr(0, comma));
      if (!e.empty()) {
        if (read_identifier(e).size() != e.size()) {
          return invalid_argument("\"" + std::string(s) + "\": extra \"" + std::string(e) +
                                  "\" is not a valid name");
        }
        req.extras.push_back(normalize_project_name(e));
      }
      if (comma == std::string_view::npos) {
        break;
      }
      extras.remove_prefix(comma + 1);
    }
    rest = trim(rest.substr(close + 1));
  }
  if (!rest.empty() && rest[0] == '@') {
    req.kind = PipRequirement::Kind::kUrl;
    return req;
  }
  const std::size_t semi = rest.find(';');
  if (semi != std::string_view::npos) {
    req.has_marker = true;
    rest = trim(rest.substr(0, semi));
  }
  if (!rest.empty() && rest.front() == '(') {
    if (rest.back() != ')') {
      return invalid_argument("\"" + std::string(s) + "\": '(' without a closing ')'");
    }
    rest = trim(rest.substr(1, rest.size() - 2));
  }
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view clause = trim(rest.substr(0, comma));
    static constexpr std::string_view kOps[] = {"===", "==", "!=", "~=", ">=", "<=", ">", "<"};
    std::string_view op;
    for (std::string_view candidate : kOps) {
      if (clause.substr(0, candidate.size()) == candidate) {
        op = candidate;
        break;
      }
    }
    if (op.empty()) {
      return invalid_argument("\"" + std::string(s) + "\": \"" + std::string(clause) +
                              "\" is not a version clause (==, >=, >, ~=, <=, <, !=, ===)");
    }
    const std::string_view version = trim(clause.substr(op.size()));
    if (version.empty()) {
      return invalid_argument("\"" + std::string(s) + "\": \"" + std::string(op) +
                              "\" has no version");
    }
    for (char c : version) {
      if (is_space(c) || c == '(' || c == ')') {
        return invalid_argument("\"" + std::string(s) + "\": \"" + std::string(version) +
                                "\" is not a version");
      }
    }
    req.specifiers.push_back({std::string(op), std::string(version)});
    if (comma == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(comma + 1);
  }
  return req;
}

std::optional<Pep440Version> parse_pep440(std::string_view text) {
  std::string lower(trim(text));
  for (char& c : lower) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const std::string_view s = lower;
  std::size_t pos = 0;
  if (pos < s.size() && s[pos] == 'v') {
    ++pos;
  }
  Pep440Version v;
  std::optional<long long> first = read_number(s, pos);
  if (!first) {
    return std::nullopt;
  }
  if (pos < s.size() && s[pos] == '!') {
    ++pos;
    v.epoch = *first;
    first = read_number(s, pos);
    if (!first) {
      return std::nullopt;
    }
  }
  v.release.push_back(*first);
  while (pos + 1 < s.size() && s[pos] == '.' && is_digit(s[pos + 1])) {
    ++pos;
    std::optional<long long> n = read_number(s, pos);
    if (!n) {
      return std::nullopt;
    }
    v.release.push_back(*n);
  }
  // Longer spellings first so that "rc" is not read as "r" (a post spelling) and "alpha" not as
  // "a".
  const int pre = read_word(s, pos, {"alpha", "beta", "preview", "pre", "rc", "a", "b", "c"});
  if (pre >= 0) {
    static constexpr int kPhase[] = {0, 1, 2, 2, 2, 0, 1, 2};
    v.pre_phase = kPhase[pre];
    v.pre_number = read_implicit_number(s, pos);
  }
  if (pos + 1 < s.size() && s[pos] == '-' && is_digit(s[pos + 1])) {
    ++pos;
    v.post = *read_number(s, pos);
  } else if (read_word(s, pos, {"post", "rev", "r"}) >= 0) {
    v.post = read_implicit_number(s, pos);
  }
  if (read_word(s, pos, {"dev"}) >= 0) {
    v.dev = read_implicit_number(s, pos);
  }
  if (pos < s.size() && s[pos] == '+') {
    ++pos;
    const std::size_t start = pos;
    while (pos < s.size() && (is_alnum(s[pos]) || is_separator(s[pos]))) {
      ++pos;
    }
    if (pos == start || is_separator(s[start]) || is_separator(s[pos - 1])) {
      return std::nullopt;
    }
  }
  if (pos != s.size()) {
    return std::nullopt;
  }
  return v;
}

int compare_versions(const Pep440Version& a, const Pep440Version& b) {
  auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (int c = sign(a.epoch, b.epoch)) {
    return c;
  }
  if (int c = sign(trimmed(a.release), trimmed(b.release))) {
    return c;
  }
  if (int c = sign(pre_key(a), pre_key(b))) {
    return c;
  }
  if (int c = sign(a.post, b.post)) {
    return c;
  }
  const long long dev_a = a.dev >= 0 ? a.dev : LLONG_MAX;
  const long long dev_b = b.dev >= 0 ? b.dev : LLONG_MAX;
  return sign(dev_a, dev_b);
}

bool guarantees_at_least(const std::vector<VersionSpecifier>& specifiers, std::string_view floor) {
  const std::optional<Pep440Version> f = parse_pep440(floor);
  if (!f) {
    return false;
  }
  for (const VersionSpecifier& spec : specifiers) {
    if (spec.op != "==" && spec.op != "===" && spec.op != ">=" && spec.op != ">" &&
        spec.op != "~=") {
      continue;
    }
    bool wildcard = false;
    const std::optional<Pep440Version> x = parse_spec_version(spec.version, wildcard);
    if (!x || (wildcard && spec.op != "==")) {
      continue;
    }
    if (compare_versions(*x, *f) >= 0) {
      return true;
    }
  }
  return false;
}

bool caps_below(const std::vector<VersionSpecifier>& specifiers, std::string_view floor) {
  const std::optional<Pep440Version> f = parse_pep440(floor);
  if (!f) {
    return false;
  }
  for (const VersionSpecifier& spec : specifiers) {
    bool wildcard = false;
    const std::optional<Pep440Version> x = parse_spec_version(spec.version, wildcard);
    if (!x) {
      continue;
    }
    const int c = compare_versions(*x, *f);
    if ((spec.op == "==" || spec.op == "===") && !wildcard && c < 0) {
      return true;
    }
    if (spec.op == "==" && wildcard && compare_versions(next_prefix(*x), *f) <= 0) {
      return true;
    }
    if (spec.op == "<" && !wildcard && c <= 0) {
      return true;
    }
    if (spec.op == "<=" && !wildcard && c < 0) {
      return true;
    }
    if (spec.op == "~=" && !wildcard && x->release.size() >= 2) {
      Pep440Version prefix = *x;
      prefix.release.pop_back();
      prefix.pre_phase = -1;
      prefix.post = -1;
      prefix.dev = -1;
      if (compare_versions(next_prefix(prefix), *f) <= 0) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace rjg::policy
