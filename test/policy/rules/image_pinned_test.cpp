// Tests image-pinned: every image names a tag other than `latest`, or a digest (an `@sha256:`
// digest when images.requireDigest is on).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "policy/rules/rules.hpp"
#include "test/policy/rayjob_builder.hpp"
#include "test/policy/rule_table.hpp"

namespace rjg::policy {
namespace {

using Want = testing::Expect;
using testing::Row;

const std::string kHeadImage =
    "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].image";
const std::string kDigest = "sha256:" + std::string(64, '0');

void head_image(RayJob& j, std::string image) {
  j.spec.ray_cluster_spec->head.pod_template.containers[0].image = std::move(image);
}

TEST(ImagePinned, Table) {
  const std::vector<Row> rows = {
      {"compliant: a version tag", [](RayJob&, PolicyConfig&) {}, {}},
      {"no tag is :latest",
       [](RayJob& j, PolicyConfig&) { head_image(j, "rayproject/ray"); },
       {{kHeadImage,
         "\"rayproject/ray\" has no tag, so the runtime pulls :latest, which moves; pin "
         "a version tag"}}},
      {"explicit :latest",
       [](RayJob& j, PolicyConfig&) { head_image(j, "rayproject/ray:latest"); },
       {{kHeadImage, "\"rayproject/ray:latest\" uses the moving tag :latest"}}},
      {"registry port is not a tag",
       [](RayJob& j, PolicyConfig&) { head_image(j, "localhost:5000/ray"); },
       {{kHeadImage, "has no tag"}}},
      {"a digest pins",
       [](RayJob& j, PolicyConfig&) { head_image(j, "rayproject/ray@" + kDigest); },
       {}},
      {":latest with a digest is pinned by the digest",
       [](RayJob& j, PolicyConfig&) { head_image(j, "rayproject/ray:latest@" + kDigest); },
       {}},
      {"requireDigest refuses a tag",
       [](RayJob&, PolicyConfig& p) { p.images.require_digest = true; },
       {{kHeadImage, "is not pinned by an @sha256: digest and images.requireDigest is on"},
        {"spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].image",
         "images.requireDigest"}}},
      {"requireDigest accepts a digest",
       [](RayJob& j, PolicyConfig& p) {
         p.images.require_digest = true;
         const std::string image =
             "123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant@" + kDigest;
         head_image(j, image);
         j.spec.ray_cluster_spec->worker_groups[0].pod_template.containers[0].image = image;
       },
       {}},
      {"requireDigest wants sha256",
       [](RayJob& j, PolicyConfig& p) {
         p.images.require_digest = true;
         head_image(j, "rayproject/ray@sha512:" + std::string(128, 'a'));
         j.spec.ray_cluster_spec->worker_groups[0].pod_template.containers[0].image =
             "rayproject/ray@" + kDigest;
       },
       {{kHeadImage, "@sha256: digest"}}},
      {"an invalid reference",
       [](RayJob& j, PolicyConfig&) { head_image(j, "RayProject/Ray:2.52.0"); },
       {{kHeadImage,
         "\"RayProject/Ray:2.52.0\" is not a valid image reference (repository path "
         "component \"Ray\""}}},
      {"a short digest",
       [](RayJob& j, PolicyConfig&) { head_image(j, "rayproject/ray@sha256:abc"); },
       {{kHeadImage, "not a valid image reference (a sha256 digest has 64 hex digits"}}},
      {"an init container",
       [](RayJob& j, PolicyConfig&) {
         j.spec.ray_cluster_spec->worker_groups[0].pod_template.init_containers.push_back(
             testing::ray_container("init", "busybox", "100m", "64Mi"));
       },
       {{"spec.rayClusterSpec.workerGroupSpecs[0].template.spec.initContainers[0].image",
         "\"busybox\" has no tag"}}},
      {"a submitterPodTemplate container",
       [](RayJob& j, PolicyConfig&) {
         PodTemplate t;
         t.containers.push_back(
             testing::ray_container("sub", "quay.io/kuberay/submitter:latest", "1", "1Gi"));
         j.spec.submitter_pod_template = t;
       },
       {{"spec.submitterPodTemplate.spec.containers[0].image", ":latest"}}},
      {"the autoscaler image when autoscaling",
       [](RayJob& j, PolicyConfig&) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         AutoscalerOptions o;
         o.image = "rayproject/ray";
         j.spec.ray_cluster_spec->autoscaler_options = o;
       },
       {{"spec.rayClusterSpec.autoscalerOptions.image", "has no tag"}}},
      {"each distinct image is judged on its own, and reported at every place it runs",
       [](RayJob& j, PolicyConfig&) {
         head_image(j, "rayproject/ray");
         auto& worker = j.spec.ray_cluster_spec->worker_groups[0].pod_template;
         worker.containers[0].image = "rayproject/ray";
         worker.containers.push_back(worker.containers[0]);
         worker.containers[1].image = "rayproject/ray:latest";
         worker.init_containers.push_back(worker.containers[0]);
       },
       {{kHeadImage, "\"rayproject/ray\" has no tag"},
        {"spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].image",
         "\"rayproject/ray\" has no tag"},
        {"spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[1].image",
         "\"rayproject/ray:latest\" uses the moving tag :latest"},
        {"spec.rayClusterSpec.workerGroupSpecs[0].template.spec.initContainers[0].image",
         "\"rayproject/ray\" has no tag"}}},
      {"a tag named like latest but different is a tag",
       [](RayJob& j, PolicyConfig&) { head_image(j, "rayproject/ray:latest-py310"); },
       {}},
  };
  testing::check_rows(RuleId::kImagePinned, rows);
}

}  // namespace
}  // namespace rjg::policy
