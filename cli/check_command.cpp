// rayjob-guard check: RayJob manifests (YAML/JSON) judged exactly as the webhook would judge them
// after `kubectl create`, with the same messages. For tenants before they submit, and for CI.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "admission/check.hpp"
#include "admission/finding_format.hpp"
#include "admission/policy_file.hpp"
#include "cli/commands.hpp"
#include "cli/input.hpp"

namespace rjg::cli {
namespace {

constexpr const char* kHelp =
    "usage: rayjob-guard check [--policy FILE] [--namespace NS] [--output text|json] FILE...\n"
    "Checks every RayJob in the YAML/JSON manifests FILE... (- for stdin) as a CREATE, with the\n"
    "CRD defaults of the policy's KubeRay version applied, exactly as the webhook would.\n"
    "Other kinds are skipped with a note.\n"
    "  --policy FILE       policy YAML (default: the built-in policy)\n"
    "  -n, --namespace NS  namespace for objects without metadata.namespace (default: default)\n"
    "  -o, --output FMT    text (default) or json (an array of per-object results)\n"
    "Exit status: 0 all allowed, 1 any denied, 2 bad input (unreadable file, YAML error).\n";

void print_text(const admission::CheckedFile& r) {
  for (const admission::CheckedObject& o : r.objects) {
    if (!o.is_rayjob) {
      std::printf("note: %s document %zu: skipping %s %s%s (not a ray.io RayJob)\n", r.file.c_str(),
                  o.document, o.api_version.empty() ? "(no apiVersion)" : o.api_version.c_str(),
                  o.kind.empty() ? "(no kind)" : o.kind.c_str(),
                  o.name.empty() ? "" : ("/" + o.name).c_str());
      continue;
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
  std::optional<std::string> policy_path;
  admission::CheckOptions options;
  std::string output = "text";
  std::vector<std::string> files;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    auto value = [&](const char* name) -> std::optional<std::string> {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "rayjob-guard check: %s needs a value\n", name);
        return std::nullopt;
      }
      return args[++i];
    };
    if (a == "--policy") {
      policy_path = value("--policy");
      if (!policy_path) {
        return 2;
      }
    } else if (a == "--namespace" || a == "-n") {
      options.namespace_ = value("--namespace");
      if (!options.namespace_) {
        return 2;
      }
    } else if (a.rfind("--namespace=", 0) == 0) {
      options.namespace_ = a.substr(12);
    } else if (a == "--output" || a == "-o") {
      std::optional<std::string> v = value("--output");
      if (!v) {
        return 2;
      }
      output = *v;
    } else if (a.rfind("--output=", 0) == 0) {
      output = a.substr(9);
    } else if (a.rfind("--policy=", 0) == 0) {
      policy_path = a.substr(9);
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "rayjob-guard check: unknown option '%s' (see --help)\n", a.c_str());
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (output != "text" && output != "json") {
    std::fprintf(stderr, "rayjob-guard check: --output must be text or json, got '%s'\n",
                 output.c_str());
    return 2;
  }
  if (options.namespace_ && options.namespace_->empty()) {
    std::fputs("rayjob-guard check: --namespace must not be empty\n", stderr);
    return 2;
  }
  if (files.empty()) {
    std::fputs("rayjob-guard check: no FILE given (see --help)\n", stderr);
    return 2;
  }
  Result<admission::LoadedPolicy> policy =
      policy_path ? admission::load_policy_file(*policy_path)
                  : admission::decode_policy(admission::default_policy_yaml());
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
