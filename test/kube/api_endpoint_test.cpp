// Finding the API endpoint as kubectl does: --kubeconfig, $KUBECONFIG (merged), ~/.kube/config,
// --context, the in-cluster service account when nothing holds a config, and the flags.
#include "kube/api_endpoint.hpp"

#include <gtest/gtest.h>

#include <string>

#include "test/common/temp_dir.hpp"

namespace rjg::kube {
namespace {

using rjg::testing::TempDir;

TEST(ServerUrl, Parses) {
  ApiEndpoint ep;
  ASSERT_TRUE(parse_server_url("https://127.0.0.1:6443", ep).ok());
  EXPECT_EQ(ep.host, "127.0.0.1");
  EXPECT_EQ(ep.port, "6443");
  ASSERT_TRUE(parse_server_url("https://kubernetes.default.svc/", ep).ok());
  EXPECT_EQ(ep.host, "kubernetes.default.svc");
  EXPECT_EQ(ep.port, "443");
  ASSERT_TRUE(parse_server_url("https://[::1]:8443", ep).ok());
  EXPECT_EQ(ep.host, "::1");
  EXPECT_EQ(ep.port, "8443");
}

TEST(ServerUrl, Refuses) {
  for (const char* url : {"http://127.0.0.1:80", "127.0.0.1:6443", "https://", "https://h:0",
                          "https://h:70000", "https://h:x", "https://h:6443/api", "https://[::1"}) {
    SCOPED_TRACE(url);
    ApiEndpoint ep;
    const Status s = parse_server_url(url, ep);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
  }
}

constexpr const char* kCaPem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

// A kubeconfig whose context CONTEXT points at https://127.0.0.1:PORT with user USER.
std::string kubeconfig(const std::string& current, const std::string& context,
                       const std::string& port, const std::string& user_body) {
  return (current.empty() ? "" : "current-context: " + current + "\n") +
         "contexts:\n- name: " + context + "\n  context: {cluster: k" + port + ", user: u" + port +
         "}\nclusters:\n- name: k" + port + "\n  cluster: {server: 'https://127.0.0.1:" + port +
         "', certificate-authority: ca.crt}\nusers:\n- name: u" + port + "\n  user: " +
         user_body + "\n";
}

Environment empty_env(const TempDir& d) {
  Environment env;
  env.home = d.path() + "/home";  // no .kube/config there
  env.sa_dir = d.path() + "/sa";
  return env;
}

TEST(Endpoint, ExplicitKubeconfig) {
  TempDir d;
  d.write("ca.crt", kCaPem);
  ClusterFlags f;
  f.kubeconfig = d.write("kc", kubeconfig("c", "c", "16443", "{tokenFile: tok}"));
  Result<ApiEndpoint> ep = chosen_endpoint(f, empty_env(d));
  ASSERT_TRUE(ep.ok()) << ep.error().message;
  EXPECT_EQ(ep.value().host, "127.0.0.1");
  EXPECT_EQ(ep.value().port, "16443");
  EXPECT_EQ(ep.value().ca_pem, kCaPem);
  EXPECT_EQ(ep.value().login.token_file, d.path() + "/tok");
  EXPECT_EQ(ep.value().source, "kubeconfig " + f.kubeconfig + ", context c");

  f.kubeconfig = d.path() + "/absent";
  Result<ApiEndpoint> missing = chosen_endpoint(f, empty_env(d));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(missing.error().message.find("no such file"), std::string::npos);
}

TEST(Endpoint, KubeconfigListMergedAndContextChosen) {
  TempDir d;
  d.write("ca.crt", kCaPem);
  // The first existing file sets no current-context; the second does. Missing files and empty
  // entries in the list are skipped, as kubectl skips them.
  const std::string one = d.write("one", kubeconfig("", "first", "1001", "{token: one}"));
  const std::string two = d.write("two", kubeconfig("second", "second", "1002", "{token: two}"));
  Environment env = empty_env(d);
  env.kubeconfig_env = d.path() + "/absent::" + one + ":" + two + ":" + one;
  ClusterFlags f;
  EXPECT_EQ(kubeconfig_files(f, env), (std::vector<std::string>{one, two}));
  Result<ApiEndpoint> ep = chosen_endpoint(f, env);
  ASSERT_TRUE(ep.ok()) << ep.error().message;
  EXPECT_EQ(ep.value().port, "1002");
  EXPECT_EQ(ep.value().login.token, "two");
  f.context = "first";
  Result<ApiEndpoint> first = chosen_endpoint(f, env);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first.value().port, "1001");
  EXPECT_EQ(first.value().login.token, "one");
  f.context = "third";
  Result<ApiEndpoint> none = chosen_endpoint(f, env);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no context named \"third\""), std::string::npos);
}

TEST(Endpoint, HomeKubeconfigOnlyWithoutTheVariable) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/home/.kube");
  d.write("home/.kube/ca.crt", kCaPem);
  d.write("home/.kube/config", kubeconfig("h", "h", "2000", "{token: home}"));
  Environment env = empty_env(d);
  Result<ApiEndpoint> ep = chosen_endpoint({}, env);
  ASSERT_TRUE(ep.ok()) << ep.error().message;
  EXPECT_EQ(ep.value().login.token, "home");
  // $KUBECONFIG set: ~/.kube/config is not read, even when no file of the list exists.
  env.kubeconfig_env = d.path() + "/absent";
  EXPECT_TRUE(kubeconfig_files({}, env).empty());
  Result<ApiEndpoint> none = chosen_endpoint({}, env);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(none.error().message.find("no cluster to talk to"), std::string::npos);
}

TEST(Endpoint, InClusterWhenNothingHoldsAConfig) {
  TempDir d;
  std::filesystem::create_directories(d.path() + "/sa");
  d.write("sa/token", "sa-token\n");
  d.write("sa/ca.crt", kCaPem);
  Environment env = empty_env(d);
  env.service_host = "10.0.0.1";
  env.service_port = "443";
  Result<ApiEndpoint> ep = chosen_endpoint({}, env);
  ASSERT_TRUE(ep.ok()) << ep.error().message;
  EXPECT_EQ(ep.value().describe(), "https://10.0.0.1:443");
  EXPECT_EQ(ep.value().login.token_file, d.path() + "/sa/token");  // read per request
  EXPECT_EQ(ep.value().ca_pem, kCaPem);
  EXPECT_EQ(ep.value().source, "in-cluster service account");
  // An empty kubeconfig file counts as none, as in kubectl.
  env.kubeconfig_env = d.write("empty", "");
  ASSERT_TRUE(chosen_endpoint({}, env).ok());
  env.service_host = "fd00::1";
  Result<ApiEndpoint> v6 = chosen_endpoint({}, env);
  ASSERT_TRUE(v6.ok()) << v6.error().message;
  EXPECT_EQ(v6.value().host, "fd00::1");
}

TEST(Endpoint, FlagsAndTheirConflicts) {
  TempDir d;
  ClusterFlags f;
  f.server = "https://127.0.0.1:9";
  f.token_file = d.write("t", "tok\n");
  f.ca_file = d.write("ca", kCaPem);
  Result<ApiEndpoint> ep = chosen_endpoint(f, empty_env(d));
  ASSERT_TRUE(ep.ok()) << ep.error().message;
  EXPECT_EQ(ep.value().login.token_file, f.token_file);
  EXPECT_EQ(ep.value().ca_pem, kCaPem);
  ClusterFlags partial = f;
  partial.ca_file.clear();
  EXPECT_NE(chosen_endpoint(partial, empty_env(d)).error().message.find("go together"),
            std::string::npos);
  ClusterFlags both = f;
  both.context = "x";
  EXPECT_NE(chosen_endpoint(both, empty_env(d)).error().message.find("exclude"),
            std::string::npos);
  ClusterFlags no_ca = f;
  no_ca.ca_file = d.path() + "/none";
  EXPECT_EQ(chosen_endpoint(no_ca, empty_env(d)).error().code, ErrorCode::kUnavailable);
}

TEST(Endpoint, ExecInfoCarriesTheClusterWhenAsked) {
  TempDir d;
  d.write("ca.crt", kCaPem);
  ClusterFlags f;
  f.kubeconfig = d.write(
      "kc", kubeconfig("c", "c", "7", "{exec: {apiVersion: client.authentication.k8s.io/v1, "
                                      "command: p, interactiveMode: Never, "
                                      "provideClusterInfo: true}}"));
  Result<ApiEndpoint> ep = chosen_endpoint(f, empty_env(d));
  ASSERT_TRUE(ep.ok()) << ep.error().message;
  EXPECT_NE(ep.value().exec_info.find(R"("server":"https://127.0.0.1:7")"), std::string::npos)
      << ep.value().exec_info;
  EXPECT_NE(ep.value().exec_info.find("certificate-authority-data"), std::string::npos);
}

}  // namespace
}  // namespace rjg::kube
