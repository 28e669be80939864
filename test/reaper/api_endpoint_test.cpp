// Loading the API endpoint: server URLs, kubeconfig files (token, tokenFile, CA data or file,
// insecure-skip-tls-verify, unsupported credentials), flags, and the in-cluster layout.
#include "reaper/api_endpoint.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace rjg::reaper {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "rjg-endpoint-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path_ + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

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

std::string kubeconfig(const std::string& cluster, const std::string& user) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
         "contexts:\n- name: other\n  context: {cluster: nope, user: nope}\n"
         "- name: c\n  context: {cluster: k, user: u}\n"
         "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:16443\n" +
         cluster + "users:\n- name: u\n  user:\n" + user;
}

TEST(Kubeconfig, TokenAndCaData) {
  TempDir d;
  // base64 of kCaPem
  const std::string b64 =
      "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";
  const std::string p = d.write(
      "kc", kubeconfig("    certificate-authority-data: " + b64 + "\n", "    token: t0k\n"));
  Result<ApiEndpoint> ep = kubeconfig_endpoint(p);
  ASSERT_TRUE(ep.ok()) << ep.error().message;
  EXPECT_EQ(ep.value().host, "127.0.0.1");
  EXPECT_EQ(ep.value().port, "16443");
  EXPECT_EQ(ep.value().token, "t0k");
  EXPECT_EQ(ep.value().ca_pem, kCaPem);
  EXPECT_FALSE(ep.value().insecure_skip_tls_verify);
}

TEST(Kubeconfig, RelativeCaFileTokenFileAndInsecure) {
  TempDir d;
  d.write("ca.crt", kCaPem);
  d.write("token", "abc\n");
  const std::string p =
      d.write("kc", kubeconfig("    certificate-authority: ca.crt\n", "    tokenFile: token\n"));
  Result<ApiEndpoint> ep = kubeconfig_endpoint(p);
  ASSERT_TRUE(ep.ok()) << ep.error().message;
  EXPECT_EQ(ep.value().ca_pem, kCaPem);
  EXPECT_EQ(ep.value().token, "abc");

  const std::string q =
      d.write("kc2", kubeconfig("    insecure-skip-tls-verify: true\n", "    token: x\n"));
  Result<ApiEndpoint> insecure = kubeconfig_endpoint(q);
  ASSERT_TRUE(insecure.ok()) << insecure.error().message;
  EXPECT_TRUE(insecure.value().insecure_skip_tls_verify);
}

TEST(Kubeconfig, Errors) {
  TempDir d;
  struct Case {
    std::string label;
    std::string text;
    ErrorCode code;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"not yaml", "a: [", ErrorCode::kInvalidArgument, "not YAML"},
      {"not a map", "- 1\n", ErrorCode::kInvalidArgument, "must be a mapping"},
      {"no current context", "clusters: []\n", ErrorCode::kInvalidArgument, "current-context"},
      {"missing context", "current-context: zz\ncontexts: []\n", ErrorCode::kInvalidArgument,
       "no entry named \"zz\""},
      {"no ca, not insecure", kubeconfig("", "    token: x\n"), ErrorCode::kInvalidArgument,
       "insecure-skip-tls-verify"},
      {"bad ca data", kubeconfig("    certificate-authority-data: '!!'\n", "    token: x\n"),
       ErrorCode::kInvalidArgument, "not base64"},
      {"client cert",
       kubeconfig("    insecure-skip-tls-verify: true\n",
                  "    client-certificate: c.crt\n    client-key: c.key\n"),
       ErrorCode::kUnsupported, "only token and tokenFile"},
      {"missing ca file", kubeconfig("    certificate-authority: nope.crt\n", "    token: x\n"),
       ErrorCode::kUnavailable, "nope.crt"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    Result<ApiEndpoint> ep = kubeconfig_endpoint(d.write("kc", c.text));
    ASSERT_FALSE(ep.ok());
    EXPECT_EQ(ep.error().code, c.code);
    EXPECT_NE(ep.error().message.find(c.want), std::string::npos) << ep.error().message;
  }
  Result<ApiEndpoint> missing = kubeconfig_endpoint(d.path() + "/absent");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kUnavailable);
}

TEST(Flags, ReadTokenAndCa) {
  TempDir d;
  Result<ApiEndpoint> ep =
      flags_endpoint("https://127.0.0.1:9", d.write("t", "tok\n"), d.write("ca", kCaPem));
  ASSERT_TRUE(ep.ok()) << ep.error().message;
  EXPECT_EQ(ep.value().token, "tok");
  EXPECT_EQ(ep.value().ca_pem, kCaPem);
  EXPECT_FALSE(flags_endpoint("https://127.0.0.1:9", d.path() + "/none", d.path() + "/ca").ok());
}

TEST(InCluster, ReadsEnvironmentAndServiceAccount) {
  TempDir d;
  d.write("token", "sa-token\n");
  d.write("ca.crt", kCaPem);
  unsetenv("KUBERNETES_SERVICE_HOST");
  Result<ApiEndpoint> none = in_cluster_endpoint(d.path());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kUnavailable);
  setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  Result<ApiEndpoint> ep = in_cluster_endpoint(d.path());
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  ASSERT_TRUE(ep.ok()) << ep.error().message;
  EXPECT_EQ(ep.value().host, "10.0.0.1");
  EXPECT_EQ(ep.value().token, "sa-token");
  EXPECT_EQ(ep.value().ca_pem, kCaPem);
}

}  // namespace
}  // namespace rjg::reaper
