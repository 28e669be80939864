// What `check` prints as text, and for CI systems: JUnit XML (test reports: GitLab, Jenkins, Azure, CircleCI)
// and SARIF 2.1.0 (code scanning: GitHub, GitLab, Azure DevOps), from the same results as
// `check -o json`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "admission/check.hpp"

namespace rjg::admission {

// The text form (`check` without -o), for one file: a note per object that is not a RayJob and
// per remark, a "Warning: " line per warning, then "rayjob.ray.io/NAME (FILE) allowed", or
// "... denied:" and a line per denial. What the tenant wrote goes through visible(): a control
// character in a RayJob name must not act on the terminal or the CI log.
std::string encode_check_text(const CheckedFile& file);

// JUnit XML: one <testsuite> per file (its name), one <testcase> per document
// ("<kind>/<name> (document N)"): a denied RayJob has one <failure type="denied"> whose text is
// every denial line, a skipped object <skipped/>, and warnings go to <system-out>. Counts on
// every suite and on <testsuites>. Text that XML 1.0 cannot carry (control characters, invalid
// UTF-8) becomes U+FFFD, so the document always parses.
std::string encode_check_junit(const std::vector<CheckedFile>& files);

// SARIF 2.1.0: one run of the tool rayjob-guard `version`, its rules (every rule id), and one
// result per finding of a RayJob: ruleId, level (error for a denial, warning for a warning,
// note for an advisory), the finding's line as message, the file and the document's first line
// as physical location and the field as logical location.
std::string encode_check_sarif(const std::vector<CheckedFile>& files, std::string_view version);

}  // namespace rjg::admission
