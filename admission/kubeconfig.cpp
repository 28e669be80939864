// Kubeconfig decoding, merging and context selection (see kubeconfig.hpp). The checks of
// select_context are client-go's clientcmd validation of the context it is about to use.
#include "admission/kubeconfig.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <set>

#include "admission/nesting_limit.hpp"
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
using Kind = Document::Kind;
constexpr Index kNone = Document::kNone;

// Reads the keys of one kubeconfig mapping; every message names the file and the key's path.
class Reader {
 public:
  Reader(const Document& d, std::string path) : d_(d), path_(std::move(path)) {}

  const Document& doc() const { return d_; }
  Error error(const std::string& where, const std::string& what) const {
    return invalid_argument(path_ + ": " + where + ": " + what);
  }

  // The value of `key` in mapping `map`, or kNone when absent or null (kubectl reads a null as
  // the field's zero value).
  Index value(Index map, const char* key) const {
    const Index v = d_.find(map, key);
    return v == kNone || d_.kind(v) == Kind::kNull ? kNone : v;
  }
  // A string key, as written (a kubeconfig's values are strings to kubectl too).
  Result<std::optional<std::string>> text(Index map, const char* key,
                                          const std::string& where) const {
    const Index v = value(map, key);
    if (v == kNone) {
      return std::optional<std::string>();
    }
    if (d_.kind(v) != Kind::kScalar) {
      return error(where + "." + key, "must be a string");
    }
    return std::optional<std::string>(std::string(d_.scalar(v)));
  }
  Result<bool> flag(Index map, const char* key, const std::string& where) const {
    const Index v = value(map, key);
    if (v == kNone) {
      return false;
    }
    if (d_.kind(v) != Kind::kScalar || (d_.scalar(v) != "true" && d_.scalar(v) != "false")) {
      return error(where + "." + key, "must be true or false");
    }
    return d_.scalar(v) == "true";
  }
  // base64 data, decoded.
  Result<std::optional<std::string>> data(Index map, const char* key,
                                          const std::string& where) const {
    RJG_ASSIGN_OR_RETURN(std::optional<std::string> t, text(map, key, where));
    if (!t) {
      return t;
    }
    RJG_ASSIGN_OR_RETURN(std::string decoded, base64_decode(*t, path_ + ": " + where + "." + key));
    return std::optional<std::string>(std::move(decoded));
  }
  // A file name, resolved against the kubeconfig's directory (an empty one stays unset).
  Result<std::optional<std::string>> file(Index map, const char* key,
                                          const std::string& where) const {
    RJG_ASSIGN_OR_RETURN(std::optional<std::string> t, text(map, key, where));
    if (!t || t->empty()) {
      return std::optional<std::string>();
    }
    return std::optional<std::string>(resolve(*t));
  }
  std::string resolve(const std::string& file) const {
    if (file[0] == '/') {
      return file;
    }
    const std::size_t slash = path_.rfind('/');
    return slash == std::string::npos ? file : path_.substr(0, slash + 1) + file;
  }

  // Calls `each(name, inner)` for every `list[*]` entry with its `inner` mapping.
  template <typename Each>
  Status named_list(const char* list, const char* inner, Each each) const {
    const Index items = value(0, list);
    if (items == kNone) {
      return {};
    }
    if (d_.kind(items) != Kind::kSequence) {
      return error(list, "must be a list");
    }
    int i = 0;
    for (Index item = d_.first_child(items); item != kNone; item = d_.next(item), ++i) {
      const std::string where = std::string(list) + "[" + std::to_string(i) + "]";
      if (d_.kind(item) != Kind::kMapping) {
        return error(where, "must be a mapping");
      }
      RJG_ASSIGN_OR_RETURN(const std::optional<std::string> name, text(item, "name", where));
      if (!name || name->empty()) {
        return error(where + ".name", "must be set");
      }
      const Index body = value(item, inner);
      if (body != kNone && d_.kind(body) != Kind::kMapping) {
        return error(where + "." + inner, "must be a mapping");
      }
      RJG_RETURN_IF_ERROR(each(*name, body, where + "." + inner));
    }
    return {};
  }

 private:
  const Document& d_;
  std::string path_;
};

Result<KubeCluster> read_cluster(const Reader& r, Index m, const std::string& at) {
  KubeCluster c;
  if (m == kNone) {
    return c;
  }
  RJG_ASSIGN_OR_RETURN(const std::optional<std::string> server, r.text(m, "server", at));
  c.server = server.value_or("");
  RJG_ASSIGN_OR_RETURN(c.insecure_skip_tls_verify, r.flag(m, "insecure-skip-tls-verify", at));
  RJG_ASSIGN_OR_RETURN(c.ca_pem, r.data(m, "certificate-authority-data", at));
  RJG_ASSIGN_OR_RETURN(c.ca_file, r.file(m, "certificate-authority", at));
  RJG_ASSIGN_OR_RETURN(const std::optional<std::string> sni, r.text(m, "tls-server-name", at));
  c.tls_server_name = sni.value_or("");
  if (r.value(m, "proxy-url") != kNone) {
    c.unsupported = "proxy-url";
  }
  return c;
}

Result<ExecConfig> read_exec(const Reader& r, Index m, const std::string& at) {
  ExecConfig e;
  const Document& d = r.doc();
  RJG_ASSIGN_OR_RETURN(const std::optional<std::string> api, r.text(m, "apiVersion", at));
  e.api_version = api.value_or("");
  RJG_ASSIGN_OR_RETURN(const std::optional<std::string> command, r.text(m, "command", at));
  e.command = command.value_or("");
  if (e.command.find('/') != std::string::npos) {
    e.command = r.resolve(e.command);
  }
  if (const Index args = r.value(m, "args"); args != kNone) {
    if (d.kind(args) != Kind::kSequence) {
      return r.error(at + ".args", "must be a list of strings");
    }
    for (Index a = d.first_child(args); a != kNone; a = d.next(a)) {
      if (d.kind(a) != Kind::kScalar) {
        return r.error(at + ".args", "must be a list of strings");
      }
      e.args.emplace_back(d.scalar(a));
    }
  }
  if (const Index env = r.value(m, "env"); env != kNone) {
    if (d.kind(env) != Kind::kSequence) {
      return r.error(at + ".env", "must be a list of {name, value}");
    }
    int i = 0;
    for (Index v = d.first_child(env); v != kNone; v = d.next(v), ++i) {
      const std::string where = at + ".env[" + std::to_string(i) + "]";
      if (d.kind(v) != Kind::kMapping) {
        return r.error(where, "must be a mapping with name and value");
      }
      RJG_ASSIGN_OR_RETURN(const std::optional<std::string> name, r.text(v, "name", where));
      RJG_ASSIGN_OR_RETURN(const std::optional<std::string> value, r.text(v, "value", where));
      if (!name || name->empty()) {
        return r.error(where + ".name", "must be set");
      }
      e.env.emplace_back(*name, value.value_or(""));
    }
  }
  RJG_ASSIGN_OR_RETURN(const std::optional<std::string> mode, r.text(m, "interactiveMode", at));
  e.interactive_mode = mode.value_or("");
  if (e.interactive_mode.empty() && e.api_version == "client.authentication.k8s.io/v1beta1") {
    e.interactive_mode = "IfAvailable";  // client-go's default for v1beta1
  }
  RJG_ASSIGN_OR_RETURN(e.provide_cluster_info, r.flag(m, "provideClusterInfo", at));
  RJG_ASSIGN_OR_RETURN(const std::optional<std::string> hint, r.text(m, "installHint", at));
  e.install_hint = hint.value_or("");
  return e;
}

Result<KubeUser> read_user(const Reader& r, Index m, const std::string& at) {
  KubeUser u;
  if (m == kNone) {
    return u;
  }
  RJG_ASSIGN_OR_RETURN(u.token, r.text(m, "token", at));
  RJG_ASSIGN_OR_RETURN(u.token_file, r.file(m, "tokenFile", at));
  RJG_ASSIGN_OR_RETURN(u.client_certificate_pem, r.data(m, "client-certificate-data", at));
  RJG_ASSIGN_OR_RETURN(u.client_certificate_file, r.file(m, "client-certificate", at));
  RJG_ASSIGN_OR_RETURN(u.client_key_pem, r.data(m, "client-key-data", at));
  RJG_ASSIGN_OR_RETURN(u.client_key_file, r.file(m, "client-key", at));
  if (u.token && u.token->empty()) {
    u.token.reset();
  }
  if (const Index exec = r.value(m, "exec"); exec != kNone) {
    if (r.doc().kind(exec) != Kind::kMapping) {
      return r.error(at + ".exec", "must be a mapping");
    }
    RJG_ASSIGN_OR_RETURN(u.exec, read_exec(r, exec, at + ".exec"));
  }
  for (const char* key : {"auth-provider", "username", "password", "as", "as-uid", "as-groups",
                          "as-user-extra"}) {
    if (r.value(m, key) != kNone) {
      u.unsupported = key;
      break;
    }
  }
  return u;
}

template <typename T>
const T* lookup(const Named<T>& list, const std::string& name) {
  const auto it = std::find_if(list.begin(), list.end(),
                               [&](const auto& entry) { return entry.first == name; });
  return it == list.end() ? nullptr : &it->second;
}

Status check_cluster(const std::string& where, const std::string& name, const KubeCluster& c) {
  const std::string what = where + ": cluster \"" + name + "\"";
  if (!c.unsupported.empty()) {
    return unsupported(what + ": " + c.unsupported +
                       " is not supported; reach the API server without a proxy");
  }
  if (c.server.empty()) {
    return invalid_argument(what + " has no server");
  }
  if (c.ca_pem && c.ca_file) {
    return invalid_argument(what + " sets both certificate-authority-data and "
                                   "certificate-authority; keep one");
  }
  const bool ca = c.ca_pem || c.ca_file;
  if (ca && c.insecure_skip_tls_verify) {
    return invalid_argument(what + " sets a certificate authority and insecure-skip-tls-verify; "
                                   "keep the certificate authority");
  }
  if (!ca && !c.insecure_skip_tls_verify) {
    return invalid_argument(what + " has no certificate-authority(-data) and does not set "
                                   "insecure-skip-tls-verify: true");
  }
  return {};
}

Status check_user(const std::string& where, const std::string& name, const KubeUser& u) {
  const std::string what = where + ": user \"" + name + "\"";
  if (!u.unsupported.empty()) {
    const std::string key = u.unsupported;
    std::string fix;
    if (key == "auth-provider") {
      fix = "auth-provider plugins left kubectl in 1.26; use the provider's exec plugin "
            "(gke-gcloud-auth-plugin, kubelogin, aws eks get-token)";
    } else if (key == "username" || key == "password") {
      fix = "basic authentication left Kubernetes in 1.19; use a token, a client certificate or "
            "an exec plugin";
    } else {
      fix = "impersonation is not supported; log in as the identity itself";
    }
    return unsupported(what + ": " + key + ": " + fix);
  }
  if (u.client_certificate_pem && u.client_certificate_file) {
    return invalid_argument(what + " sets both client-certificate-data and client-certificate");
  }
  if (u.client_key_pem && u.client_key_file) {
    return invalid_argument(what + " sets both client-key-data and client-key");
  }
  const bool cert = u.client_certificate_pem || u.client_certificate_file;
  const bool key = u.client_key_pem || u.client_key_file;
  if (cert != key) {
    return invalid_argument(what + ": a client certificate needs its key, and a key its "
                                   "certificate (client-certificate(-data) and "
                                   "client-key(-data))");
  }
  if (!u.exec) {
    return {};
  }
  const ExecConfig& e = *u.exec;
  if (cert || u.token || u.token_file) {
    return invalid_argument(what + ": exec cannot be combined with token, tokenFile or a "
                                   "client certificate; keep one login");
  }
  if (e.command.empty()) {
    return invalid_argument(what + ": exec.command must be set");
  }
  if (e.api_version != "client.authentication.k8s.io/v1" &&
      e.api_version != "client.authentication.k8s.io/v1beta1") {
    return invalid_argument(what + ": exec.apiVersion must be client.authentication.k8s.io/v1 "
                                   "or client.authentication.k8s.io/v1beta1, not \"" +
                            e.api_version + "\"");
  }
  if (e.interactive_mode != "Never" && e.interactive_mode != "IfAvailable" &&
      e.interactive_mode != "Always") {
    return invalid_argument(what + ": exec.interactiveMode must be Never, IfAvailable or Always" +
                            (e.interactive_mode.empty() ? std::string(" (client.authentication."
                                                                      "k8s.io/v1 requires it)")
                                                        : ", not \"" + e.interactive_mode + "\""));
  }
  if (e.interactive_mode == "Always") {
    return unsupported(what + ": exec.interactiveMode Always needs a terminal, and rayjob-guard "
                              "runs plugins without one; use IfAvailable or Never");
  }
  return {};
}

}  // namespace

Result<KubeconfigFile> decode_kubeconfig_file(std::string_view yaml_text,
                                              const std::string& path) {
  KubeconfigFile out;
  out.path = path;
  // libyaml's event tree, as for manifests and policy files: nesting bounded
  // (nesting_limit.hpp), the first document only (as kubectl reads a kubeconfig).
  Result<Document> parsed =
      yaml::parse_first_document(yaml_text, yaml::Limits{100'000, kMaxNestingDepth});
  if (!parsed.ok()) {
    return invalid_argument(path + ": not YAML: " + parsed.error().message);
  }
  const Document& d = parsed.value();
  if (d.empty() || d.kind(0) == Kind::kNull) {
    return out;
  }
  if (d.kind(0) != Kind::kMapping) {
    return invalid_argument(path + ": a kubeconfig must be a mapping");
  }
  const Reader r(d, path);
  RJG_ASSIGN_OR_RETURN(const std::optional<std::string> current,
                       r.text(0, "current-context", "current-context"));
  out.current_context = current.value_or("");
  RJG_RETURN_IF_ERROR(r.named_list("clusters", "cluster", [&](const std::string& name, Index m,
                                                               const std::string& at) -> Status {
    RJG_ASSIGN_OR_RETURN(KubeCluster c, read_cluster(r, m, at));
    out.clusters.emplace_back(name, std::move(c));
    return {};
  }));
  RJG_RETURN_IF_ERROR(r.named_list("users", "user", [&](const std::string& name, Index m,
                                                        const std::string& at) -> Status {
    RJG_ASSIGN_OR_RETURN(KubeUser u, read_user(r, m, at));
    out.users.emplace_back(name, std::move(u));
    return {};
  }));
  RJG_RETURN_IF_ERROR(r.named_list("contexts", "context", [&](const std::string& name, Index m,
                                                              const std::string& at) -> Status {
    KubeContext c;
    if (m != kNone) {
      RJG_ASSIGN_OR_RETURN(const std::optional<std::string> cluster, r.text(m, "cluster", at));
      RJG_ASSIGN_OR_RETURN(const std::optional<std::string> user, r.text(m, "user", at));
      c.cluster = cluster.value_or("");
      c.user = user.value_or("");
    }
    out.contexts.emplace_back(name, std::move(c));
    return {};
  }));
  return out;
}

KubeconfigFile merge_kubeconfigs(const std::vector<KubeconfigFile>& files) {
  KubeconfigFile out;
  const auto first_wins = [](auto& into, const auto& from) {
    for (const auto& entry : from) {
      if (lookup(into, entry.first) == nullptr) {
        into.push_back(entry);
      }
    }
  };
  for (const KubeconfigFile& f : files) {
    out.path += (out.path.empty() ? "" : ":") + f.path;
    if (out.current_context.empty()) {
      out.current_context = f.current_context;
    }
    first_wins(out.clusters, f.clusters);
    first_wins(out.contexts, f.contexts);
    first_wins(out.users, f.users);
  }
  return out;
}

Result<Kubeconfig> select_context(const KubeconfigFile& config, const std::string& context) {
  Kubeconfig out;
  out.context = context.empty() ? config.current_context : context;
  if (out.context.empty()) {
    return invalid_argument(config.path + ": no current-context is set; pass --context NAME");
  }
  const KubeContext* ctx = lookup(config.contexts, out.context);
  if (ctx == nullptr) {
    return invalid_argument(config.path + ": no context named \"" + out.context + "\"");
  }
  const KubeCluster* cluster = lookup(config.clusters, ctx->cluster);
  if (cluster == nullptr) {
    return invalid_argument(config.path + ": context \"" + out.context +
                            "\" names cluster \"" + ctx->cluster + "\", which is not defined");
  }
  RJG_RETURN_IF_ERROR(check_cluster(config.path, ctx->cluster, *cluster));
  out.cluster = *cluster;
  if (!ctx->user.empty()) {
    const KubeUser* user = lookup(config.users, ctx->user);
    if (user == nullptr) {
      return invalid_argument(config.path + ": context \"" + out.context + "\" names user \"" +
                              ctx->user + "\", which is not defined");
    }
    RJG_RETURN_IF_ERROR(check_user(config.path, ctx->user, *user));
    out.user = *user;
  }
  return out;
}

}  // namespace rjg::admission
