// Image reference parsing (Docker's reference grammar, distribution/reference), glob matching
// and the RayJob image walk.
#include "policy/image_ref.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "policy/field_paths.hpp"

namespace rjg::policy {

namespace {

constexpr std::size_t kMaxGlobLength = 4096;

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// path-component := [a-z0-9]+ ((\.|_|__|-+) [a-z0-9]+)*
bool valid_path_component(std::string_view c) {
  if (c.empty() || !is_lower_alnum(c.front()) || !is_lower_alnum(c.back())) {
    return false;
  }
  for (std::size_t i = 0; i < c.size();) {
    if (is_lower_alnum(c[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < c.size() && !is_lower_alnum(c[j])) {
      ++j;
    }
    const std::string_view sep = c.substr(i, j - i);
    const bool dashes = sep.find_first_not_of('-') == std::string_view::npos;
    if (sep != "." && sep != "_" && sep != "__" && !dashes) {
      return false;
    }
    i = j;
  }
  return true;
}

// host[:port], host being DNS labels (letters, digits, dashes) joined by dots, or [ipv6].
bool valid_registry(std::string_view r) {
  std::string_view host = r;
  if (!host.empty() && host.front() == '[') {
    const std::size_t close = host.find(']');
    if (close == std::string_view::npos) {
      return false;
    }
    const std::string_view rest = host.substr(close + 1);
    host = host.substr(1, close - 1);
    if (host.empty() ||
        host.find_first_not_of("0123456789abcdefABCDEF:") != std::string_view::npos) {
      return false;
    }
    if (rest.empty()) {
      return true;
    }
    return rest.size() > 1 && rest[0] == ':' &&
           rest.substr(1).find_first_not_of("0123456789") == std::string_view::npos;
  }
  const std::size_t colon = host.find(':');
  if (colon != std::string_view::npos) {
    const std::string_view port = host.substr(colon + 1);
    if (port.empty() || port.find_first_not_of("0123456789") != std::string_view::npos) {
      return false;
    }
    host = host.substr(0, colon);
  }
  if (host.empty()) {
    return false;
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = host.find('.', start);
    const std::string_view label =
        host.substr(start, dot == std::string_view::npos ? host.npos : dot - start);
    if (label.empty() || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (char c : label) {
      const bool ok =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (!ok) {
        return false;
      }
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}

Status check_digest(std::string_view digest) {
  const std::size_t colon = digest.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    return invalid_argument("digest \"" + std::string(digest) + "\" is not algorithm:hex");
  }
  const std::string_view algorithm = digest.substr(0, colon);
  const std::string_view hex = digest.substr(colon + 1);
  for (char c : hex) {
    if (!is_hex(c)) {
      return invalid_argument("digest \"" + std::string(digest) +
                              "\" must be lower-case hexadecimal after the algorithm");
    }
  }
  // go-digest (what kubelet's parser validates with) knows sha256, sha384 and sha512 only, each
  // with its exact length; any other algorithm is refused as unsupported.
  struct Algorithm {
    std::string_view name;
    std::size_t hex_digits;
  };
  static constexpr Algorithm kAlgorithms[] = {{"sha256", 64}, {"sha384", 96}, {"sha512", 128}};
  for (const Algorithm& a : kAlgorithms) {
    if (a.name == algorithm) {
      if (hex.size() != a.hex_digits) {
        return invalid_argument("a " + std::string(a.name) + " digest has " +
                                std::to_string(a.hex_digits) + " hex digits, \"" +
                                std::string(digest) + "\" has " + std::to_string(hex.size()));
      }
      return Status();
    }
  }
  return invalid_argument("digest algorithm \"" + std::string(algorithm) +
                          "\" is not supported (sha256, sha384 or sha512)");
  return Status();
}

// Copies `s` into `buf` (kMaxGlobLength + 1 bytes) with a terminating NUL, as fnmatch needs.
// Returns false when `s` holds a NUL (which fnmatch would read as the end).
bool terminated_copy(std::string_view s, char* buf) {
  if (s.find('\0') != std::string_view::npos) {
    return false;
  }
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  return true;
}

void add_template(const PodTemplate& t, ImageUse::Where where, std::size_t group,
                  std::vector<ImageUse>& out) {
  for (const bool init : {false, true}) {
    const std::vector<Container>& list = init ? t.init_containers : t.containers;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].image.empty()) {
        out.push_back({list[i].image, where, group, init, i});
      }
    }
  }
}

// The characters a valid image reference can hold (distribution/reference's grammar; `[` and
// `]` only around an IPv6 registry address).
bool in_reference_charset(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("._-/:@[]").find(static_cast<char>(c)) != std::string_view::npos;
}

// `c` for a message: itself when printable, else its code.
std::string shown_char(unsigned char c) {
  if (c > ' ' && c < 0x7f) {
    return std::string("'") + static_cast<char>(c) + "'";
  }
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string(c == ' ' ? "a space" : "byte 0x") +
         (c == ' ' ? "" : std::string{kHex[c >> 4], kHex[c & 15]});
}

// glibc's bracket classes ([:alpha:] ...), as fnmatch knows them. Sets `known` to false for a
// name it does not know.
bool named_class_member(std::string_view name, unsigned char c, bool& known) {
  const bool lower = c >= 'a' && c <= 'z';
  const bool upper = c >= 'A' && c <= 'Z';
  const bool digit = c >= '0' && c <= '9';
  const bool graph = c > ' ' && c < 0x7f;
  const std::pair<std::string_view, bool> kClasses[] = {
      {"alpha", lower || upper},
      {"alnum", lower || upper || digit},
      {"digit", digit},
      {"lower", lower},
      {"upper", upper},
      {"xdigit", digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')},
      {"punct", graph && !lower && !upper && !digit},
      {"graph", graph},
      {"print", graph || c == ' '},
      {"space", c == ' ' || (c >= '\t' && c <= '\r')},
      {"blank", c == ' ' || c == '\t'},
      {"cntrl", c < ' ' || c == 0x7f},
  };
  for (const auto& [n, is] : kClasses) {
    if (n == name) {
      known = true;
      return is;
    }
  }
  known = false;
  return false;
}

// Checks the class that opens at pattern[open] (a `[`), as fnmatch reads it; sets `close` to its
// `]`. Returns what makes it match nothing an image holds, or ok.
Status check_class(std::string_view p, std::size_t open, std::size_t& close) {
  std::size_t i = open + 1;
  const bool negated = i < p.size() && (p[i] == '!' || p[i] == '^');
  if (negated) {
    ++i;
  }
  bool member[256] = {};
  bool first = true;  // a `]` first in the class is a member, not its end
  const auto unclosed = [&] {
    return invalid_argument("the '[' at offset " + std::to_string(open) +
                            " is never closed, so it only matches a literal '[', which no image "
                            "holds there; close the class with ']' or write \\[ for a literal "
                            "bracket");
  };
  while (true) {
    if (i >= p.size()) {
      return unclosed();
    }
    unsigned char c = static_cast<unsigned char>(p[i]);
    if (c == ']' && !first) {
      break;
    }
    first = false;
    if (c == '[' && i + 1 < p.size() && p[i + 1] == ':') {
      const std::size_t end = p.find(":]", i + 2);
      if (end == std::string_view::npos) {
        return unclosed();
      }
      const std::string_view name = p.substr(i + 2, end - i - 2);
      bool known = true;
      for (int x = 0; x < 256; ++x) {
        if (named_class_member(name, static_cast<unsigned char>(x), known)) {
          member[x] = true;
        }
      }
      if (!known) {
        return invalid_argument("[:" + std::string(name) +
                                ":] is not a character class (alpha, alnum, digit, lower, upper, "
                                "xdigit, punct...)");
      }
      i = end + 2;
      continue;
    }
    if (c == '\\') {
      if (i + 1 >= p.size()) {
        return unclosed();
      }
      c = static_cast<unsigned char>(p[++i]);
    }
    ++i;
    unsigned char last = c;
    if (i + 1 < p.size() && p[i] == '-' && p[i + 1] != ']') {
      last = static_cast<unsigned char>(p[i + 1]);
      std::size_t next = i + 2;
      if (last == '\\' && next < p.size()) {
        last = static_cast<unsigned char>(p[next++]);
      }
      if (last < c) {
        return invalid_argument("the range " + shown_char(c) + "-" + shown_char(last) +
                                " in the class at offset " + std::to_string(open) +
                                " is reversed and matches nothing; write the lower end first");
      }
      i = next;
    }
    for (unsigned x = c; x <= last; ++x) {
      member[x] = true;
    }
  }
  close = i;
  if (member[static_cast<unsigned char>('/')] && !negated) {
    return invalid_argument("the class at offset " + std::to_string(open) +
                            " holds '/', which no class matches (classes, '*' and '?' stop at "
                            "'/'); write the '/' outside the class");
  }
  for (int x = 0; x < 256; ++x) {
    if (x != '/' && member[x] != negated && in_reference_charset(static_cast<unsigned char>(x))) {
      return Status();
    }
  }
  return invalid_argument("the class " + std::string(p.substr(open, close - open + 1)) +
                          " at offset " + std::to_string(open) +
                          " matches no character an image reference holds (letters, digits, "
                          "'.', '_', '-', ':', '@')");
}

}  // namespace

Status check_glob_pattern(std::string_view pattern) {
  if (pattern.size() > kMaxGlobLength) {
    return invalid_argument("the pattern is longer than " + std::to_string(kMaxGlobLength) +
                            " characters and would match nothing");
  }
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(pattern[i]);
    if (c == '*' || c == '?') {
      continue;
    }
    if (c == '[') {
      std::size_t close = i;
      RJG_RETURN_IF_ERROR(check_class(pattern, i, close));
      i = close;
      continue;
    }
    if (c == '\\') {
      if (i + 1 == pattern.size()) {
        return invalid_argument(
            "the pattern ends in a lone '\\', which escapes nothing and makes it match nothing; "
            "remove it or write \\\\");
      }
      c = static_cast<unsigned char>(pattern[++i]);
    }
    if (!in_reference_charset(c)) {
      return invalid_argument(shown_char(c) + " at offset " + std::to_string(i) +
                              " cannot appear in an image reference (letters, digits, '.', '_', "
                              "'-', '/', ':', '@'; braces are not expanded), so the pattern "
                              "matches nothing");
    }
  }
  return Status();
}

Result<ImageRef> parse_image_ref(std::string_view text) {
  if (text.empty()) {
    return invalid_argument("the image is empty");
  }
  if (text.size() > 4096) {
    return invalid_argument("the image reference is longer than 4096 characters");
  }
  ImageRef ref;
  std::string_view name = text;
  const std::size_t at = text.find('@');
  if (at != std::string_view::npos) {
    ref.digest = text.substr(at + 1);
    name = text.substr(0, at);
    Status s = check_digest(ref.digest);
    if (!s.ok()) {
      return s.error();
    }
  }
  const std::size_t last_slash = name.rfind('/');
  const std::size_t tag_colon =
      name.find(':', last_slash == std::string_view::npos ? 0 : last_slash + 1);
  if (tag_colon != std::string_view::npos) {
    ref.tag = name.substr(tag_colon + 1);
    name = name.substr(0, tag_colon);
    if (ref.tag.empty() || ref.tag.size() > 128 || !is_word(ref.tag[0])) {
      return invalid_argument(
          "tag \"" + std::string(ref.tag) +
          "\" is not valid (a letter, digit or _ first, at most 128 characters)");
    }
    for (char c : ref.tag) {
      if (!is_word(c) && c != '.' && c != '-') {
        return invalid_argument("tag \"" + std::string(ref.tag) +
                                "\" may hold only letters, digits, '_', '.' and '-'");
      }
    }
  }
  std::string_view path = name;
  const std::size_t first_slash = name.find('/');
  if (first_slash != std::string_view::npos) {
    const std::string_view first = name.substr(0, first_slash);
    // As distribution/reference's splitDockerDomain: a first component with an upper-case
    // letter is a registry too (repository paths are lower-case).
    const bool upper = std::any_of(first.begin(), first.end(),
                                   [](char c) { return c >= 'A' && c <= 'Z'; });
    if (first.find('.') != std::string_view::npos || first.find(':') != std::string_view::npos ||
        first == "localhost" || upper) {
      if (!valid_registry(first)) {
        return invalid_argument("registry \"" + std::string(first) + "\" is not a host[:port]");
      }
      ref.registry = first;
      path = name.substr(first_slash + 1);
    }
  }
  if (path.empty()) {
    return invalid_argument("the image names no repository");
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = path.find('/', start);
    const std::string_view component =
        path.substr(start, slash == std::string_view::npos ? path.npos : slash - start);
    if (!valid_path_component(component)) {
      return invalid_argument(
          "repository path component \"" + std::string(component) +
          "\" is not valid (lower-case letters and digits, joined by '.', '_', '__' or '-')");
    }
    if (slash == std::string_view::npos) {
      break;
    }
    start = slash + 1;
  }
  // The limit applies to the path as kubelet's parser normalises it: Docker Hub's official
  // images ("ubuntu") are "library/ubuntu".
  const bool docker_hub =
      ref.registry.empty() || ref.registry == "docker.io" || ref.registry == "index.docker.io";
  const std::size_t library = docker_hub && path.find('/') == std::string_view::npos ? 8 : 0;
  if (path.size() + library > 255) {
    return invalid_argument("the repository path is longer than 255 characters");
  }
  // A bare 64-hex name is an image ID, which kubelet's parser refuses as an image name.
  if (text.size() == 64 && std::all_of(text.begin(), text.end(), is_hex)) {
    return invalid_argument("a 64-digit hexadecimal image ID is not an image name");
  }
  ref.repository = path;
  return ref;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  if (pattern.size() > kMaxGlobLength || text.size() > kMaxGlobLength) {
    return false;
  }
  // libc's fnmatch with FNM_PATHNAME is the documented semantics: `*`, `?` and classes never
  // match '/', `[!...]`/`[^...]` negate, `\` escapes, an unclosed `[` is literal. Stack copies
  // because it reads NUL-terminated strings; nothing is allocated.
  char p[kMaxGlobLength + 1];
  char t[kMaxGlobLength + 1];
  return terminated_copy(pattern, p) && terminated_copy(text, t) &&
         fnmatch(p, t, FNM_PATHNAME) == 0;
}

ImageSpellings::ImageSpellings(std::string_view image) : image_(image) {
  // Most images name their own registry (ECR, GHCR...) and have no other spelling; the first
  // component decides that exactly as parse_image_ref does, without parsing the rest.
  const std::size_t first_slash = image.find('/');
  if (first_slash != std::string_view::npos) {
    const std::string_view first = image.substr(0, first_slash);
    const bool names_registry = first.find('.') != std::string_view::npos ||
                                first.find(':') != std::string_view::npos || first == "localhost";
    if (names_registry && first != "docker.io" && first != "index.docker.io") {
      return;
    }
  }
  Result<ImageRef> ref = parse_image_ref(image);
  if (!ref.ok()) {
    return;
  }
  const ImageRef& r = ref.value();
  if (!r.registry.empty() && r.registry != "docker.io" && r.registry != "index.docker.io") {
    return;
  }
  std::string rest(r.repository);
  if (!r.tag.empty()) {
    rest += ':';
    rest += r.tag;
  }
  if (!r.digest.empty()) {
    rest += '@';
    rest += r.digest;
  }
  const bool official = r.repository.find('/') == std::string_view::npos;
  const std::string short_rest =
      r.repository.rfind("library/", 0) == 0 && r.repository.find('/', 8) == std::string_view::npos
          ? rest.substr(8)
          : rest;
  const std::string long_rest = official ? "library/" + rest : rest;
  for (const std::string& body : {short_rest, long_rest}) {
    for (const char* prefix : {"", "docker.io/", "index.docker.io/"}) {
      std::string spelling = prefix + body;
      if (spelling != image_ &&
          std::find(others_.begin(), others_.end(), spelling) == others_.end()) {
        others_.push_back(std::move(spelling));
      }
    }
  }
}

bool ImageSpellings::matched_by(std::string_view pattern) const {
  if (glob_match(pattern, image_)) {
    return true;
  }
  for (const std::string& s : others_) {
    if (glob_match(pattern, s)) {
      return true;
    }
  }
  return false;
}

bool image_matches(std::string_view pattern, std::string_view image) {
  return ImageSpellings(image).matched_by(pattern);
}

std::string ImageUse::field() const {
  std::string out;
  switch (where) {
    case Where::kHead:
      out = "spec.rayClusterSpec.headGroupSpec.template.spec";
      break;
    case Where::kWorkerGroup:
      out = worker_group_field(group) + ".template.spec";
      break;
    case Where::kSubmitter:
      out = "spec.submitterPodTemplate.spec";
      break;
    case Where::kAutoscaler:
      return "spec.rayClusterSpec.autoscalerOptions.image";
  }
  out += init_container ? ".initContainers[" : ".containers[";
  out += std::to_string(container) + "].image";
  return out;
}

std::vector<ImageUse> images_that_run(const RayJob& job) {
  std::vector<ImageUse> out;
  const RayJobSpec& spec = job.spec;
  if (spec.ray_cluster_spec) {
    const RayClusterSpec& rc = *spec.ray_cluster_spec;
    add_template(rc.head.pod_template, ImageUse::Where::kHead, 0, out);
    for (std::size_t i = 0; i < rc.worker_groups.size(); ++i) {
      add_template(rc.worker_groups[i].pod_template, ImageUse::Where::kWorkerGroup, i, out);
    }
  }
  if (spec.submitter_pod_template && spec.submission_mode.value_or("K8sJobMode") == "K8sJobMode") {
    add_template(*spec.submitter_pod_template, ImageUse::Where::kSubmitter, 0, out);
  }
  if (spec.ray_cluster_spec && spec.ray_cluster_spec->enable_in_tree_autoscaling.value_or(false) &&
      spec.ray_cluster_spec->autoscaler_options &&
      spec.ray_cluster_spec->autoscaler_options->image &&
      !spec.ray_cluster_spec->autoscaler_options->image->empty()) {
    out.push_back(
        {*spec.ray_cluster_spec->autoscaler_options->image, ImageUse::Where::kAutoscaler});
  }
  return out;
}

}  // namespace rjg::policy
