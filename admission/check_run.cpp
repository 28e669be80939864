// check(): the loop of `rayjob-guard check` over its inputs, --fix, and the choice of output.
#include "admission/check_run.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <utility>

#include "admission/check_report.hpp"
#include "admission/finding_format.hpp"
#include "admission/fix.hpp"
#include "admission/json_to_yaml.hpp"
#include "common/visible_text.hpp"

namespace rjg::admission {
namespace {

constexpr std::string_view kPrefix = "rayjob-guard check: ";

void say(std::string& err, const std::string& line) {
  err.append(kPrefix).append(line).push_back('\n');
}

// --fix for one file: every document, RayJobs with their findings' edits applied, appended to
// `out`. Each fixed RayJob is judged again exactly as printed, and every violation it still has
// (a denial, or a warn-level rule that still asks for a change) is named in `err`. Returns the
// file's status as CheckRun::exit_status describes it for fix.
int fix_file(CheckedFile& r, const CheckOptions& options, const LoadedPolicy& policy,
             std::string& out, std::string& err) {
  int status = 0;
  const std::string file = visible(r.file);
  for (CheckedObject& o : r.objects) {
    const std::string where = file + " document " + std::to_string(o.document) + ": ";
    bool judge = o.is_rayjob;
    if (o.is_rayjob) {
      if (Result<FixOutcome> fixed = apply_fixes(o.source, o.verdict); !fixed.ok()) {
        say(err, where + visible(fixed.error().message));
        status = 2;
        judge = false;
      }
    }
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
    w.SetIndent(' ', 2);
    o.source.Accept(w);
    const std::string_view printed(buffer.GetString(), buffer.GetSize());
    out.append("---\n").append(printed).push_back('\n');
    if (!judge) {
      continue;
    }
    // The verdict of exactly what was printed: the exit status must not claim a fix that the
    // webhook would still refuse.
    Result<std::vector<CheckedObject>> after = check_manifests(printed, options, policy);
    if (!after.ok() || after.value().size() != 1) {
      say(err, where + "the fixed RayJob cannot be read back: " +
                   (after.ok() ? "not one object" : visible(after.error().message)));
      status = 2;
      continue;
    }
    const policy::Verdict& left = after.value().front().verdict;
    for (const policy::Findings* list : {&left.denials, &left.warnings}) {
      for (const policy::Finding& f : *list) {
        if (f.kind == policy::Finding::Kind::kViolation) {
          say(err, where + "yours to change: " + visible(format_finding(f)));
          status = std::max(status, 1);
        }
      }
    }
  }
  return status;
}

// The report of every file in a format other than text; an error when YAML cannot be written.
Result<std::string> report(CheckFormat format, const std::vector<CheckedFile>& files,
                           const std::string& tool_version) {
  switch (format) {
    case CheckFormat::kJson:
      return encode_check_results(files) + "\n";
    case CheckFormat::kYaml:
      return json_text_to_yaml(encode_check_results(files));
    case CheckFormat::kJunit:
      return encode_check_junit(files);
    case CheckFormat::kSarif:
      return encode_check_sarif(files, tool_version) + "\n";
    case CheckFormat::kText:
      break;
  }
  return std::string();
}

}  // namespace

std::vector<std::string_view> check_format_names() {
  std::vector<std::string_view> names;
  for (const NamedCheckFormat& f : kCheckFormats) {
    names.push_back(f.name);
  }
  return names;
}

std::optional<CheckFormat> check_format(std::string_view name) {
  for (const NamedCheckFormat& f : kCheckFormats) {
    if (f.name == name) {
      return f.format;
    }
  }
  return std::nullopt;
}

CheckRun check(const std::vector<std::string>& files, const ReadInput& read,
               const CheckRequest& request, const LoadedPolicy& policy) {
  CheckRun run;
  bool bad_input = false;
  bool denied = false;
  int fix_status = 0;
  for (const std::string& file : files) {
    Result<std::string> text = read(file);
    if (!text.ok()) {
      say(run.err, visible(text.error().message));
      bad_input = true;
      continue;
    }
    Result<std::vector<CheckedObject>> checked =
        check_manifests(text.value(), request.options, policy);
    if (!checked.ok()) {
      say(run.err, visible(file) + ": " + visible(checked.error().message));
      bad_input = true;
      continue;
    }
    if (checked.value().empty() && !request.allow_empty) {
      // A tenant's CI must not pass on a file that holds nothing to check.
      say(run.err, visible(file) +
                       ": no objects (the file is empty or only comments); --allow-empty "
                       "accepts that");
      bad_input = true;
      continue;
    }
    CheckedFile r{file, std::move(checked).value()};
    for (const CheckedObject& o : r.objects) {
      denied = denied || !o.verdict.allowed;
    }
    if (request.fix) {
      fix_status = std::max(fix_status, fix_file(r, request.options, policy, run.out, run.err));
    } else if (request.format == CheckFormat::kText) {
      run.out += encode_check_text(r);
    }
    run.files.push_back(std::move(r));
  }
  if (!request.fix && request.format != CheckFormat::kText) {
    Result<std::string> body = report(request.format, run.files, request.tool_version);
    if (body.ok()) {
      run.out = std::move(body).value();
    } else {
      say(run.err, visible(body.error().message));
      bad_input = true;
    }
  }
  run.exit_status = bad_input ? 2 : request.fix ? fix_status : denied ? 1 : 0;
  return run;
}

}  // namespace rjg::admission
