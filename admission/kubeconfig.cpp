// decode_kubeconfig (see kubeconfig.hpp).
#include "admission/kubeconfig.hpp"

#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

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

// Returns the map under `list[*].name == name`.<inner>, or an undefined node.
YAML::Node find_named(const YAML::Node& root, const char* list, const std::string& name,
                      const char* inner) {
  const YAML::Node items = root[list];
  if (!items || !items.IsSequence()) {
    return YAML::Node(YAML::NodeType::Undefined);
  }
  for (const YAML::Node& item : items) {
    if (item.IsMap() && item["name"] && item["name"].IsScalar() && item["name"].Scalar() == name) {
      return item[inner];
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

Result<std::string> scalar(const YAML::Node& map, const char* key, const std::string& path) {
  const YAML::Node v = map[key];
  if (!v || !v.IsScalar()) {
    return invalid_argument(path + "." + key + ": must be a string");
  }
  return v.Scalar();
}

// A relative file path in a kubeconfig is relative to the kubeconfig's directory.
std::string resolve(const std::string& kubeconfig, const std::string& file) {
  if (!file.empty() && file[0] == '/') {
    return file;
  }
  const std::size_t slash = kubeconfig.rfind('/');
  return slash == std::string::npos ? file : kubeconfig.substr(0, slash + 1) + file;
}

Result<Kubeconfig> decode(const YAML::Node& root, const std::string& path) {
  if (!root.IsMap()) {
    return invalid_argument(path + ": a kubeconfig must be a mapping");
  }
  RJG_ASSIGN_OR_RETURN(const std::string current, scalar(root, "current-context", path));
  const YAML::Node context = find_named(root, "contexts", current, "context");
  if (!context || !context.IsMap()) {
    return invalid_argument(path + ": contexts has no entry named \"" + current + "\"");
  }
  RJG_ASSIGN_OR_RETURN(const std::string cluster_name,
                       scalar(context, "cluster", path + ": context"));
  const YAML::Node cluster = find_named(root, "clusters", cluster_name, "cluster");
  if (!cluster || !cluster.IsMap()) {
    return invalid_argument(path + ": clusters has no entry named \"" + cluster_name + "\"");
  }
  Kubeconfig out;
  RJG_ASSIGN_OR_RETURN(out.server, scalar(cluster, "server", path + ": cluster"));
  if (const YAML::Node v = cluster["insecure-skip-tls-verify"]; v) {
    if (!v.IsScalar() || (v.Scalar() != "true" && v.Scalar() != "false")) {
      return invalid_argument(path + ": cluster.insecure-skip-tls-verify: must be true or false");
    }
    out.insecure_skip_tls_verify = v.Scalar() == "true";
  }
  if (cluster["certificate-authority-data"]) {
    RJG_ASSIGN_OR_RETURN(const std::string data,
                         scalar(cluster, "certificate-authority-data", path + ": cluster"));
    RJG_ASSIGN_OR_RETURN(out.ca_pem,
                         base64_decode(data, path + ": cluster.certificate-authority-data"));
  } else if (cluster["certificate-authority"]) {
    RJG_ASSIGN_OR_RETURN(const std::string file,
                         scalar(cluster, "certificate-authority", path + ": cluster"));
    out.ca_file = resolve(path, file);
  } else if (!out.insecure_skip_tls_verify) {
    return invalid_argument(path + ": cluster \"" + cluster_name +
                            "\" has no certificate-authority(-data) and does not set "
                            "insecure-skip-tls-verify: true");
  }
  if (context["user"]) {
    RJG_ASSIGN_OR_RETURN(const std::string user_name, scalar(context, "user", path + ": context"));
    const YAML::Node user = find_named(root, "users", user_name, "user");
    if (!user || !user.IsMap()) {
      return invalid_argument(path + ": users has no entry named \"" + user_name + "\"");
    }
    if (user["client-certificate"] || user["client-certificate-data"] || user["exec"] ||
        user["auth-provider"]) {
      return unsupported(path + ": user \"" + user_name +
                         "\": only token and tokenFile credentials are supported");
    }
    if (user["token"]) {
      RJG_ASSIGN_OR_RETURN(out.token, scalar(user, "token", path + ": user"));
    } else if (user["tokenFile"]) {
      RJG_ASSIGN_OR_RETURN(const std::string file, scalar(user, "tokenFile", path + ": user"));
      out.token_file = resolve(path, file);
    }
  }
  return out;
}

}  // namespace

Result<Kubeconfig> decode_kubeconfig(std::string_view yaml_text, const std::string& path) {
  // libyaml screens the file first: yaml-cpp 0.7 can loop forever on some malformed streams, and
  // the screen bounds the nesting (yaml_events.hpp kMaxFileDepth) in linear time.
  if (auto screened = yaml::document_spans(yaml_text); !screened.ok()) {
    return invalid_argument(path + ": not YAML: " + screened.error().message);
  }
  // yaml-cpp reports malformed input by throwing; this is the boundary where that becomes data.
  try {
    return decode(YAML::Load(std::string(yaml_text)), path);
  } catch (const YAML::Exception& e) {
    return invalid_argument(path + ": not YAML: " + e.what());
  }
}

}  // namespace rjg::admission
