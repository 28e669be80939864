// image-pinned: every image names a tag other than `latest`, or a digest (an `@sha256:` digest
// when images.requireDigest is on), so that the image a RayJob runs cannot move underneath it.
#include <string>

#include "policy/image_ref.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

void check_image_pinned(const RuleContext& ctx, Findings& out) {
  const bool require_digest = ctx.policy.images.require_digest;
  for (const ImageUse& use : images_that_run(ctx.job)) {
    // Messages are built only for images that produce a finding.
    auto quoted = [&use] { return "\"" + std::string(use.image) + "\""; };
    Result<ImageRef> ref = parse_image_ref(use.image);
    std::string message;
    if (!ref.ok()) {
      message = quoted() + " is not a valid image reference (" + ref.error().message +
                "); write [registry/]repository:tag or [registry/]repository@sha256:<digest>";
    } else if (require_digest && ref.value().digest.rfind("sha256:", 0) != 0) {
      message = quoted() +
                " is not pinned by an @sha256: digest and images.requireDigest is on; write it as "
                "[registry/]repository@sha256:<64 hex digits> (skopeo inspect or crane digest "
                "prints the digest)";
    } else if (ref.value().digest.empty() && ref.value().tag.empty()) {
      message = quoted() +
                " has no tag, so the runtime pulls :latest, which moves; pin a version tag (e.g. "
                ":2.52.0) or an @sha256: digest";
    } else if (ref.value().digest.empty() && ref.value().tag == "latest") {
      message = quoted() +
                " uses the moving tag :latest; pin a version tag (e.g. :2.52.0) or an @sha256: "
                "digest";
    } else {
      continue;
    }
    out.push_back(
        {RuleId::kImagePinned, Finding::Kind::kViolation, use.field(), std::move(message)});
  }
}

}  // namespace rjg::policy
