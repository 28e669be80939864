// image-contract: every image a RayJob runs carries an AWS SDK that can reach EKS Pod Identity:
// an image built under the tenant image contract (images.allow), or a stock Ray image
// (images.stock.patterns) whose job pins boto3/botocore at or above the floor in runtimeEnvYAML
// pip and downloads nothing from S3 before that pip runs; images.deny always loses.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/image_ref.hpp"
#include "policy/pip_requirement.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

std::string join(const std::vector<std::string>& patterns) {
  if (patterns.empty()) {
    return "none configured";
  }
  std::string out;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    out += (i == 0 ? "" : ", ") + patterns[i];
  }
  return out;
}

bool matches_any(const std::vector<std::string>& patterns, const ImageSpellings& image) {
  for (const std::string& p : patterns) {
    if (image.matched_by(p)) {
      return true;
    }
  }
  return false;
}

bool is_s3(const std::string& uri) { return uri.rfind("s3://", 0) == 0; }

// Why runtimeEnvYAML does not make a stock image fine, or nullopt when it does.
struct StockVerdict {
  bool ok = false;
  bool s3 = false;  // a pip pin cannot help: only another image can
  std::string problem;
};

StockVerdict judge_runtime_env(const RuntimeEnv& env, const ImagesConfig& images) {
  const std::string pin_hint =
      "\"boto3>=" + images.boto3_min + "\" or \"botocore>=" + images.botocore_min + "\"";
  if (env.parse == RuntimeEnv::Parse::kInvalid || env.parse == RuntimeEnv::Parse::kNotMapping) {
    return {false, false, "runtimeEnvYAML is not a YAML mapping, so it pins nothing"};
  }
  if (env.working_dir && is_s3(*env.working_dir)) {
    return {false, true,
            "runtimeEnvYAML working_dir \"" + *env.working_dir +
                "\" is downloaded from S3 by the image's own SDK before the job's pip runs, so a "
                "pip pin cannot help"};
  }
  for (const std::string& m : env.py_modules) {
    if (is_s3(m)) {
      return {false, true,
              "runtimeEnvYAML py_modules \"" + m +
                  "\" is downloaded from S3 by the image's own SDK before the job's pip runs, so a "
                  "pip pin cannot help"};
    }
  }
  switch (env.pip_form) {
    case RuntimeEnv::PipForm::kNone:
      return {false, false,
              std::string(env.has_conda ? "runtimeEnvYAML installs with conda, which cannot be "
                                          "verified here, and pins no pip packages"
                                        : "runtimeEnvYAML pins neither boto3 nor botocore in pip") +
                  "; add " + pin_hint + " to runtimeEnvYAML pip"};
    case RuntimeEnv::PipForm::kRequirementsPath:
      return {false, false,
              "runtimeEnvYAML pip names a requirements file, which cannot be verified at "
              "admission; use the list form, e.g. pip: [" +
                  pin_hint + "]"};
    case RuntimeEnv::PipForm::kMalformed:
      return {false, false,
              "runtimeEnvYAML pip is neither a list, a {packages: [...]} mapping nor a path; use "
              "the list form, e.g. pip: [" +
                  pin_hint + "]"};
    case RuntimeEnv::PipForm::kList:
    case RuntimeEnv::PipForm::kPackages:
      break;
  }
  std::vector<VersionSpecifier> boto3;
  std::vector<VersionSpecifier> botocore;
  bool names_boto3 = false;
  bool names_botocore = false;
  for (const std::string& item : env.pip_packages) {
    Result<PipRequirement> req = parse_pip_requirement(item);
    if (!req.ok() || req.value().kind != PipRequirement::Kind::kPackage) {
      continue;
    }
    const PipRequirement& r = req.value();
    if (r.name == "boto3") {
      names_boto3 = true;
      boto3.insert(boto3.end(), r.specifiers.begin(), r.specifiers.end());
    } else if (r.name == "botocore") {
      names_botocore = true;
      botocore.insert(botocore.end(), r.specifiers.begin(), r.specifiers.end());
    }
  }
  if (names_boto3 && caps_below(boto3, images.boto3_min)) {
    return {false, false,
            "runtimeEnvYAML pip keeps boto3 below " + images.boto3_min + "; require " + pin_hint +
                " instead"};
  }
  if (names_botocore && caps_below(botocore, images.botocore_min)) {
    return {false, false,
            "runtimeEnvYAML pip keeps botocore below " + images.botocore_min + "; require " +
                pin_hint + " instead"};
  }
  if (guarantees_at_least(boto3, images.boto3_min) ||
      guarantees_at_least(botocore, images.botocore_min)) {
    return {true, false, ""};
  }
  return {false, false,
          "runtimeEnvYAML pip does not guarantee either floor (a bare name, an upper bound or a "
          "lower floor does not); add " +
              pin_hint + " to runtimeEnvYAML pip"};
}

// Returns the problem with `image` ("" when it is fine). The message starts with the quoted image.
// Adds the image to `pinnable` when it is a stock image whose only problem is the runtime env.
std::string judge_image(std::string_view image_text, const RuleContext& ctx,
                        std::optional<StockVerdict>& stock,
                        std::vector<std::string_view>& pinnable) {
  const ImagesConfig& images = ctx.policy.images;
  auto contract = [&images] {
    return "use an image built under the tenant image contract (" + join(images.allow) + ")";
  };
  const ImageSpellings image(image_text);
  const ImageDenyEntry* denied = nullptr;
  for (const ImageDenyEntry& d : images.deny) {
    if (image.matched_by(d.pattern)) {
      denied = &d;
      break;
    }
  }
  if (denied == nullptr && matches_any(images.allow, image)) {
    return {};
  }
  const std::string quoted = "\"" + std::string(image_text) + "\"";
  if (denied != nullptr) {
    return quoted + " " + denied->reason + "; " + contract();
  }
  if (matches_any(images.stock_patterns, image)) {
    if (!stock) {
      stock = judge_runtime_env(ctx.job.spec.runtime_env, images);
    }
    if (stock->ok) {
      return {};
    }
    pinnable.push_back(image_text);
    return quoted + " is a stock Ray image whose botocore may not reach EKS Pod Identity, and " +
           stock->problem + "; " + (stock->s3 ? contract() : "or " + contract());
  }
  std::string message = quoted + " matches no allowed image pattern; " + contract();
  if (!images.stock_patterns.empty()) {
    message += ", or a stock Ray image (" + join(images.stock_patterns) +
               ") with \"boto3>=" + images.boto3_min + "\" or \"botocore>=" + images.botocore_min +
               "\" in runtimeEnvYAML pip";
  }
  return message;
}

}  // namespace

void check_image_contract(const RuleContext& ctx, Findings& out) {
  std::optional<StockVerdict> stock;  // computed once: the runtime env is the RayJob's
  std::vector<std::string_view> pinnable;
  auto judge = [&](std::string_view image) { return judge_image(image, ctx, stock, pinnable); };
  // The one literal fix: a stock image with no runtimeEnvYAML at all gets the pip pins the image
  // contract documents (docs/image-contract.md). Anything else, which image to run or how to edit
  // an existing runtime environment, is the tenant's choice.
  std::vector<Edit> pins;
  if (!ctx.job.spec.runtime_env_yaml) {
    const ImagesConfig& images = ctx.policy.images;
    pins = {Edit::set("spec.runtimeEnvYAML", "pip:\n  - boto3>=" + images.boto3_min +
                                                 "\n  - botocore>=" + images.botocore_min + "\n")};
  }
  for (auto& [use, problem] : image_problems(ctx.job, judge)) {
    const bool pin = std::find(pinnable.begin(), pinnable.end(), use.image) != pinnable.end();
    out.push_back({RuleId::kImageContract, Finding::Kind::kViolation, use.field(),
                   std::move(problem), pin ? pins : std::vector<Edit>{}});
  }
}

}  // namespace rjg::policy
