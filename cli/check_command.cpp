// rayjob-guard check: RayJob manifests (YAML/JSON) judged exactly as the webhook would judge them
// after `kubectl create`, with the same messages. For tenants before they submit, and for CI.
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "admission/check.hpp"
#include "admission/check_report.hpp"
#include "admission/fix.hpp"
#include "admission/json_to_yaml.hpp"
#include "admission/finding_format.hpp"
#include "admission/policy_file.hpp"
#include "cli/commands.hpp"
#include "cli/input.hpp"
#include "common/flags.hpp"
#include "common/visible_text.hpp"

namespace rjg::cli {
namespace {

constexpr const char* kHelp =
    "usage: rayjob-guard check [--policy FILE] [--namespace NS]\n"
    "                          [--output text|json|yaml|junit|sarif]\n"
    "                          [--allow-empty] [--fix] FILE...\n"
    "Checks every RayJob in the YAML/JSON manifests FILE... (- for stdin) as a CREATE, with the\n"
    "CRD defaults of the policy's KubeRay version applied, exactly as the webhook would.\n"
    "Other kinds are skipped with a note.\n"
    "  --policy FILE       policy YAML (default: the built-in policy)\n"
    "  -n, --namespace NS  namespace for objects without metadata.namespace (default: default)\n"
    "  -o, --output FMT    text (default); json (an array of per-object results), or yaml\n"
    "                      (the same as YAML); junit\n"
    "                      (JUnit XML: a test case per document, a failure per denied RayJob,\n"
    "                      for CI test reports); sarif (SARIF 2.1.0: a result per finding,\n"
    "                      for code scanning). The exit status is the same for every format\n"
    "  --allow-empty       accept a file with no object (empty, or only comments)\n"
    "  --fix               print every document with the literal fixes of all findings applied\n"
    "                      (JSON documents separated by ---), judge what it printed again, and\n"
    "                      list on stderr each violation left, whose change is yours to choose\n"
    "A flag takes its value after a space or an = sign (-o json, --output=json).\n"
    "Exit status: 0 all allowed, 1 any denied, 2 bad input (unreadable file, YAML error,\n"
    "a file with no object unless --allow-empty). With --fix: 0 every RayJob printed is\n"
    "allowed with no violation left, 1 some are still denied or keep a violation for you to\n"
    "change, 2 bad input or fixes that contradict each other. --fix on its own output\n"
    "prints it unchanged.\n";

// What the tenant wrote (file, names, kinds, the values findings quote) is printed through
// visible(): a control character in a RayJob name must not act on the terminal or the CI log.
void print_text(const admission::CheckedFile& r) {
  const std::string file = visible(r.file);
  for (const admission::CheckedObject& o : r.objects) {
    const std::string name = visible(o.name);
    if (!o.is_rayjob) {
      std::printf("note: %s document %zu: skipping %s %s%s (not a ray.io RayJob)\n", file.c_str(),
                  o.document,
                  o.api_version.empty() ? "(no apiVersion)" : visible(o.api_version).c_str(),
                  o.kind.empty() ? "(no kind)" : visible(o.kind).c_str(),
                  o.name.empty() ? "" : ("/" + name).c_str());
      continue;
    }
    if (!o.remark.empty()) {
      std::printf("note: %s document %zu: %s\n", file.c_str(), o.document,
                  visible(o.remark).c_str());
    }
    for (const policy::Finding& f : o.verdict.warnings) {
      std::printf("Warning: %s\n", visible(admission::format_finding(f)).c_str());
    }
    if (o.verdict.allowed) {
      std::printf("rayjob.ray.io/%s (%s) allowed\n", name.c_str(), file.c_str());
    } else {
      std::printf("rayjob.ray.io/%s (%s) denied:\n", name.c_str(), file.c_str());
      for (const policy::Finding& f : o.verdict.denials) {
        std::printf("  %s\n", visible(admission::format_finding(f)).c_str());
      }
    }
  }
}

// --fix: every document of `r`, RayJobs with their findings' edits applied. Each fixed RayJob
// is judged again as printed, and every violation it still has (denied, or a warn-level rule
// that still asks for a change) is named on stderr. Returns 0 (every RayJob printed is
// allowed with no violation left), 1 (some are left: the tenant's choice, such as which image)
// or 2 (the edits cannot be applied), as the help says.
int print_fixed(admission::CheckedFile& r, const admission::CheckOptions& options,
                const admission::LoadedPolicy& policy) {
  int status = 0;
  const std::string file = visible(r.file);
  for (admission::CheckedObject& o : r.objects) {
    bool judge = o.is_rayjob;
    if (o.is_rayjob) {
      Result<admission::FixOutcome> fixed = admission::apply_fixes(o.source, o.verdict);
      if (!fixed.ok()) {
        std::fprintf(stderr, "rayjob-guard check: %s document %zu: %s\n", file.c_str(),
                     o.document, visible(fixed.error().message).c_str());
        status = 2;
        judge = false;
      }
    }
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
    w.SetIndent(' ', 2);
    o.source.Accept(w);
    std::printf("---\n%s\n", buffer.GetString());
    if (!judge) {
      continue;
    }
    // The verdict of exactly what was printed: the exit status must not claim a fix that the
    // webhook would still refuse.
    Result<std::vector<admission::CheckedObject>> after = admission::check_manifests(
        std::string_view(buffer.GetString(), buffer.GetSize()), options, policy);
    if (!after.ok() || after.value().size() != 1) {
      std::fprintf(stderr, "rayjob-guard check: %s document %zu: the fixed RayJob cannot be read "
                   "back: %s\n", file.c_str(), o.document,
                   after.ok() ? "not one object" : visible(after.error().message).c_str());
      status = 2;
      continue;
    }
    const policy::Verdict& left = after.value().front().verdict;
    for (const policy::Findings* list : {&left.denials, &left.warnings}) {
      for (const policy::Finding& f : *list) {
        if (f.kind == policy::Finding::Kind::kViolation) {
          std::fprintf(stderr, "rayjob-guard check: %s document %zu: yours to change: %s\n",
                       file.c_str(), o.document, visible(admission::format_finding(f)).c_str());
          status = std::max(status, 1);
        }
      }
    }
  }
  return status;
}

// -o json, yaml, junit or sarif: one document for every file, printed once all are checked.
// Returns false when it cannot be printed (after saying why).
bool print_report(const std::string& output, const std::vector<admission::CheckedFile>& results) {
  std::string body;
  if (output == "json") {
    body = admission::encode_check_results(results) + "\n";
  } else if (output == "yaml") {
    Result<std::string> yaml =
        admission::json_text_to_yaml(admission::encode_check_results(results));
    if (!yaml) {
      std::fprintf(stderr, "rayjob-guard check: %s\n", visible(yaml.error().message).c_str());
      return false;
    }
    body = std::move(yaml).value();
  } else if (output == "junit") {
    body = admission::encode_check_junit(results);
  } else {
    body = admission::encode_check_sarif(results, RJG_VERSION) + "\n";
  }
  std::fwrite(body.data(), 1, body.size(), stdout);
  return true;
}

}  // namespace

int run_check(const Args& args) {
  std::string policy_path;
  admission::CheckOptions options;
  std::string output = "text";
  bool allow_empty = false;
  bool fix = false;
  std::string namespace_;
  Result<flags::Parsed> parsed =
      flags::parse(args, {{"--policy", "", true, flags::text(policy_path)},
                          {"--namespace", "-n", true, flags::text(namespace_)},
                          {"--output", "-o", true,
                           [&output](const std::string& v) -> Status {
                             if (v != "text" && v != "json" && v != "yaml" && v != "junit" &&
                                 v != "sarif") {
                               return invalid_argument(
                                   "must be text, json, yaml, junit or sarif, got '" + v + "'");
                             }
                             output = v;
                             return {};
                           }},
                          {"--allow-empty", "", false, flags::on(allow_empty)},
                          {"--fix", "", false, flags::on(fix)}});
  if (!parsed.ok()) {
    return usage_error("check", parsed.error().message);
  }
  if (parsed.value().help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (fix && output != "text") {
    return usage_error("check", "--fix prints manifests; it takes no --output");
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
    std::fprintf(stderr, "rayjob-guard check: %s\n", visible(policy.error().message).c_str());
    return 2;
  }
  bool bad_input = false;
  bool denied = false;
  int fix_status = 0;
  std::vector<admission::CheckedFile> results;
  for (const std::string& file : files) {
    Result<std::string> text = read_input(file);
    if (!text.ok()) {
      std::fprintf(stderr, "rayjob-guard check: %s\n", visible(text.error().message).c_str());
      bad_input = true;
      continue;
    }
    Result<std::vector<admission::CheckedObject>> checked =
        admission::check_manifests(text.value(), options, policy.value());
    if (!checked.ok()) {
      std::fprintf(stderr, "rayjob-guard check: %s: %s\n", visible(file).c_str(),
                   visible(checked.error().message).c_str());
      bad_input = true;
      continue;
    }
    if (checked.value().empty() && !allow_empty) {
      // A tenant's CI must not pass on a file that holds nothing to check.
      std::fprintf(stderr,
                   "rayjob-guard check: %s: no objects (the file is empty or only comments); "
                   "--allow-empty accepts that\n",
                   visible(file).c_str());
      bad_input = true;
      continue;
    }
    admission::CheckedFile r{file, std::move(checked).value()};
    for (const admission::CheckedObject& o : r.objects) {
      denied = denied || !o.verdict.allowed;
    }
    if (fix) {
      fix_status = std::max(fix_status, print_fixed(r, options, policy.value()));
    } else if (output == "text") {
      print_text(r);
    }
    results.push_back(std::move(r));
  }
  if (output != "text" && !print_report(output, results)) {
    bad_input = true;
  }
  if (bad_input) {
    return 2;
  }
  if (fix) {
    return fix_status;
  }
  return denied ? 1 : 0;
}

}  // namespace rjg::cli
