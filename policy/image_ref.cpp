// Image reference parsing (Docker's reference grammar, distribution/reference), glob matching
// and the RayJob image walk.
#include "policy/image_ref.hpp"

#include <algorithm>
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
        host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string_view::npos) {
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
  if (algorithm == "sha256" && hex.size() != 64) {
    return invalid_argument("a sha256 digest has 64 hex digits, \"" + std::string(digest) +
                            "\" has " + std::to_string(hex.size()));
  }
  if (algorithm == "sha512" && hex.size() != 128) {
    return invalid_argument("a sha512 digest has 128 hex digits");
  }
  if (algorithm != "sha256" && algorithm != "sha512") {
    if (hex.size() < 32) {
      return invalid_argument("digest \"" + std::string(digest) + "\" is too short");
    }
    for (char c : algorithm) {
      if (!is_lower_alnum(c) && c != '+' && c != '.' && c != '_' && c != '-') {
        return invalid_argument("digest algorithm \"" + std::string(algorithm) + "\" is not valid");
      }
    }
  }
  return Status();
}

// One glob element at pattern position `p` tested against character `c`. Sets `next` to the
// position after the element. REQUIRES: pattern[p] is not '*'.
bool element_matches(std::string_view pattern, std::size_t p, char c, std::size_t& next) {
  const char pc = pattern[p];
  if (pc == '?') {
    next = p + 1;
    return c != '/';
  }
  if (pc == '\\' && p + 1 < pattern.size()) {
    next = p + 2;
    return c == pattern[p + 1];
  }
  if (pc == '[') {
    std::size_t i = p + 1;
    bool negate = false;
    if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
      negate = true;
      ++i;
    }
    const std::size_t first = i;
    std::size_t close = std::string_view::npos;
    for (std::size_t j = first; j < pattern.size(); ++j) {
      if (pattern[j] == ']' && j > first) {
        close = j;
        break;
      }
    }
    if (close == std::string_view::npos) {
      next = p + 1;
      return c == '[';
    }
    bool in = false;
    for (std::size_t j = first; j < close; ++j) {
      if (j + 2 < close && pattern[j + 1] == '-') {
        in = in || (c >= pattern[j] && c <= pattern[j + 2]);
        j += 2;
      } else {
        in = in || c == pattern[j];
      }
    }
    next = close + 1;
    return c != '/' && in != negate;
  }
  next = p + 1;
  return c == pc;
}

// Returns the end of the glob element starting at pattern[p], parsed as element_matches does.
std::size_t element_end(std::string_view pattern, std::size_t p) {
  const char pc = pattern[p];
  if (pc == '\\' && p + 1 < pattern.size()) {
    return p + 2;
  }
  if (pc == '[') {
    std::size_t i = p + 1;
    if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
      ++i;
    }
    for (std::size_t j = i + 1; j < pattern.size(); ++j) {
      if (pattern[j] == ']') {
        return j + 1;
      }
    }
  }
  return p + 1;
}

// True when the element at pattern[p] matches exactly '/': a literal or escaped slash. No other
// element matches '/', so these are the only places a text '/' can be matched.
bool is_slash_element(std::string_view pattern, std::size_t p) {
  return pattern[p] == '/' ||
         (pattern[p] == '\\' && p + 1 < pattern.size() && pattern[p + 1] == '/');
}

// Matches pattern[pb, pe) against text[tb, te), which holds no '/': the classic iterative glob
// with one backtrack point (the last `*`), exact when no element can match across segments.
bool match_segment(std::string_view pattern, std::size_t pb, std::size_t pe, std::string_view text,
                   std::size_t tb, std::size_t te) {
  constexpr std::size_t kNoStar = static_cast<std::size_t>(-1);
  std::size_t p = pb;
  std::size_t t = tb;
  std::size_t star_p = kNoStar;
  std::size_t star_t = 0;
  while (t < te) {
    if (p < pe && pattern[p] == '*') {
      star_p = ++p;
      star_t = t;
      continue;
    }
    std::size_t next = 0;
    if (p < pe && element_matches(pattern, p, text[t], next)) {
      p = next;
      ++t;
      continue;
    }
    if (star_p == kNoStar) {
      return false;
    }
    p = star_p;
    t = ++star_t;
  }
  while (p < pe && pattern[p] == '*') {
    ++p;
  }
  return p == pe;
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

}  // namespace

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
    if (first.find('.') != std::string_view::npos || first.find(':') != std::string_view::npos ||
        first == "localhost") {
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
  if (name.size() > 255) {
    return invalid_argument("the repository name is longer than 255 characters");
  }
  ref.repository = path;
  return ref;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  if (pattern.size() > kMaxGlobLength || text.size() > kMaxGlobLength) {
    return false;
  }
  // A text '/' can only be matched by a slash element, in order, so pattern and text are cut
  // into segments there and matched segment by segment; no allocation.
  std::size_t p = 0;
  std::size_t t = 0;
  while (true) {
    std::size_t pe = p;
    while (pe < pattern.size() && !is_slash_element(pattern, pe)) {
      pe = element_end(pattern, pe);
    }
    std::size_t te = text.find('/', t);
    if (te == std::string_view::npos) {
      te = text.size();
    }
    if (!match_segment(pattern, p, pe, text, t, te)) {
      return false;
    }
    const bool pattern_done = pe == pattern.size();
    const bool text_done = te == text.size();
    if (pattern_done || text_done) {
      return pattern_done && text_done;
    }
    p = pe + (pattern[pe] == '\\' ? 2 : 1);
    t = te + 1;
  }
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
