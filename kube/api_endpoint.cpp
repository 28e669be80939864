// Finding the API endpoint: kubeconfig files, the in-cluster service account, or flags.
#include "kube/api_endpoint.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <set>

#include "admission/exec_credential.hpp"
#include "admission/kubeconfig.hpp"
#include "common/file.hpp"

namespace rjg::kube {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
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

namespace {

Result<ApiEndpoint> in_cluster_endpoint(const Environment& env) {
  ApiEndpoint ep;
  const std::string& h = env.service_host;
  const bool ipv6 = h.find(':') != std::string::npos;
  RJG_RETURN_IF_ERROR(
      parse_server_url("https://" + (ipv6 ? "[" + h + "]" : h) + ":" + env.service_port, ep));
  // The token is projected and rotates: Credentials reads the file again when it changes.
  ep.login.token_file = env.sa_dir + "/token";
  RJG_ASSIGN_OR_RETURN(ep.ca_pem, read_file(env.sa_dir + "/ca.crt"));
  ep.source = "in-cluster service account";
  return ep;
}

Result<ApiEndpoint> kubeconfig_endpoint(const std::vector<std::string>& files,
                                        const std::string& context, const Environment& env) {
  std::vector<admission::KubeconfigFile> decoded;
  for (const std::string& path : files) {
    RJG_ASSIGN_OR_RETURN(const std::string text, read_file(path));
    RJG_ASSIGN_OR_RETURN(admission::KubeconfigFile f,
                         admission::decode_kubeconfig_file(text, path));
    decoded.push_back(std::move(f));
  }
  const admission::KubeconfigFile merged = admission::merge_kubeconfigs(decoded);
  const bool empty = merged.current_context.empty() && merged.clusters.empty() &&
                     merged.contexts.empty() && merged.users.empty();
  if (empty && context.empty()) {
    // kubectl's rule: a config that says nothing falls back to the pod's service account.
    if (!env.service_host.empty() && !env.service_port.empty()) {
      return in_cluster_endpoint(env);
    }
    return unavailable(
        "no cluster to talk to: no kubeconfig (--kubeconfig, $KUBECONFIG, ~/.kube/config) and "
        "not in a pod (KUBERNETES_SERVICE_HOST unset); pass --kubeconfig FILE or --server URL "
        "--token-file F --ca F");
  }
  RJG_ASSIGN_OR_RETURN(const admission::Kubeconfig config,
                       admission::select_context(merged, context));
  ApiEndpoint ep;
  if (Status s = parse_server_url(config.cluster.server, ep); !s) {
    return Error{s.error().code, merged.path + ": " + s.error().message};
  }
  ep.insecure_skip_tls_verify = config.cluster.insecure_skip_tls_verify;
  ep.tls_server_name = config.cluster.tls_server_name;
  if (config.cluster.ca_pem) {
    ep.ca_pem = *config.cluster.ca_pem;
  } else if (config.cluster.ca_file) {
    RJG_ASSIGN_OR_RETURN(ep.ca_pem, read_file(*config.cluster.ca_file));
  }
  ep.login = config.user;
  if (ep.login.exec) {
    ep.exec_info = admission::exec_info_json(*ep.login.exec, config.cluster, ep.ca_pem);
  }
  ep.source = "kubeconfig " + merged.path + ", context " + config.context;
  return ep;
}

}  // namespace

Environment Environment::of_process() {
  const auto get = [](const char* name) {
    const char* v = std::getenv(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  Environment env;
  env.kubeconfig_env = get("KUBECONFIG");
  env.home = get("HOME");
  env.service_host = get("KUBERNETES_SERVICE_HOST");
  env.service_port = get("KUBERNETES_SERVICE_PORT");
  return env;
}

std::vector<std::string> kubeconfig_files(const ClusterFlags& flags, const Environment& env) {
  if (!flags.kubeconfig.empty()) {
    return {flags.kubeconfig};
  }
  std::vector<std::string> out;
  if (!env.kubeconfig_env.empty()) {
    std::set<std::string> seen;
    std::size_t begin = 0;
    while (begin <= env.kubeconfig_env.size()) {
      std::size_t end = env.kubeconfig_env.find(':', begin);
      if (end == std::string::npos) {
        end = env.kubeconfig_env.size();
      }
      const std::string path = env.kubeconfig_env.substr(begin, end - begin);
      if (!path.empty() && seen.insert(path).second && exists(path)) {
        out.push_back(path);
      }
      begin = end + 1;
    }
    return out;
  }
  if (!env.home.empty() && exists(env.home + "/.kube/config")) {
    out.push_back(env.home + "/.kube/config");
  }
  return out;
}

Result<ApiEndpoint> chosen_endpoint(const ClusterFlags& flags, const Environment& env) {
  const bool by_flags =
      !flags.server.empty() || !flags.token_file.empty() || !flags.ca_file.empty();
  if (by_flags) {
    if (!flags.kubeconfig.empty() || !flags.context.empty()) {
      return invalid_argument("--server/--token-file/--ca exclude --kubeconfig and --context");
    }
    if (flags.server.empty() || flags.token_file.empty() || flags.ca_file.empty()) {
      return invalid_argument("--server, --token-file and --ca go together");
    }
    ApiEndpoint ep;
    RJG_RETURN_IF_ERROR(parse_server_url(flags.server, ep));
    ep.login.token_file = flags.token_file;
    RJG_ASSIGN_OR_RETURN(ep.ca_pem, read_file(flags.ca_file));
    ep.source = "flags";
    return ep;
  }
  if (!flags.kubeconfig.empty() && !exists(flags.kubeconfig)) {
    return unavailable("--kubeconfig " + flags.kubeconfig + ": no such file");
  }
  return kubeconfig_endpoint(kubeconfig_files(flags, env), flags.context, env);
}

}  // namespace rjg::kube
