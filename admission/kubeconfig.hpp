// Kubeconfig files as kubectl reads them: each file decoded, several merged ($KUBECONFIG), and
// one context chosen (current-context or --context) and checked as kubectl checks it before use.
// Translation only: no file is read and no plugin is run here (kube/api_endpoint.hpp does both),
// so the reaper's transport stays free of YAML.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace rjg::admission {

// users[].user.exec: a credential plugin (client.authentication.k8s.io).
struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or /v1beta1
  // As written, or resolved against the kubeconfig's directory when it holds a '/' (kubectl
  // looks a bare name up in PATH).
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to the plugin's environment
  std::string interactive_mode;  // Never, IfAvailable or Always (v1beta1 default: IfAvailable)
  bool provide_cluster_info = false;
  std::string install_hint;  // printed when the command cannot be run
};

// users[].user. Relative file names are resolved against the directory of the file they are in.
struct KubeUser {
  std::optional<std::string> token;
  std::optional<std::string> token_file;
  std::optional<std::string> client_certificate_pem;  // client-certificate-data, base64-decoded
  std::optional<std::string> client_certificate_file;
  std::optional<std::string> client_key_pem;  // client-key-data, base64-decoded
  std::optional<std::string> client_key_file;
  std::optional<ExecConfig> exec;
  // The first key of a login kubectl has but this client refuses (auth-provider, username,
  // impersonation), or empty. Refused only when a chosen context uses this user.
  std::string unsupported;
};

// clusters[].cluster.
struct KubeCluster {
  std::string server;
  bool insecure_skip_tls_verify = false;
  std::optional<std::string> ca_pem;   // certificate-authority-data, base64-decoded
  std::optional<std::string> ca_file;  // certificate-authority, resolved
  std::string tls_server_name;         // the name to verify and send as SNI, when not the host's
  std::string unsupported;             // as KubeUser::unsupported (proxy-url)
};

// contexts[].context.
struct KubeContext {
  std::string cluster;
  std::string user;  // empty: no credentials
};

template <typename T>
using Named = std::vector<std::pair<std::string, T>>;

// One kubeconfig file, or several merged.
struct KubeconfigFile {
  std::string path;             // for messages: the file, or the files merged
  std::string current_context;  // empty when not set
  Named<KubeCluster> clusters;
  Named<KubeContext> contexts;
  Named<KubeUser> users;
};

// Decodes the kubeconfig `yaml_text`, read from `path` (relative file names in it are resolved
// against the directory of `path`, and messages name it). An empty file is an empty config.
// Returns kInvalidArgument for malformed YAML, a mistyped key (the message names it), base64
// that does not decode, or an exec entry without a name.
Result<KubeconfigFile> decode_kubeconfig_file(std::string_view yaml_text, const std::string& path);

// Merges `files` as kubectl merges the files of $KUBECONFIG: the first file that sets
// current-context decides it, and for every cluster, context and user name the first file that
// defines it wins.
KubeconfigFile merge_kubeconfigs(const std::vector<KubeconfigFile>& files);

// What one context resolves to.
struct Kubeconfig {
  std::string context;  // the context's name
  KubeCluster cluster;
  KubeUser user;  // empty when the context names no user
};

// Chooses `context`, or the current context when it is empty, and checks what kubectl checks
// before it uses one. Returns kInvalidArgument when no context is chosen, a name is not defined,
// the cluster has no server, no CA and no insecure-skip-tls-verify, or a CA with it, or the user
// sets data and file of one thing, a certificate without a key, several logins at once, or an
// exec entry without command, apiVersion of v1 or v1beta1, or a valid interactiveMode;
// kUnsupported for the logins and cluster keys KubeUser/KubeCluster::unsupported names.
Result<Kubeconfig> select_context(const KubeconfigFile& config, const std::string& context);

}  // namespace rjg::admission
