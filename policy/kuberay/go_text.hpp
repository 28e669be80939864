// Go's and its libraries' readings of text, as far as the operator's checks depend on them: the
// version parsers (k8s.io/apimachinery ParseGeneric, Masterminds semver) and strings' Unicode
// case mapping and trimming. Pure; used by the operator checks of policy/kuberay/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rjg::policy::kuberay {

// A "generic" version as k8s.io/apimachinery ParseGeneric reads it (`^\\s*v?([0-9]+(\\.[0-9]+)*)(.*)`):
// leading ASCII white space, an optional "v", at least two dot-separated numbers (the first not
// zero-prefixed), then anything but a line break.
// Returns the numbers, or nullopt when `s` is no such version.
std::optional<std::vector<long long>> parse_generic_version(std::string_view s);

// Whether version numbers `a` sort before `b` (missing parts count as 0).
bool version_less(const std::vector<long long>& a, const std::vector<long long>& b);

// Why Masterminds semver v3 (NewVersion, coercing) cannot read `s` as a version, or why it
// fails common.GetMetadataJson's ">= 2.6.0" (a pre-release never satisfies a constraint without
// one); "" when it passes. The form: v?MAJOR[.MINOR[.PATCH]][-PRE][+META], numbers that fit
// 64 bits; PRE and META dot-separated non-empty [0-9A-Za-z-] parts, numeric PRE parts without a
// leading zero.
std::string metadata_version_problem(std::string_view s);

// Go's strings.ToUpper and strings.ToLower, as far as the result can equal an ASCII word (the
// only use here): ASCII letters, and the four runes whose Unicode case mapping is ASCII: 'ı'
// (U+0131) and 'ſ' (U+017F) upper-case to I and S, 'İ' (U+0130) and the Kelvin sign (U+212A)
// lower-case to i and k. Every other byte is kept, and cannot match an ASCII word.
std::string go_upper(std::string_view s);
std::string go_lower(std::string_view s);

// Go's strings.TrimSpace (Unicode white space at both ends). Points into `s`.
std::string_view go_trim_space(std::string_view s);

}  // namespace rjg::policy::kuberay
