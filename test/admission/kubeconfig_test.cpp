// Kubeconfig files: decoding (every login kind, relative paths, refused keys), merging as
// $KUBECONFIG merges, and the checks select_context makes before a context is used.
#include "admission/kubeconfig.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rjg::admission {
namespace {

// base64 of "PEM\n"
constexpr const char* kB64 = "UEVNCg==";

Result<KubeconfigFile> decode(const std::string& text) {
  return decode_kubeconfig_file(text, "/etc/kube/config");
}

std::string config(const std::string& cluster, const std::string& user) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
         "contexts:\n- name: other\n  context: {cluster: nope, user: nope}\n"
         "- name: c\n  context: {cluster: k, user: u}\n"
         "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:16443\n" +
         cluster + "users:\n- name: u\n  user:\n" + user;
}

Result<Kubeconfig> chosen(const std::string& cluster, const std::string& user) {
  Result<KubeconfigFile> f = decode(config(cluster, user));
  if (!f) {
    return f.error();
  }
  return select_context(f.value(), "");
}

TEST(Kubeconfig, DecodesEveryLoginWithPathsResolved) {
  Result<Kubeconfig> token = chosen("    certificate-authority: ca.crt\n", "    tokenFile: t\n");
  ASSERT_TRUE(token.ok()) << token.error().message;
  EXPECT_EQ(token.value().context, "c");
  EXPECT_EQ(token.value().cluster.server, "https://127.0.0.1:16443");
  EXPECT_EQ(token.value().cluster.ca_file, "/etc/kube/ca.crt");
  EXPECT_EQ(token.value().user.token_file, "/etc/kube/t");

  Result<Kubeconfig> cert = chosen(std::string("    certificate-authority-data: ") + kB64 + "\n",
                                   std::string("    client-certificate-data: ") + kB64 +
                                       "\n    client-key: /abs/k.pem\n    token: tok\n");
  ASSERT_TRUE(cert.ok()) << cert.error().message;
  EXPECT_EQ(cert.value().cluster.ca_pem, "PEM\n");
  EXPECT_EQ(cert.value().user.client_certificate_pem, "PEM\n");
  EXPECT_EQ(cert.value().user.client_key_file, "/abs/k.pem");
  EXPECT_EQ(cert.value().user.token, "tok");

  Result<Kubeconfig> exec = chosen(
      "    insecure-skip-tls-verify: true\n    tls-server-name: api.internal\n",
      "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
      "      command: bin/plugin\n      args: [get-token, --cluster, x]\n"
      "      env: [{name: A, value: b}]\n      provideClusterInfo: true\n"
      "      installHint: get it\n");
  ASSERT_TRUE(exec.ok()) << exec.error().message;
  EXPECT_TRUE(exec.value().cluster.insecure_skip_tls_verify);
  EXPECT_EQ(exec.value().cluster.tls_server_name, "api.internal");
  const ExecConfig& e = *exec.value().user.exec;
  EXPECT_EQ(e.command, "/etc/kube/bin/plugin");  // has a '/': relative to the file
  EXPECT_EQ(e.args, (std::vector<std::string>{"get-token", "--cluster", "x"}));
  ASSERT_EQ(e.env.size(), 1u);
  EXPECT_EQ(e.env[0].first, "A");
  EXPECT_EQ(e.env[0].second, "b");
  EXPECT_EQ(e.interactive_mode, "IfAvailable");  // v1beta1's default
  EXPECT_TRUE(e.provide_cluster_info);
  EXPECT_EQ(e.install_hint, "get it");

  Result<Kubeconfig> bare = chosen(
      "    insecure-skip-tls-verify: true\n",
      "    exec: {apiVersion: client.authentication.k8s.io/v1, command: aws, "
      "interactiveMode: Never}\n");
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  EXPECT_EQ(bare.value().user.exec->command, "aws");  // a bare name is looked up in PATH
}

TEST(Kubeconfig, EmptyFileIsAnEmptyConfig) {
  for (const char* text : {"", "# nothing\n", "~\n"}) {
    Result<KubeconfigFile> f = decode(text);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_TRUE(f.value().clusters.empty());
    EXPECT_TRUE(f.value().current_context.empty());
  }
}

TEST(Kubeconfig, ContextFlagChoosesAndUserIsOptional) {
  const std::string text =
      "current-context: a\ncontexts:\n- {name: a, context: {cluster: k, user: u}}\n"
      "- {name: b, context: {cluster: k}}\n"
      "clusters:\n- {name: k, cluster: {server: 'https://h', insecure-skip-tls-verify: true}}\n"
      "users:\n- {name: u, user: {token: x}}\n";
  Result<KubeconfigFile> f = decode(text);
  ASSERT_TRUE(f.ok()) << f.error().message;
  Result<Kubeconfig> b = select_context(f.value(), "b");
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b.value().context, "b");
  EXPECT_FALSE(b.value().user.token);
  Result<Kubeconfig> a = select_context(f.value(), "");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a.value().user.token, "x");
}

TEST(Kubeconfig, MergesFirstFileWins) {
  Result<KubeconfigFile> one = decode_kubeconfig_file(
      "contexts:\n- {name: shared, context: {cluster: k1, user: u}}\n"
      "clusters:\n- {name: k1, cluster: {server: 'https://one', insecure-skip-tls-verify: true}}\n",
      "/a/one");
  Result<KubeconfigFile> two = decode_kubeconfig_file(
      "current-context: shared\n"
      "contexts:\n- {name: shared, context: {cluster: k2, user: u}}\n"
      "- {name: own, context: {cluster: k2, user: u}}\n"
      "clusters:\n- {name: k1, cluster: {server: 'https://two'}}\n"
      "- {name: k2, cluster: {server: 'https://two', insecure-skip-tls-verify: true}}\n"
      "users:\n- {name: u, user: {tokenFile: tok}}\n",
      "/b/two");
  ASSERT_TRUE(one.ok() && two.ok());
  const KubeconfigFile merged = merge_kubeconfigs({one.value(), two.value()});
  EXPECT_EQ(merged.path, "/a/one:/b/two");
  EXPECT_EQ(merged.current_context, "shared");  // only the second file sets it
  Result<Kubeconfig> shared = select_context(merged, "");
  ASSERT_TRUE(shared.ok()) << shared.error().message;
  EXPECT_EQ(shared.value().cluster.server, "https://one");    // context and cluster of file one
  EXPECT_EQ(shared.value().user.token_file, "/b/tok");        // user of file two, its directory
  Result<Kubeconfig> own = select_context(merged, "own");
  ASSERT_TRUE(own.ok()) << own.error().message;
  EXPECT_EQ(own.value().cluster.server, "https://two");
}

TEST(Kubeconfig, DecodeErrors) {
  struct Case {
    const char* label;
    std::string text;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"not yaml", "a: [", "not YAML"},
      {"not a map", "- 1\n", "must be a mapping"},
      {"clusters not a list", "clusters: {}\n", "clusters: must be a list"},
      {"entry without name", "users:\n- user: {token: x}\n", "users[0].name: must be set"},
      {"server not a string", "clusters:\n- {name: k, cluster: {server: [1]}}\n",
       "clusters[0].cluster.server: must be a string"},
      {"bad base64", "clusters:\n- {name: k, cluster: {certificate-authority-data: '!!'}}\n",
       "not base64"},
      {"bad bool", "clusters:\n- {name: k, cluster: {insecure-skip-tls-verify: yes please}}\n",
       "must be true or false"},
      {"exec args", "users:\n- {name: u, user: {exec: {args: a}}}\n", "must be a list of strings"},
      {"exec env", "users:\n- {name: u, user: {exec: {env: [{value: v}]}}}\n",
       "env[0].name: must be set"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    Result<KubeconfigFile> f = decode(c.text);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(f.error().message.find(c.want), std::string::npos) << f.error().message;
    EXPECT_EQ(f.error().message.rfind("/etc/kube/config", 0), 0u) << f.error().message;
  }
}

TEST(Kubeconfig, SelectErrors) {
  const std::string insecure = "    insecure-skip-tls-verify: true\n";
  const std::string exec_v1 = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                              "      command: p\n";
  struct Case {
    const char* label;
    std::string cluster;
    std::string user;
    ErrorCode code;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"no ca", "", "    token: x\n", ErrorCode::kInvalidArgument, "insecure-skip-tls-verify"},
      {"ca and insecure", insecure + "    certificate-authority: ca\n", "    token: x\n",
       ErrorCode::kInvalidArgument, "keep the certificate authority"},
      {"ca data and file",
       std::string("    certificate-authority: ca\n    certificate-authority-data: ") + kB64 +
           "\n",
       "    token: x\n", ErrorCode::kInvalidArgument, "keep one"},
      {"proxy", insecure + "    proxy-url: http://p\n", "    token: x\n", ErrorCode::kUnsupported,
       "proxy-url"},
      {"cert without key", insecure, "    client-certificate: c\n", ErrorCode::kInvalidArgument,
       "needs its key"},
      {"key without cert", insecure, "    client-key: k\n", ErrorCode::kInvalidArgument,
       "needs its key"},
      {"cert data and file", insecure,
       std::string("    client-certificate: c\n    client-key: k\n    client-certificate-data: ") +
           kB64 + "\n",
       ErrorCode::kInvalidArgument, "both client-certificate-data and client-certificate"},
      {"auth provider", insecure, "    auth-provider: {name: gcp}\n", ErrorCode::kUnsupported,
       "exec plugin"},
      {"basic auth", insecure, "    username: a\n    password: b\n", ErrorCode::kUnsupported,
       "basic authentication"},
      {"impersonation", insecure, "    token: x\n    as: admin\n", ErrorCode::kUnsupported,
       "impersonation"},
      {"exec and token", insecure, exec_v1 + "      interactiveMode: Never\n    token: x\n",
       ErrorCode::kInvalidArgument, "keep one login"},
      {"exec v1 without interactiveMode", insecure, exec_v1, ErrorCode::kInvalidArgument,
       "v1 requires it"},
      {"exec bad interactiveMode", insecure, exec_v1 + "      interactiveMode: Sometimes\n",
       ErrorCode::kInvalidArgument, "not \"Sometimes\""},
      {"exec Always", insecure, exec_v1 + "      interactiveMode: Always\n",
       ErrorCode::kUnsupported, "needs a terminal"},
      {"exec v1alpha1", insecure,
       "    exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: p}\n",
       ErrorCode::kInvalidArgument, "not \"client.authentication.k8s.io/v1alpha1\""},
      {"exec without command", insecure,
       "    exec: {apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}\n",
       ErrorCode::kInvalidArgument, "exec.command must be set"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    Result<Kubeconfig> k = chosen(c.cluster, c.user);
    ASSERT_FALSE(k.ok());
    EXPECT_EQ(k.error().code, c.code) << k.error().message;
    EXPECT_NE(k.error().message.find(c.want), std::string::npos) << k.error().message;
  }
}

TEST(Kubeconfig, NamesThatAreNotDefined) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"contexts: []\n", "no current-context is set"},
      {"current-context: zz\n", "no context named \"zz\""},
      {"current-context: c\ncontexts:\n- {name: c, context: {cluster: k}}\n",
       "names cluster \"k\", which is not defined"},
      {"current-context: c\ncontexts:\n- {name: c, context: {cluster: k, user: u}}\n"
       "clusters:\n- {name: k, cluster: {server: 'https://h', insecure-skip-tls-verify: true}}\n",
       "names user \"u\", which is not defined"},
      {"current-context: c\ncontexts:\n- {name: c, context: {cluster: k}}\n"
       "clusters:\n- {name: k, cluster: {insecure-skip-tls-verify: true}}\n",
       "has no server"},
  };
  for (const auto& [text, want] : cases) {
    SCOPED_TRACE(text);
    Result<KubeconfigFile> f = decode(text);
    ASSERT_TRUE(f.ok()) << f.error().message;
    Result<Kubeconfig> k = select_context(f.value(), "");
    ASSERT_FALSE(k.ok());
    EXPECT_NE(k.error().message.find(want), std::string::npos) << k.error().message;
  }
}

}  // namespace
}  // namespace rjg::admission
