// decode_kubeconfig (see kubeconfig.hpp).
#include "admission/kubeconfig.hpp"

#include <openssl/evp.h>

#include "admission/yaml_events.hpp"

namespace rjg::admission {
namespace {

Result<std::string> base64_decode(const std::string& in, const std::string& what) {
  std::string clean;
  for (const char c : in) {
    if (c != '\n' && c != '\r' && c != ' ') {
      clean.push_back(c);
    }
  }
  if (clean.empty() || clean.size() % 4 != 0) {
    return invalid_argument(what + ": not base64");
  }
  std::string out(clean.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(clean.data()),
                                static_cast<int>(clean.size()));
  if (n < 0) {
    return invalid_argument(what + ": not base64");
  }
  // EVP_DecodeBlock counts the padding as output bytes; drop them.
  std::size_t len = static_cast<std::size_t>(n);
  for (std::size_t i = clean.size(); i > 0 && clean[i - 1] == '='; --i) {
    --len;
  }
  out.resize(len);
  return out;
}

using yaml::Document;
using Index = Document::Index;
constexpr Index kNone = Document::kNone;

// Returns the node under `list[*].name == name`.<inner>, or kNone.
Index find_named(const Document& d, const char* list, const std::string& name,
                 const char* inner) {
  const Index items = d.find(0, list);
  if (items == kNone || d.kind(items) != Document::Kind::kSequence) {
    return kNone;
  }
  for (Index item = d.first_child(items); item != kNone; item = d.next(item)) {
    const Index n = d.find(item, "name");
    if (n != kNone && d.kind(n) == Document::Kind::kScalar && d.scalar(n) == name) {
      return d.find(item, inner);
    }
  }
  return kNone;
}

bool is_map(const Document& d, Index i) { return i != kNone && d.kind(i) == Document::Kind::kMapping; }

// True when mapping `map` has `key` (with any value, null included).
bool has(const Document& d, Index map, const char* key) { return d.find(map, key) != kNone; }

// The text of `map`.`key` as written (a kubeconfig's values are strings to kubectl too).
Result<std::string> scalar(const Document& d, Index map, const char* key, const std::string& path) {
  const Index v = d.find(map, key);
  if (v == kNone || d.kind(v) != Document::Kind::kScalar) {
    return invalid_argument(path + "." + key + ": must be a string");
  }
  return std::string(d.scalar(v));
}

// A relative file path in a kubeconfig is relative to the kubeconfig's directory.
std::string resolve(const std::string& kubeconfig, const std::string& file) {
  if (!file.empty() && file[0] == '/') {
    return file;
  }
  const std::size_t slash = kubeconfig.rfind('/');
  return slash == std::string::npos ? file : kubeconfig.substr(0, slash + 1) + file;
}

Result<Kubeconfig> decode(const Document& d, const std::string& path) {
  if (d.empty() || !is_map(d, 0)) {
    return invalid_argument(path + ": a kubeconfig must be a mapping");
  }
  RJG_ASSIGN_OR_RETURN(const std::string current, scalar(d, 0, "current-context", path));
  const Index context = find_named(d, "contexts", current, "context");
  if (!is_map(d, context)) {
    return invalid_argument(path + ": contexts has no entry named \"" + current + "\"");
  }
  RJG_ASSIGN_OR_RETURN(const std::string cluster_name,
                       scalar(d, context, "cluster", path + ": context"));
  const Index cluster = find_named(d, "clusters", cluster_name, "cluster");
  if (!is_map(d, cluster)) {
    return invalid_argument(path + ": clusters has no entry named \"" + cluster_name + "\"");
  }
  Kubeconfig out;
  RJG_ASSIGN_OR_RETURN(out.server, scalar(d, cluster, "server", path + ": cluster"));
  if (const Index v = d.find(cluster, "insecure-skip-tls-verify"); v != kNone) {
    if (d.kind(v) != Document::Kind::kScalar || (d.scalar(v) != "true" && d.scalar(v) != "false")) {
      return invalid_argument(path + ": cluster.insecure-skip-tls-verify: must be true or false");
    }
    out.insecure_skip_tls_verify = d.scalar(v) == "true";
  }
  if (has(d, cluster, "certificate-authority-data")) {
    RJG_ASSIGN_OR_RETURN(const std::string data,
                         scalar(d, cluster, "certificate-authority-data", path + ": cluster"));
    RJG_ASSIGN_OR_RETURN(out.ca_pem,
                         base64_decode(data, path + ": cluster.certificate-authority-data"));
  } else if (has(d, cluster, "certificate-authority")) {
    RJG_ASSIGN_OR_RETURN(const std::string file,
                         scalar(d, cluster, "certificate-authority", path + ": cluster"));
    out.ca_file = resolve(path, file);
  } else if (!out.insecure_skip_tls_verify) {
    return invalid_argument(path + ": cluster \"" + cluster_name +
                            "\" has no certificate-authority(-data) and does not set "
                            "insecure-skip-tls-verify: true");
  }
  if (has(d, context, "user")) {
    RJG_ASSIGN_OR_RETURN(const std::string user_name,
                         scalar(d, context, "user", path + ": context"));
    const Index user = find_named(d, "users", user_name, "user");
    if (!is_map(d, user)) {
      return invalid_argument(path + ": users has no entry named \"" + user_name + "\"");
    }
    if (has(d, user, "client-certificate") || has(d, user, "client-certificate-data") ||
        has(d, user, "exec") || has(d, user, "auth-provider")) {
      return unsupported(path + ": user \"" + user_name +
                         "\": only token and tokenFile credentials are supported");
    }
    if (has(d, user, "token")) {
      RJG_ASSIGN_OR_RETURN(out.token, scalar(d, user, "token", path + ": user"));
    } else if (has(d, user, "tokenFile")) {
      RJG_ASSIGN_OR_RETURN(const std::string file, scalar(d, user, "tokenFile", path + ": user"));
      out.token_file = resolve(path, file);
    }
  }
  return out;
}

}  // namespace

Result<Kubeconfig> decode_kubeconfig(std::string_view yaml_text, const std::string& path) {
  // libyaml's event tree, as for manifests and policy files: nesting bounded
  // (nesting_limit.hpp), the first document only (as kubectl reads a kubeconfig).
  Result<Document> doc =
      yaml::parse_first_document(yaml_text, yaml::Limits{100'000, kMaxNestingDepth});
  if (!doc.ok()) {
    return invalid_argument(path + ": not YAML: " + doc.error().message);
  }
  return decode(doc.value(), path);
}

}  // namespace rjg::admission
