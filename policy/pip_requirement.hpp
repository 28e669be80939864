// pip requirements as written in runtimeEnvYAML `pip` (PEP 508 strings and pip option items),
// PEP 440 versions, and the one question image-contract asks: does a requirement guarantee a
// version floor? Pure; no package index is consulted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace rjg::policy {

// One version clause: "==", "===", "!=", "~=", ">=", ">", "<=", "<" and the version text as
// written (may end in ".*" for == and !=).
struct VersionSpecifier {
  std::string op;
  std::string version;
  friend bool operator==(const VersionSpecifier&, const VersionSpecifier&) = default;
};

struct PipRequirement {
  enum class Kind {
    kPackage,  // a named requirement: "boto3[crt]>=1.35.0; python_version >= '3.8'"
    kOption,   // a pip option item: "-f https://...", "--index-url ...", "-r file"
    kUrl,      // a named URL requirement ("pkg @ https://...") or a bare URL / path / VCS link:
               // the version cannot be known from the text
  };
  Kind kind = Kind::kPackage;
  // Normalized project name (PEP 503: lower case, runs of `-`, `_`, `.` become one `-`); empty
  // for options and bare URLs.
  std::string name;
  std::vector<std::string> extras;  // normalized the same way
  std::vector<VersionSpecifier> specifiers;
  bool has_marker = false;  // an environment marker followed `;` (it is not evaluated)
};

// Parses one `pip` list item. Leading/trailing whitespace is ignored. Returns kInvalidArgument
// (saying what is wrong) for an empty item, a malformed name, an unknown operator or an
// unterminated extras/parenthesis.
Result<PipRequirement> parse_pip_requirement(std::string_view item);

// Returns PEP 503's normalized form of a project name ("Boto_3.x" -> "boto-3-x").
std::string normalize_project_name(std::string_view name);

// A PEP 440 version, enough to order releases: epoch, release segments, pre (a/b/rc), post and
// dev parts. Local versions ("+ubuntu1") are accepted and ignored for ordering.
struct Pep440Version {
  long long epoch = 0;
  std::vector<long long> release;  // trailing zeros are not significant
  int pre_phase = -1;              // -1 none, 0 a, 1 b, 2 rc
  long long pre_number = 0;
  long long post = -1;  // -1 none
  long long dev = -1;   // -1 none
};

// Parses `text` as a PEP 440 version, accepting its normalizations (a leading "v", "alpha",
// "beta", "c", "pre", "preview", "-N" post releases, `-`/`_`/`.` separators, any case). Returns
// nullopt for anything else (including a trailing ".*").
std::optional<Pep440Version> parse_pep440(std::string_view text);

// Returns <0, 0 or >0 as `a` sorts before, equal to or after `b` (PEP 440 ordering: X.devN <
// X.aN < X.bN < X.rcN < X < X.postN).
int compare_versions(const Pep440Version& a, const Pep440Version& b);

// Returns true only when every version the specifiers allow is >= `floor`: some clause is
// `==X` / `===X` / `>=X` / `>X` / `~=X` with X >= floor (`==X.*` counts as >= X). Only upper
// bounds, exclusions, or no specifiers at all give false; so does an unparseable floor or
// version (conservative).
bool guarantees_at_least(const std::vector<VersionSpecifier>& specifiers, std::string_view floor);

// Returns true when the specifiers exclude every version >= `floor`: `==X`/`===X` with X < floor,
// `<X` with X <= floor, `<=X` with X < floor, or `~=X` whose upper bound is <= floor. Such a
// requirement pins the package below the floor.
bool caps_below(const std::vector<VersionSpecifier>& specifiers, std::string_view floor);

}  // namespace rjg::policy
