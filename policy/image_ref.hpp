// Container image references: parsing into registry / repository / tag / digest (the Docker
// reference grammar), glob matching of policy patterns against an image, and the list of images
// a RayJob will run. Pure; used by image-contract and image-pinned.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "policy/rayjob.hpp"

namespace rjg::policy {

// The parts of one image reference. Every field points into the text given to parse_image_ref,
// which must outlive the ImageRef.
struct ImageRef {
  // "ghcr.io", "localhost:5000", "123456789012.dkr.ecr.us-east-1.amazonaws.com"; empty when the
  // reference names none (Docker Hub is implied).
  std::string_view registry;
  // The path inside the registry as written: "rayproject/ray", "ubuntu", "team/sub/image".
  std::string_view repository;
  std::string_view tag;     // "2.52.0-py310"; empty when absent (the runtime pulls :latest)
  std::string_view digest;  // "sha256:<64 hex>"; empty when absent
};

// Parses `text` with the Docker reference grammar: `[registry/]path[:tag][@digest]`. The first
// path component is the registry when the reference has more than one component and the first
// contains a `.` or a `:` or is `localhost`. The tag follows the last `:` of the last component;
// the digest is `algorithm:hex` after `@` (sha256 with exactly 64 lower-case hex digits, sha512
// with 128). Path components are lower-case alphanumerics joined by `.`, `_`, `__` or dashes.
// Returns kInvalidArgument, with what is wrong, for an empty or malformed reference. The result
// points into `text`.
Result<ImageRef> parse_image_ref(std::string_view text);

// Returns true when glob `pattern` matches the whole of `text`: `*` matches any run of characters
// and `?` any one character, neither crossing a `/` (so `*.dkr.ecr.*.amazonaws.com/x:*` cannot be
// satisfied by a registry of someone else's followed by a path); `[abc]`, `[a-z]` and `[!a-z]`
// match one character of (not of) the class; `\` escapes the next character. A malformed class
// (no closing `]`) matches its `[` literally. A pattern or text longer than 4096 characters never
// matches (no image reference is that long; parse_image_ref refuses them).
// This is libc's fnmatch(pattern, text, FNM_PATHNAME) (image_ref.cpp); the table test
// (test/policy/image_ref_test.cpp) pins the semantics above.
bool glob_match(std::string_view pattern, std::string_view text);

// Returns ok when glob `pattern` can match some valid image reference, else kInvalidArgument
// saying what makes it match none (for the policy loader, which prefixes the key path):
// - an unclosed `[` (glob_match then reads it as a literal `[`, which no image holds outside an
//   IPv6 registry: a deny entry `rayproject/ray:2.[0-9` would deny nothing);
// - a trailing lone `\`;
// - a class holding `/` (no class matches `/`), a reversed range (`[9-0]`), or a class left with
//   no character an image reference can hold (`[ ]`, `[!a-zA-Z0-9._:@/[]-]`...);
// - a literal character no image reference holds (anything but letters, digits and
//   `. _ - / : @ [ ]`: spaces, `{a,b}` braces (not expanded), `+`, `%`...);
// - more than 4096 characters (glob_match never matches those).
// The empty pattern is the caller's to refuse.
Status check_glob_pattern(std::string_view pattern);

// Returns true when `pattern` matches `image` as written, or one of its Docker Hub spellings:
// "rayproject/ray:2.41.0", "docker.io/rayproject/ray:2.41.0" and
// "index.docker.io/rayproject/ray:2.41.0" are the same image, so a pattern written for one of
// them matches all three (and "ubuntu" == "library/ubuntu" == "docker.io/library/ubuntu").
bool image_matches(std::string_view pattern, std::string_view image);

// One image with its Docker Hub spellings (as image_matches defines them), computed once so that
// many policy patterns can be tested against it without re-parsing or building strings.
// Points into the image text given to the constructor, which must outlive it; only the other
// spellings (Docker Hub images) are copies.
class ImageSpellings {
 public:
  explicit ImageSpellings(std::string_view image);
  // Returns image_matches(pattern, image) for the image given to the constructor.
  bool matched_by(std::string_view pattern) const;

 private:
  std::string_view image_;
  std::vector<std::string> others_;  // other spellings of the same image, none equal to image_
};

// One image a RayJob will run, with the field that sets it. Points into the RayJob it was taken
// from, which must outlive it. The field path is built only when asked for (for a finding).
struct ImageUse {
  std::string_view image;  // as written; never empty (containers without an image are skipped)

  // Where it is set: a container list of a pod template, or autoscalerOptions.image.
  enum class Where { kHead, kWorkerGroup, kSubmitter, kAutoscaler };
  Where where = Where::kHead;
  std::size_t group = 0;        // kWorkerGroup: index into workerGroupSpecs
  bool init_container = false;  // initContainers instead of containers
  std::size_t container = 0;    // index into that list

  // Returns the field path: "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].image",
  // "spec.rayClusterSpec.workerGroupSpecs[1].template.spec.initContainers[0].image",
  // "spec.submitterPodTemplate.spec.containers[0].image",
  // "spec.rayClusterSpec.autoscalerOptions.image".
  std::string field() const;
};

// Returns every image that will run for `job`, in a fixed order: head containers then head init
// containers, each worker group's containers then init containers, the submitterPodTemplate's
// (only in K8sJobMode, the only mode that uses it), and autoscalerOptions.image when in-tree
// autoscaling is on. The default submitter container reuses the head image and adds nothing.
std::vector<ImageUse> images_that_run(const RayJob& job);

// Returns, in images_that_run order, every image use of `job` whose image `judge` finds a problem
// with, paired with that problem. `judge(std::string_view image)` returns the problem, or "" when
// the image is fine; it is called once per distinct image text (the head and the worker groups
// usually run one image), so it must depend on the text only.
template <typename Judge>
std::vector<std::pair<ImageUse, std::string>> image_problems(const RayJob& job, Judge&& judge) {
  std::vector<std::pair<std::string_view, std::string>> judged;
  std::vector<std::pair<ImageUse, std::string>> out;
  for (const ImageUse& use : images_that_run(job)) {
    auto it = std::find_if(judged.begin(), judged.end(),
                           [&use](const auto& j) { return j.first == use.image; });
    if (it == judged.end()) {
      judged.emplace_back(use.image, judge(use.image));
      it = judged.end() - 1;
    }
    if (!it->second.empty()) {
      out.emplace_back(use, it->second);
    }
  }
  return out;
}

}  // namespace rjg::policy
