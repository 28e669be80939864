// rayjob-guard check: RayJob manifests (YAML/JSON) judged exactly as the webhook would judge them
// after `kubectl create`, with the same messages. For tenants before they submit, and for CI.
#include <cstdio>
#include <string>
#include <vector>

#include "admission/check.hpp"
#include "admission/finding_format.hpp"
#include "admission/policy_file.hpp"
#include "cli/commands.hpp"
#include "cli/input.hpp"
#include "common/flags.hpp"

namespace rjg::cli {
namespace {

constexpr const char* kHelp =
    "usage: rayjob-guard check [--policy FILE] [--namespace NS] [--output text|json]\n"
    "                          [--allow-empty] FILE...\n"
    "Checks every RayJob in the YAML/JSON manifests FILE... (- for stdin) as a CREATE, with the\n"
    "CRD defaults of the policy's KubeRay version applied, exactly as the webhook would.\n"
    "Other kinds are skipped with a note.\n"
    "  --policy FILE       policy YAML (default: the built-in policy)\n"
    "  -n, --namespace NS  namespace for objects without metadata.namespace (default: default)\n"
    "  -o, --output FMT    text (default) or json (an array of per-object results)\n"
    "  --allow-empty       accept a file with no object (empty, or only comments)\n"
    "Flags take their value as --flag VALUE or --flag=VALUE.\n"
    "Exit status: 0 all allowed, 1 any denied, 2 bad input (unreadable file, YAML error,\n"
    "a file with no object unless --allow-empty).\n";

void print_text(const admission::CheckedFile& r) {
  for (const admission::CheckedObject& o : r.objects) {
    if (!o.is_rayjob) {
      std::printf("note: %s document %zu: skipping %s %s%s (not a ray.io RayJob)\n", r.file.c_str(),
                  o.document, o.api_version.empty() ? "(no apiVersion)" : o.api_version.c_str(),
                  o.kind.empty() ? "(no kind)" : o.kind.c_str(),
                  o.name.empty() ? "" : ("/" + o.name).c_str());
      continue;
    }
    if (!o.remark.empty()) {
      std::printf("note: %s document %zu: %s\n", r.file.c_str(), o.document, o.remark.c_str());
    }
    for (const policy::Finding& f : o.verdict.warnings) {
      std::printf("Warning: %s\n", admission::format_finding(f).c_str());
    }
    if (o.verdict.allowed) {
      std::printf("rayjob.ray.io/%s (%s) allowed\n", o.name.c_str(), r.file.c_str());
    } else {
      std::printf("rayjob.ray.io/%s (%s) denied:\n", o.name.c_str(), r.file.c_str());
      for (const policy::Finding& f : o.verdict.denials) {
        std::printf("  %s\n", admission::format_finding(f).c_str());
      }
    }
  }
}

void print_json(const std::vector<admission::CheckedFile>& results) {
  const std::string body = admission::encode_check_results(results);
  std::fwrite(body.data(), 1, body.size(), stdout);
  std::fputc('\n', stdout);
}

}  // namespace

int run_check(const Args& args) {
  std::string policy_path;
  admission::CheckOptions options;
  std::string output = "text";
  bool allow_empty = false;
  std::string namespace_;
  Result<flags::Parsed> parsed =
      flags::parse(args, {{"--policy", "", true, flags::text(policy_path)},
                          {"--namespace", "-n", true, flags::text(namespace_)},
                          {"--output", "-o", true,
                           [&output](const std::string& v) -> Status {
                             if (v != "text" && v != "json") {
                               return invalid_argument("must be text or json, got '" + v + "'");
                             }
                             output = v;
                             return {};
                           }},
                          {"--allow-empty", "", false, flags::on(allow_empty)}});
  if (!parsed.ok()) {
    return usage_error("check", parsed.error().message);
  }
  if (parsed.value().help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (!namespace_.empty()) {
    options.namespace_ = namespace_;
  }
  const std::vector<std::string>& files = parsed.value().positional;
  if (files.empty()) {
    return usage_error("check", "no FILE given");
  }
  Result<admission::LoadedPolicy> policy = admission::load_policy_or_default(policy_path);
  if (!policy.ok()) {
    std::fprintf(stderr, "rayjob-guard check: %s\n", policy.error().message.c_str());
    return 2;
  }
  bool bad_input = false;
  bool denied = false;
  std::vector<admission::CheckedFile> results;
  for (const std::string& file : files) {
    Result<std::string> text = read_input(file);
    if (!text.ok()) {
      std::fprintf(stderr, "rayjob-guard check: %s\n", text.error().message.c_str());
      bad_input = true;
      continue;
    }
    Result<std::vector<admission::CheckedObject>> checked =
        admission::check_manifests(text.value(), options, policy.value());
    if (!checked.ok()) {
      std::fprintf(stderr, "rayjob-guard check: %s: %s\n", file.c_str(),
                   checked.error().message.c_str());
      bad_input = true;
      continue;
    }
    if (checked.value().empty() && !allow_empty) {
      // A tenant's CI must not pass on a file that holds nothing to check.
      std::fprintf(stderr,
                   "rayjob-guard check: %s: no objects (the file is empty or only comments); "
                   "--allow-empty accepts that\n",
                   file.c_str());
      bad_input = true;
      continue;
    }
    admission::CheckedFile r{file, std::move(checked).value()};
    for (const admission::CheckedObject& o : r.objects) {
      denied = denied || !o.verdict.allowed;
    }
    if (output == "text") {
      print_text(r);
    }
    results.push_back(std::move(r));
  }
  if (output == "json") {
    print_json(results);
  }
  if (bad_input) {
    return 2;
  }
  return denied ? 1 : 0;
}

}  // namespace rjg::cli
