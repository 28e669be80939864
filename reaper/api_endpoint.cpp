// Loading the API endpoint: in-cluster, kubeconfig, or flags.
#include "reaper/api_endpoint.hpp"

#include <cstdlib>

#include "admission/kubeconfig.hpp"
#include "common/file.hpp"

namespace rjg::reaper {
namespace {

std::string trim_trailing_newlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

}  // namespace

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
  RJG_ASSIGN_OR_RETURN(const std::string text, read_file(path));
  RJG_ASSIGN_OR_RETURN(const admission::Kubeconfig config,
                       admission::decode_kubeconfig(text, path));
  ApiEndpoint ep;
  if (Status s = parse_server_url(config.server, ep); !s) {
    return Error{s.error().code, path + ": " + s.error().message};
  }
  ep.insecure_skip_tls_verify = config.insecure_skip_tls_verify;
  if (config.ca_pem) {
    ep.ca_pem = *config.ca_pem;
  } else if (config.ca_file) {
    RJG_ASSIGN_OR_RETURN(ep.ca_pem, read_file(*config.ca_file));
  }
  if (config.token) {
    ep.token = *config.token;
  } else if (config.token_file) {
    RJG_ASSIGN_OR_RETURN(std::string token, read_file(*config.token_file));
    ep.token = trim_trailing_newlines(std::move(token));
  }
  return ep;
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

Result<ApiEndpoint> chosen_endpoint(const std::string& kubeconfig, const std::string& server,
                                    const std::string& token_file, const std::string& ca_file,
                                    const std::string& sa_dir) {
  if (!kubeconfig.empty()) {
    return kubeconfig_endpoint(kubeconfig);
  }
  if (!server.empty()) {
    return flags_endpoint(server, token_file, ca_file);
  }
  return in_cluster_endpoint(sa_dir);
}

}  // namespace rjg::reaper
