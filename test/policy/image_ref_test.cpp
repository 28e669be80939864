// Tests policy/image_ref: Docker reference parsing, glob matching, Docker Hub spellings and the
// list of images a RayJob runs.
#include "policy/image_ref.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/policy/rayjob_builder.hpp"

namespace rjg::policy {
namespace {

const std::string kDigest = "sha256:" + std::string(64, 'a');

TEST(ImageRef, ParsesReferences) {
  struct Row {
    std::string text;
    std::string registry, repository, tag, digest;
  };
  const std::vector<Row> rows = {
      {"ubuntu", "", "ubuntu", "", ""},
      {"rayproject/ray:2.41.0", "", "rayproject/ray", "2.41.0", ""},
      {"rayproject/ray:2.52.0-py310-gpu", "", "rayproject/ray", "2.52.0-py310-gpu", ""},
      {"docker.io/rayproject/ray:latest", "docker.io", "rayproject/ray", "latest", ""},
      {"MyRegistry/ray:1", "MyRegistry", "ray", "1", ""},
      {std::string(247, 'a'), "", std::string(247, 'a'), "", ""},
      {"ghcr.io/" + std::string(255, 'a'), "ghcr.io", std::string(255, 'a'), "", ""},
      {"123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.52.0-py310",
       "123456789012.dkr.ecr.us-east-1.amazonaws.com", "ray-tenant", "2.52.0-py310", ""},
      {"localhost/img", "localhost", "img", "", ""},
      {"localhost:5000/team/img:1", "localhost:5000", "team/img", "1", ""},
      {"registry:5000/img", "registry:5000", "img", "", ""},
      {"quay.io/kuberay/submitter:v1.5.1", "quay.io", "kuberay/submitter", "v1.5.1", ""},
      {"rayproject/ray@" + kDigest, "", "rayproject/ray", "", kDigest},
      {"rayproject/ray:2.52.0@" + kDigest, "", "rayproject/ray", "2.52.0", kDigest},
      {"ghcr.io/a/b/c:1.0", "ghcr.io", "a/b/c", "1.0", ""},
      {"a__b/c-d--e.f_g:TAG_1", "", "a__b/c-d--e.f_g", "TAG_1", ""},
      {"[::1]:5000/img:1", "[::1]:5000", "img", "1", ""},
      {"team/img", "", "team/img", "", ""},  // "team" has no '.' or ':': a path, not a registry
  };
  for (const Row& r : rows) {
    Result<ImageRef> ref = parse_image_ref(r.text);
    ASSERT_TRUE(ref.ok()) << r.text << ": " << ref.error().message;
    EXPECT_EQ(ref.value().registry, r.registry) << r.text;
    EXPECT_EQ(ref.value().repository, r.repository) << r.text;
    EXPECT_EQ(ref.value().tag, r.tag) << r.text;
    EXPECT_EQ(ref.value().digest, r.digest) << r.text;
  }
}

TEST(ImageRef, RefusesMalformedReferences) {
  struct Row {
    std::string text;
    std::string fragment;
  };
  const std::vector<Row> rows = {
      {"", "empty"},
      // An upper-case first component is a registry (as kubelet's parser reads it); upper case
      // after it is refused.
      {"rayproject/Ray:1", "path component"},
      {"Rayproject/Ray:1", "path component"},
      {"x@md5:0123456789abcdef0123456789abcdef", "not supported"},
      {"x@sha384:0123456789abcdef0123456789abcdef", "96 hex digits"},
      {"[::1.2]:5000/x", "registry"},
      {std::string(64, 'a'), "image ID"},
      {std::string(248, 'a'), "longer than 255"},
      {"rayproject/ray:", "tag"},
      {"rayproject/ray:-x", "tag"},
      {"rayproject/ray:a b", "tag"},
      {"rayproject/ray@sha256:abc", "64 hex"},
      {"rayproject/ray@sha256:" + std::string(64, 'G'), "hexadecimal"},
      {"rayproject/ray@" + std::string(64, 'a'), "algorithm:hex"},
      {"ray//x", "path component"},
      {"-ray/x", "path component"},
      {"ray_/x", "path component"},
      {"bad_host.com:x/img", "registry"},
      {"my.registry:/img", "registry"},
      {"ghcr.io/", "no repository"},
      {"ray...x", "path component"},
      {"rayproject/ray:" + std::string(129, 'a'), "tag"},
  };
  for (const Row& r : rows) {
    Result<ImageRef> ref = parse_image_ref(r.text);
    ASSERT_FALSE(ref.ok()) << "\"" << r.text << "\" parsed";
    EXPECT_EQ(ref.error().code, ErrorCode::kInvalidArgument) << r.text;
    EXPECT_NE(ref.error().message.find(r.fragment), std::string::npos)
        << r.text << ": " << ref.error().message;
  }
}

TEST(ImageRef, GlobMatches) {
  struct Row {
    const char* pattern;
    const char* text;
    bool match;
  };
  const std::vector<Row> rows = {
      {"rayproject/ray:*", "rayproject/ray:2.52.0", true},
      {"rayproject/ray:*", "rayproject/ray-ml:2.52.0", false},
      {"rayproject/ray:2.4[13]*", "rayproject/ray:2.41.0", true},
      {"rayproject/ray:2.4[13]*", "rayproject/ray:2.43.0-py310", true},
      {"rayproject/ray:2.4[13]*", "rayproject/ray:2.42.0", false},
      {"rayproject/ray:2.4[1-3]", "rayproject/ray:2.42", true},
      {"rayproject/ray:2.4[!1-3]", "rayproject/ray:2.44", true},
      {"rayproject/ray:2.4[!1-3]", "rayproject/ray:2.42", false},
      {"rayproject/ray:2.4[^1-3]", "rayproject/ray:2.42", false},
      {"rayproject/ray:2.4?.0", "rayproject/ray:2.41.0", true},
      {"rayproject/ray:2.4?.0", "rayproject/ray:2.4.0", false},
      {"*.dkr.ecr.*.amazonaws.com/ray-tenant:*",
       "123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.52.0-py310", true},
      // `*` does not cross `/`: someone else's registry in front is not an ECR image.
      {"*.dkr.ecr.*.amazonaws.com/ray-tenant:*",
       "evil.example.com/x.dkr.ecr.y.amazonaws.com/ray-tenant:1", false},
      {"*.dkr.ecr.*.amazonaws.com/ray-tenant:*",
       "1.dkr.ecr.us-east-1.amazonaws.com/ray-tenant-evil:1", false},
      {"*", "ubuntu", true},
      {"*", "library/ubuntu", false},
      {"*/*", "library/ubuntu", true},
      {"", "", true},
      {"", "x", false},
      {"a*b*c", "aXXbYYc", true},
      {"a*b*c", "aXXbYY", false},
      {"a\\*", "a*", true},
      {"a\\*", "ab", false},
      {"a[", "a[", true},
      {"a[]]", "a]", true},
      {"x[a/]y", "x/y", false},
      {"?", "/", false},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(glob_match(r.pattern, r.text), r.match) << r.pattern << " vs " << r.text;
  }
  // Oversized inputs never match, even with a pattern that would accept them.
  EXPECT_TRUE(glob_match("a*", "a" + std::string(4000, 'b')));
  EXPECT_FALSE(glob_match("a*", "a" + std::string(5000, 'b')));
  EXPECT_FALSE(image_matches("rayproject/ray:*", "rayproject/ray:" + std::string(5000, 'b')));
}

TEST(ImageRef, MatchesDockerHubSpellings) {
  struct Row {
    const char* pattern;
    const char* image;
    bool match;
  };
  const std::vector<Row> rows = {
      {"rayproject/ray:2.4[13]*", "docker.io/rayproject/ray:2.41.0", true},
      {"rayproject/ray:2.4[13]*", "index.docker.io/rayproject/ray:2.43.0", true},
      {"docker.io/rayproject/ray:*", "rayproject/ray:2.52.0", true},
      {"rayproject/ray:*", "ghcr.io/rayproject/ray:2.52.0", false},
      {"ubuntu:*", "docker.io/library/ubuntu:22.04", true},
      {"docker.io/library/ubuntu:*", "ubuntu:22.04", true},
      {"library/ubuntu:*", "ubuntu:22.04", true},
      {"rayproject/ray:*", "rayproject/ray-ml:2.52.0", false},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(image_matches(r.pattern, r.image), r.match) << r.pattern << " vs " << r.image;
  }
}

TEST(ImageRef, ListsTheImagesThatRun) {
  RayJob j = testing::compliant_rayjob();
  j.spec.ray_cluster_spec->head.pod_template.init_containers.push_back(
      testing::ray_container("init", "busybox:1.36", "100m", "64Mi"));
  j.spec.ray_cluster_spec->worker_groups[0].pod_template.containers.push_back(
      Container{"noimage", "", std::nullopt, std::nullopt});
  PodTemplate sub;
  sub.containers.push_back(
      testing::ray_container("sub", "quay.io/kuberay/submitter:v1.5.1", "1", "1Gi"));
  j.spec.submitter_pod_template = sub;
  AutoscalerOptions o;
  o.image = "rayproject/ray:2.52.0";
  j.spec.ray_cluster_spec->autoscaler_options = o;

  std::vector<ImageUse> uses = images_that_run(j);
  ASSERT_EQ(uses.size(), 4u);  // autoscaler image unused while autoscaling is off
  EXPECT_EQ(uses[0].field(), "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].image");
  EXPECT_EQ(uses[1].field(),
            "spec.rayClusterSpec.headGroupSpec.template.spec.initContainers[0].image");
  EXPECT_EQ(uses[1].image, "busybox:1.36");
  EXPECT_EQ(uses[2].field(),
            "spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].image");
  EXPECT_EQ(uses[3].field(), "spec.submitterPodTemplate.spec.containers[0].image");

  j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
  uses = images_that_run(j);
  ASSERT_EQ(uses.size(), 5u);
  EXPECT_EQ(uses[4].field(), "spec.rayClusterSpec.autoscalerOptions.image");

  j.spec.submission_mode = "HTTPMode";  // the template is never used
  uses = images_that_run(j);
  ASSERT_EQ(uses.size(), 4u);
  EXPECT_EQ(uses[3].field(), "spec.rayClusterSpec.autoscalerOptions.image");
}

}  // namespace
}  // namespace rjg::policy
