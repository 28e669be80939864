// Kubernetes name syntax, as k8s.io/apimachinery/pkg/util/validation checks it: DNS-1123 labels
// and subdomains (object and namespace names), qualified names (label keys) and label values.
// Pure; used by the policy file's decoder and by the rules that repeat the apiserver's, KubeRay's
// or Kueue's name checks.
#pragma once

#include <string_view>

namespace rjg::policy {

// Whether `s` is a DNS-1123 label (IsDNS1123Label): 1 to 63 lowercase letters, digits and '-',
// starting and ending alphanumeric. Namespaces are named so.
bool is_dns1123_label(std::string_view s);

// Whether `s` is a DNS-1035 label (IsDNS1035Label): as a DNS-1123 label, and starting with a
// letter. A RayJob's name must be one (the operator names Services after it).
bool is_dns1035_label(std::string_view s);

// Whether `s` is a DNS-1123 subdomain (IsDNS1123Subdomain): at most 253 characters of
// dot-separated DNS-1123 labels (each label's length is bounded only by the whole).
bool is_dns1123_subdomain(std::string_view s);

// Whether `s` is a qualified name (IsQualifiedName), as label and annotation keys are: an optional
// DNS-1123 subdomain prefix and '/', then a name of 1 to 63 letters, digits, '-', '_' and '.',
// starting and ending alphanumeric.
bool is_qualified_name(std::string_view s);

// Whether `s` is a label value (IsValidLabelValue): empty, or a name as in is_qualified_name.
bool is_label_value(std::string_view s);

}  // namespace rjg::policy
