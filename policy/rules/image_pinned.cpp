// image-pinned: every image names a tag other than `latest`, or a digest (an `@sha256:` digest
// when images.requireDigest is on), so that the image a RayJob runs cannot move underneath it.
#include <string>
#include <string_view>
#include <utility>

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
  auto judge = [require_digest](std::string_view image) {
    return judge_image(image, require_digest);
  };
  // No literal fix: which tag or digest to pin is the tenant's choice.
  for (auto& [use, problem] : image_problems(ctx.job, judge)) {
    out.push_back(
        {RuleId::kImagePinned, Finding::Kind::kViolation, use.field(), std::move(problem), {}});
  }
}

}  // namespace rjg::policy
