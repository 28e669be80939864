// check_run: all of `rayjob-guard check` but parsing flags and printing. The input files (and how
// to read them) in; the results, what goes to stdout and stderr, and the exit status out. The CLI reads
// the flags and the files, calls check() once and prints what it returns.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/check.hpp"
#include "admission/policy_file.hpp"
#include "common/result.hpp"

namespace rjg::admission {

enum class CheckFormat { kText, kJson, kYaml, kJunit, kSarif };

// Each format `check --output` takes, with its name, in the order its help lists them.
struct NamedCheckFormat {
  std::string_view name;
  CheckFormat format;
};
inline constexpr std::array<NamedCheckFormat, 5> kCheckFormats = {{{"text", CheckFormat::kText},
                                                                   {"json", CheckFormat::kJson},
                                                                   {"yaml", CheckFormat::kYaml},
                                                                   {"junit", CheckFormat::kJunit},
                                                                   {"sarif", CheckFormat::kSarif}}};

// The names of kCheckFormats, in its order (for --output's choices).
std::vector<std::string_view> check_format_names();

// The format named `name` (one of kCheckFormats), or nullopt.
std::optional<CheckFormat> check_format(std::string_view name);

// Reads one input of `check`, named as given ("-" for stdin): its text, or why it cannot be
// read (the message names the file). check() reads one file at a time.
using ReadInput = std::function<Result<std::string>(const std::string& file)>;

struct CheckRequest {
  CheckOptions options;
  CheckFormat format = CheckFormat::kText;
  bool allow_empty = false;  // a file with no object is accepted, not bad input
  bool fix = false;          // print the documents with their fixes applied; format is kText
  std::string tool_version;  // the tool's version, for SARIF
};

struct CheckRun {
  std::vector<CheckedFile> files;  // every input that was read and checked, in order
  std::string out;                 // what stdout gets
  std::string err;                 // what stderr gets: lines "rayjob-guard check: ...\n"
  // 0: every RayJob allowed; 1: some denied; 2: bad input (an unreadable file, a YAML error, a
  // file with no object unless allow_empty, an output that cannot be written). With fix: 0 every
  // RayJob printed is allowed with no violation left, 1 some keep a denial or a violation whose
  // change is the tenant's, 2 bad input or fixes that contradict each other.
  int exit_status = 0;
};

// Judges every RayJob of `files` (read with `read`) as the webhook would after `kubectl create`, and writes what
// `request` asks for: the text lines, a report (json, yaml, junit, sarif) of every file, or with
// `fix` every document with its findings' edits applied, each fixed RayJob judged again as
// printed. Text the tenant wrote (file names, object names, values) reaches `out` and `err` only
// through visible(), except in json, yaml and the fixed documents, which carry it exactly.
CheckRun check(const std::vector<std::string>& files, const ReadInput& read,
               const CheckRequest& request, const LoadedPolicy& policy);

}  // namespace rjg::admission
