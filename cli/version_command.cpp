// rayjob-guard version: the build's version, the KubeRay versions it knows, and the built-in
// default policy it serves without --policy; as text, or as JSON for scripts and inventories.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <string>

#include "admission/json_to_yaml.hpp"
#include "admission/policy_file.hpp"
#include "cli/commands.hpp"
#include "common/flags.hpp"
#include "common/visible_text.hpp"
#include "policy/kuberay/catalogue.hpp"

namespace rjg::cli {
namespace {

constexpr const char* kHelp =
    "usage: rayjob-guard version [--output text|json|yaml]\n"
    "  -o, --output FMT  text (default): one line; json: {version, kuberay: {oldest, newest},\n"
    "                    defaultPolicy: {hash, kuberayVersion}}; yaml: the same as YAML\n"
    "Exit status: 0, or 2 on a bad argument.\n";

}  // namespace

int run_version(const Args& args) {
  std::string output = "text";
  Result<flags::Parsed> parsed =
      flags::parse(args, {{"--output", "-o", true, flags::one_of(output, {"text", "json", "yaml"})}});
  if (!parsed.ok()) {
    return usage_error("version", parsed.error().message);
  }
  if (parsed.value().help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (!parsed.value().positional.empty()) {
    return usage_error("version", "takes no arguments, got '" +
                                      visible(parsed.value().positional.front()) + "'");
  }
  if (output == "text") {
    std::printf("rayjob-guard %s\n", RJG_VERSION);
    return 0;
  }
  // The built-in policy always decodes (a test and the build keep it valid); if it ever did not,
  // that is an error to show, not a field to leave out.
  Result<admission::LoadedPolicy> policy = admission::load_policy_or_default("");
  if (!policy.ok()) {
    std::fprintf(stderr, "rayjob-guard version: %s\n", visible(policy.error().message).c_str());
    return 2;
  }
  namespace kr = policy::kuberay;
  const std::string oldest = kr::version_text(kr::kOldest);
  const std::string newest = kr::version_text(kr::kNewest);
  const std::string pinned = kr::version_text(policy.value().config.kuberay.version);
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("version");
  w.String(RJG_VERSION);
  w.Key("kuberay");
  w.StartObject();
  w.Key("oldest");
  w.String(oldest.c_str());
  w.Key("newest");
  w.String(newest.c_str());
  w.EndObject();
  w.Key("defaultPolicy");
  w.StartObject();
  w.Key("hash");
  w.String(policy.value().hash.c_str());
  w.Key("kuberayVersion");
  w.String(pinned.c_str());
  w.EndObject();
  w.EndObject();
  if (output == "yaml") {
    Result<std::string> yaml =
        admission::json_text_to_yaml(std::string_view(buffer.GetString(), buffer.GetSize()));
    if (!yaml.ok()) {
      std::fprintf(stderr, "rayjob-guard version: %s\n", visible(yaml.error().message).c_str());
      return 2;
    }
    std::fputs(yaml.value().c_str(), stdout);
    return 0;
  }
  std::printf("%s\n", buffer.GetString());
  return 0;
}

}  // namespace rjg::cli
