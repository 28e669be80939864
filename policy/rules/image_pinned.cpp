// image-pinned: every image names a tag other than `latest`, or a digest (an `@sha256:` digest
// when images.requireDigest is on), so that the image a RayJob runs cannot move underneath it.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/image_ref.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

// Returns what is wrong with `image` ("" when it is pinned). The message starts with the quoted
// image.
std::string judge_image(std::string_view image, bool require_digest) {
  auto quoted = [image] { return "\"" + std::string(image) + "\""; };
  Result<ImageRef> ref = parse_image_ref(image);
  if (!ref.ok()) {
    return quoted() + " is not a valid image reference (" + ref.error().message +
           "); write [registry/]repository:tag or [registry/]repository@sha256:<digest>";
  }
  if (require_digest && ref.value().digest.rfind("sha256:", 0) != 0) {
    return quoted() +
           " is not pinned by an @sha256: digest and images.requireDigest is on; write it as "
           "[registry/]repository@sha256:<64 hex digits> (skopeo inspect or crane digest prints "
           "the digest)";
  }
  if (ref.value().digest.empty() && ref.value().tag.empty()) {
    return quoted() +
           " has no tag, so the runtime pulls :latest, which moves; pin a version tag (e.g. "
           ":2.52.0) or an @sha256: digest";
  }
  if (ref.value().digest.empty() && ref.value().tag == "latest") {
    return quoted() +
           " uses the moving tag :latest; pin a version tag (e.g. :2.52.0) or an @sha256: digest";
  }
  return {};
}

}  // namespace

void check_image_pinned(const RuleContext& ctx, Findings& out) {
  const bool require_digest = ctx.policy.images.require_digest;
  // The head and worker groups usually run one image: each distinct text is judged once.
  std::vector<std::pair<std::string_view, std::string>> judged;
  for (const ImageUse& use : images_that_run(ctx.job)) {
    auto it = std::find_if(judged.begin(), judged.end(),
                           [&use](const auto& j) { return j.first == use.image; });
    if (it == judged.end()) {
      judged.emplace_back(use.image, judge_image(use.image, require_digest));
      it = judged.end() - 1;
    }
    if (!it->second.empty()) {
      out.push_back({RuleId::kImagePinned, Finding::Kind::kViolation, use.field(), it->second});
    }
  }
}

}  // namespace rjg::policy
