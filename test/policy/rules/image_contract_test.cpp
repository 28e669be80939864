// Tests image-contract: every image a RayJob runs carries an AWS SDK that can reach EKS Pod
// Identity: an allowed contract image, or a stock image whose job pins the SDK floor in
// runtimeEnvYAML pip and downloads nothing from S3 first; images.deny always loses.
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
const std::string kWorkerImage =
    "spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].image";

void all_images(RayJob& j, const std::string& image) {
  j.spec.ray_cluster_spec->head.pod_template.containers[0].image = image;
  j.spec.ray_cluster_spec->worker_groups[0].pod_template.containers[0].image = image;
}

void pip_list(RayJob& j, std::vector<std::string> packages) {
  j.spec.runtime_env.parse = RuntimeEnv::Parse::kMapping;
  j.spec.runtime_env.pip_form = RuntimeEnv::PipForm::kList;
  j.spec.runtime_env.pip_packages = std::move(packages);
}

TEST(ImageContract, Table) {
  const std::vector<Row> rows = {
      {"compliant: the tenant contract image", [](RayJob&, PolicyConfig&) {}, {}},
      {"denied stock image on the head",
       [](RayJob& j, PolicyConfig&) {
         j.spec.ray_cluster_spec->head.pod_template.containers[0].image = "rayproject/ray:2.41.0";
       },
       {{kHeadImage,
         "\"rayproject/ray:2.41.0\" ships botocore 1.29.x, which cannot reach EKS Pod "
         "Identity (169.254.170.23); use an image built under the tenant image "
         "contract (*.dkr.ecr.*.amazonaws.com/ray-tenant:*)"}}},
      {"denied even with the SDK pinned",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.43.0-py310");
         pip_list(j, {"boto3>=1.35.0"});
       },
       {{kHeadImage, "ships botocore 1.29.x"}, {kWorkerImage, "ships botocore 1.29.x"}}},
      {"each distinct image is judged on its own, and reported at every place it runs",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.41.0");
         auto& worker = j.spec.ray_cluster_spec->worker_groups[0].pod_template;
         worker.containers.push_back(worker.containers[0]);
         worker.containers[1].image = "ghcr.io/acme/ray:2.52.0";
         worker.init_containers.push_back(worker.containers[0]);
       },
       {{kHeadImage, "\"rayproject/ray:2.41.0\" ships botocore 1.29.x"},
        {kWorkerImage, "\"rayproject/ray:2.41.0\" ships botocore 1.29.x"},
        {"spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[1].image",
         "\"ghcr.io/acme/ray:2.52.0\" matches no allowed image pattern"},
        {"spec.rayClusterSpec.workerGroupSpecs[0].template.spec.initContainers[0].image",
         "\"rayproject/ray:2.41.0\" ships botocore 1.29.x"}}},
      {"denied under its docker.io spelling",
       [](RayJob& j, PolicyConfig&) { all_images(j, "docker.io/rayproject/ray:2.41.0"); },
       {{kHeadImage, "\"docker.io/rayproject/ray:2.41.0\" ships botocore 1.29.x"},
        {kWorkerImage, "ships botocore 1.29.x"}}},
      {"deny wins over allow",
       [](RayJob& j, PolicyConfig& p) {
         p.images.allow.push_back("rayproject/ray:*");
         all_images(j, "rayproject/ray:2.41.0");
       },
       {{kHeadImage, "ships botocore"}, {kWorkerImage, "ships botocore"}}},
      {"stock image without runtimeEnvYAML",
       [](RayJob& j, PolicyConfig&) { all_images(j, "rayproject/ray:2.52.0"); },
       {{kHeadImage,
         "\"rayproject/ray:2.52.0\" is a stock Ray image whose botocore may not reach "
         "EKS Pod Identity, and runtimeEnvYAML pins neither boto3 nor botocore in pip; add "
         "\"boto3>=1.35.0\" or \"botocore>=1.34.41\" to runtimeEnvYAML pip; or use an "
         "image built under the tenant image contract"},
        {kWorkerImage, "pins neither boto3 nor botocore"}}},
      {"stock image with boto3 pinned at the floor",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         pip_list(j, {"requests==2.26.0", "boto3>=1.35.0"});
       },
       {}},
      {"stock image with botocore pinned in the packages form",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "docker.io/rayproject/ray:2.52.0");
         pip_list(j, {"botocore==1.34.41"});
         j.spec.runtime_env.pip_form = RuntimeEnv::PipForm::kPackages;
       },
       {}},
      {"options and markers do not hide the pin",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         pip_list(j, {"-f https://example.org/wheels", "Boto3>=1.35.2; python_version >= '3.8'"});
       },
       {}},
      {"boto3 floor too low",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         pip_list(j, {"boto3>=1.26.76"});
       },
       {{kHeadImage, "runtimeEnvYAML pip does not guarantee either floor"},
        {kWorkerImage, "does not guarantee either floor"}}},
      {"a bare name does not pin",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         pip_list(j, {"boto3"});
       },
       {{kHeadImage, "does not guarantee"}, {kWorkerImage, "does not guarantee"}}},
      {"boto3 pinned but botocore kept below its floor",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         pip_list(j, {"boto3>=1.35.0", "botocore<1.30"});
       },
       {{kHeadImage, "runtimeEnvYAML pip keeps botocore below 1.34.41"},
        {kWorkerImage, "keeps botocore below"}}},
      {"boto3 pinned below while botocore is fine",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         pip_list(j, {"boto3==1.26.76", "botocore>=1.34.41"});
       },
       {{kHeadImage, "keeps boto3 below 1.35.0"}, {kWorkerImage, "keeps boto3 below"}}},
      {"requirements file cannot be verified",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         j.spec.runtime_env.parse = RuntimeEnv::Parse::kMapping;
         j.spec.runtime_env.pip_form = RuntimeEnv::PipForm::kRequirementsPath;
       },
       {{kHeadImage,
         "names a requirements file, which cannot be verified at admission; use the "
         "list form"},
        {kWorkerImage, "requirements file"}}},
      {"malformed pip",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         j.spec.runtime_env.parse = RuntimeEnv::Parse::kMapping;
         j.spec.runtime_env.pip_form = RuntimeEnv::PipForm::kMalformed;
       },
       {{kHeadImage, "use the list form"}, {kWorkerImage, "use the list form"}}},
      {"conda cannot be verified",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         j.spec.runtime_env.parse = RuntimeEnv::Parse::kMapping;
         j.spec.runtime_env.has_conda = true;
       },
       {{kHeadImage, "installs with conda"}, {kWorkerImage, "conda"}}},
      {"runtimeEnvYAML that is not a mapping",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         j.spec.runtime_env.parse = RuntimeEnv::Parse::kNotMapping;
       },
       {{kHeadImage, "not a YAML mapping"}, {kWorkerImage, "not a YAML mapping"}}},
      {"S3 working_dir needs the SDK in the image",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         pip_list(j, {"boto3>=1.35.0"});
         j.spec.runtime_env.working_dir = "s3://bucket/code.zip";
       },
       {{kHeadImage,
         "runtimeEnvYAML working_dir \"s3://bucket/code.zip\" is downloaded from S3 by "
         "the image's own SDK before the job's pip runs, so a pip pin cannot help; use "
         "an image built under the tenant image contract"},
        {kWorkerImage, "working_dir"}}},
      {"S3 py_modules needs the SDK in the image",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         pip_list(j, {"boto3>=1.35.0"});
         j.spec.runtime_env.py_modules = {"https://example.org/m.zip", "s3://bucket/mod.zip"};
       },
       {{kHeadImage, "py_modules \"s3://bucket/mod.zip\""}, {kWorkerImage, "py_modules"}}},
      {"an HTTPS working_dir is fine with the pin",
       [](RayJob& j, PolicyConfig&) {
         all_images(j, "rayproject/ray:2.52.0");
         pip_list(j, {"boto3>=1.35.0"});
         j.spec.runtime_env.working_dir = "https://github.com/org/repo/archive/abc.zip";
       },
       {}},
      {"S3 working_dir is fine with the contract image",
       [](RayJob& j, PolicyConfig&) { j.spec.runtime_env.working_dir = "s3://bucket/code.zip"; },
       {}},
      {"an image matching nothing",
       [](RayJob& j, PolicyConfig&) {
         j.spec.ray_cluster_spec->worker_groups[0].pod_template.containers[0].image =
             "ghcr.io/someone/ray:2.52.0";
       },
       {{kWorkerImage,
         "\"ghcr.io/someone/ray:2.52.0\" matches no allowed image pattern; use an "
         "image built under the tenant image contract "
         "(*.dkr.ecr.*.amazonaws.com/ray-tenant:*), or a stock Ray image "
         "(rayproject/ray:*, docker.io/rayproject/ray:*) with \"boto3>=1.35.0\""}}},
      {"a worker init container is checked",
       [](RayJob& j, PolicyConfig&) {
         j.spec.ray_cluster_spec->worker_groups[0].pod_template.init_containers.push_back(
             testing::ray_container("init", "busybox:1.36", "100m", "64Mi"));
       },
       {{"spec.rayClusterSpec.workerGroupSpecs[0].template.spec.initContainers[0].image",
         "\"busybox:1.36\" matches no allowed image pattern"}}},
      {"a head init container is checked",
       [](RayJob& j, PolicyConfig&) {
         j.spec.ray_cluster_spec->head.pod_template.init_containers.push_back(
             testing::ray_container("init", "rayproject/ray:2.41.0", "100m", "64Mi"));
       },
       {{"spec.rayClusterSpec.headGroupSpec.template.spec.initContainers[0].image",
         "ships botocore"}}},
      {"a submitterPodTemplate image is checked",
       [](RayJob& j, PolicyConfig&) {
         PodTemplate t;
         t.containers.push_back(testing::ray_container("sub", "rayproject/ray:2.52.0", "1", "1Gi"));
         j.spec.submitter_pod_template = t;
       },
       {{"spec.submitterPodTemplate.spec.containers[0].image", "is a stock Ray image"}}},
      {"the autoscaler image is checked when autoscaling",
       [](RayJob& j, PolicyConfig&) {
         j.spec.ray_cluster_spec->enable_in_tree_autoscaling = true;
         AutoscalerOptions o;
         o.image = "rayproject/ray:2.41.0";
         j.spec.ray_cluster_spec->autoscaler_options = o;
       },
       {{"spec.rayClusterSpec.autoscalerOptions.image", "ships botocore"}}},
      {"the autoscaler image is ignored without autoscaling",
       [](RayJob& j, PolicyConfig&) {
         AutoscalerOptions o;
         o.image = "rayproject/ray:2.41.0";
         j.spec.ray_cluster_spec->autoscaler_options = o;
       },
       {}},
      {"no allow patterns configured",
       [](RayJob& j, PolicyConfig& p) {
         p.images.allow.clear();
         p.images.stock_patterns.clear();
         j.spec.ray_cluster_spec->head.pod_template.containers[0].image = "busybox:1.36";
       },
       {{kHeadImage,
         "matches no allowed image pattern; use an image built under the tenant image "
         "contract (none configured)"},
        {kWorkerImage, "matches no allowed image pattern"}}},
  };
  testing::check_rows(RuleId::kImageContract, rows);
}

}  // namespace
}  // namespace rjg::policy
