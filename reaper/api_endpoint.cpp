// Loading the API endpoint: in-cluster, kubeconfig, or flags.
#include "reaper/api_endpoint.hpp"

#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rjg::reaper {
namespace {

std::string trim_trailing_newlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

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

Result<ApiEndpoint> decode_kubeconfig(const YAML::Node& root, const std::string& path) {
  if (!root.IsMap()) {
    return invalid_argument(path + ": a kubeconfig must be a mapping");
  }
  Result<std::string> current = scalar(root, "current-context", path);
  if (!current) {
    return current.error();
  }
  const YAML::Node context = find_named(root, "contexts", current.value(), "context");
  if (!context || !context.IsMap()) {
    return invalid_argument(path + ": contexts has no entry named \"" + current.value() + "\"");
  }
  Result<std::string> cluster_name = scalar(context, "cluster", path + ": context");
  if (!cluster_name) {
    return cluster_name.error();
  }
  const YAML::Node cluster = find_named(root, "clusters", cluster_name.value(), "cluster");
  if (!cluster || !cluster.IsMap()) {
    return invalid_argument(path + ": clusters has no entry named \"" + cluster_name.value() +
                            "\"");
  }
  ApiEndpoint ep;
  Result<std::string> server = scalar(cluster, "server", path + ": cluster");
  if (!server) {
    return server.error();
  }
  if (Status s = parse_server_url(server.value(), ep); !s) {
    return Error{s.error().code, path + ": " + s.error().message};
  }
  if (const YAML::Node v = cluster["insecure-skip-tls-verify"]; v) {
    if (!v.IsScalar() || (v.Scalar() != "true" && v.Scalar() != "false")) {
      return invalid_argument(path + ": cluster.insecure-skip-tls-verify: must be true or false");
    }
    ep.insecure_skip_tls_verify = v.Scalar() == "true";
  }
  if (cluster["certificate-authority-data"]) {
    Result<std::string> data = scalar(cluster, "certificate-authority-data", path + ": cluster");
    if (!data) {
      return data.error();
    }
    Result<std::string> pem =
        base64_decode(data.value(), path + ": cluster.certificate-authority-data");
    if (!pem) {
      return pem.error();
    }
    ep.ca_pem = std::move(pem).value();
  } else if (cluster["certificate-authority"]) {
    Result<std::string> file = scalar(cluster, "certificate-authority", path + ": cluster");
    if (!file) {
      return file.error();
    }
    Result<std::string> pem = read_file(resolve(path, file.value()));
    if (!pem) {
      return pem.error();
    }
    ep.ca_pem = std::move(pem).value();
  } else if (!ep.insecure_skip_tls_verify) {
    return invalid_argument(path + ": cluster \"" + cluster_name.value() +
                            "\" has no certificate-authority(-data) and does not set "
                            "insecure-skip-tls-verify: true");
  }
  if (context["user"]) {
    Result<std::string> user_name = scalar(context, "user", path + ": context");
    if (!user_name) {
      return user_name.error();
    }
    const YAML::Node user = find_named(root, "users", user_name.value(), "user");
    if (!user || !user.IsMap()) {
      return invalid_argument(path + ": users has no entry named \"" + user_name.value() + "\"");
    }
    if (user["client-certificate"] || user["client-certificate-data"] || user["exec"] ||
        user["auth-provider"]) {
      return unsupported(path + ": user \"" + user_name.value() +
                         "\": only token and tokenFile credentials are supported");
    }
    if (user["token"]) {
      Result<std::string> token = scalar(user, "token", path + ": user");
      if (!token) {
        return token.error();
      }
      ep.token = token.value();
    } else if (user["tokenFile"]) {
      Result<std::string> file = scalar(user, "tokenFile", path + ": user");
      if (!file) {
        return file.error();
      }
      Result<std::string> token = read_file(resolve(path, file.value()));
      if (!token) {
        return token.error();
      }
      ep.token = trim_trailing_newlines(std::move(token).value());
    }
  }
  return ep;
}

}  // namespace

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return unavailable(path + ": cannot open: " + std::strerror(errno));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    return unavailable(path + ": read error");
  }
  return ss.str();
}

Status parse_server_url(const std::string& url, ApiEndpoint& out) {
  constexpr std::string_view kScheme = "https://";
  if (url.compare(0, kScheme.size(), kScheme) != 0) {
    return invalid_argument("server URL \"" + url + "\" must start with https://");
  }
  std::string rest = url.substr(kScheme.size());
  if (!rest.empty() && rest.back() == '/') {
    rest.pop_back();
  }
  if (rest.find('/') != std::string::npos) {
    return invalid_argument("server URL \"" + url + "\" must not have a path");
  }
  std::string host;
  std::string port = "443";
  if (!rest.empty() && rest[0] == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string::npos) {
      return invalid_argument("server URL \"" + url + "\": unterminated [IPv6] host");
    }
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') {
        return invalid_argument("server URL \"" + url + "\": junk after the host");
      }
      port = rest.substr(close + 2);
    }
  } else {
    const std::size_t colon = rest.rfind(':');
    host = rest.substr(0, colon);
    if (colon != std::string::npos) {
      port = rest.substr(colon + 1);
    }
  }
  const bool port_ok = !port.empty() && port.size() <= 5 &&
                       port.find_first_not_of("0123456789") == std::string::npos &&
                       std::stoi(port) > 0 && std::stoi(port) < 65536;
  if (host.empty() || !port_ok) {
    return invalid_argument("server URL \"" + url + "\" needs a host and a port in 1-65535");
  }
  out.host = host;
  out.port = port;
  return {};
}

Result<ApiEndpoint> in_cluster_endpoint(const std::string& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return unavailable(
        "not running in a cluster (KUBERNETES_SERVICE_HOST/PORT unset); pass --kubeconfig FILE "
        "or --server URL --token-file F --ca F");
  }
  ApiEndpoint ep;
  const std::string h = host;
  const bool ipv6 = h.find(':') != std::string::npos;
  if (Status s = parse_server_url("https://" + (ipv6 ? "[" + h + "]" : h) + ":" + port, ep); !s) {
    return s.error();
  }
  Result<std::string> token = read_file(sa_dir + "/token");
  if (!token) {
    return token.error();
  }
  ep.token = trim_trailing_newlines(std::move(token).value());
  Result<std::string> ca = read_file(sa_dir + "/ca.crt");
  if (!ca) {
    return ca.error();
  }
  ep.ca_pem = std::move(ca).value();
  return ep;
}

Result<ApiEndpoint> kubeconfig_endpoint(const std::string& path) {
  Result<std::string> text = read_file(path);
  if (!text) {
    return text.error();
  }
  try {
    return decode_kubeconfig(YAML::Load(text.value()), path);
  } catch (const YAML::Exception& e) {
    return invalid_argument(path + ": not YAML: " + e.what());
  }
}

Result<ApiEndpoint> flags_endpoint(const std::string& server, const std::string& token_file,
                                   const std::string& ca_file) {
  ApiEndpoint ep;
  if (Status s = parse_server_url(server, ep); !s) {
    return s.error();
  }
  Result<std::string> token = read_file(token_file);
  if (!token) {
    return token.error();
  }
  ep.token = trim_trailing_newlines(std::move(token).value());
  Result<std::string> ca = read_file(ca_file);
  if (!ca) {
    return ca.error();
  }
  ep.ca_pem = std::move(ca).value();
  return ep;
}

}  // namespace rjg::reaper
