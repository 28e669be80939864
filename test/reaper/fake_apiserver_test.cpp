// The real HTTPS client and reap pass against test/reaper/fake_apiserver.py (Python stdlib HTTPS
// on 127.0.0.1, port 0, certificates minted at test time): paging with a continue token, retries
// with backoff on 500/429 (list) and 503 (delete), 404/409 races, bearer token, a 401 refreshing
// an exec plugin's credential, TLS verification.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kube/https_client.hpp"
#include "kube/kube_api.hpp"
#include "reaper/reap_pass.hpp"

namespace rjg::reaper {
namespace {

namespace fs = std::filesystem;
constexpr const char* kEndTime = "2026-11-29T15:07:29Z";
constexpr std::int64_t kEndEpoch = 1'795'964'849;

// Mints certificates once per process and starts one fake server per test; stops it by PID.
class FakeApiServer : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "rjg-fake-api-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    const std::string mint = std::string(RJG_MINT_CERTS) + " --out " + dir_ +
                             "/certs --san IP:127.0.0.1 >/dev/null 2>&1";
    ASSERT_EQ(std::system(mint.c_str()), 0) << mint;
    const std::string other = std::string(RJG_MINT_CERTS) + " --out " + dir_ +
                              "/other --san IP:127.0.0.1 >/dev/null 2>&1";
    ASSERT_EQ(std::system(other.c_str()), 0) << other;
    log_ = dir_ + "/requests.jsonl";

    int out[2];
    ASSERT_EQ(pipe(out), 0);
    const pid_t parent = getpid();
    pid_ = fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      // The server dies with this test process: a test that aborts (a sanitizer report) skips
      // TearDown, and a server left running would hold ctest's output pipe open for ever.
      if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
        _exit(126);
      }
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      const std::string cert = dir_ + "/certs/tls.crt", key = dir_ + "/certs/tls.key";
      execlp("python3", "python3", RJG_FAKE_APISERVER, "--cert", cert.c_str(), "--key", key.c_str(),
             "--token", "sekret", "--log", log_.c_str(), "--end-time", kEndTime,
             static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    FILE* f = fdopen(out[0], "r");
    ASSERT_NE(f, nullptr);
    char line[64] = {};
    ASSERT_NE(std::fgets(line, sizeof line, f), nullptr) << "fake server did not start";
    std::fclose(f);
    int port = 0;
    ASSERT_EQ(std::sscanf(line, "PORT %d", &port), 1) << line;
    port_ = std::to_string(port);
  }

  void TearDown() override {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    fs::remove_all(dir_);
  }

  kube::ApiEndpoint endpoint(const std::string& ca_dir = "certs",
                             const std::string& token = "sekret") {
    kube::ApiEndpoint ep;
    ep.host = "127.0.0.1";
    ep.port = port_;
    ep.login.token = token;
    std::ifstream in(dir_ + "/" + ca_dir + "/ca.crt");
    std::stringstream ss;
    ss << in.rdbuf();
    ep.ca_pem = ss.str();
    return ep;
  }

  std::vector<std::string> logged() {
    std::vector<std::string> lines;
    std::ifstream in(log_);
    for (std::string l; std::getline(in, l);) {
      lines.push_back(l);
    }
    return lines;
  }

  std::string dir_, log_, port_;
  pid_t pid_ = -1;
};

struct Waits {
  std::vector<std::chrono::milliseconds> all;
};

TEST_F(FakeApiServer, PagesRetriesAndRaces) {
  Result<std::unique_ptr<kube::HttpsClient>> client =
      kube::HttpsClient::create(endpoint(), std::chrono::seconds(10));
  ASSERT_TRUE(client.ok()) << client.error().message;
  Waits waits;
  kube::Backoff b;
  b.base = std::chrono::milliseconds(20);
  b.cap = std::chrono::milliseconds(80);
  kube::KubeApi api(
      *client.value(), b,
      [&](std::chrono::milliseconds d) {
        waits.all.push_back(d);
        usleep(static_cast<useconds_t>(d.count() * 1000));
      },
      3);
  ReapOptions o;
  o.namespace_ = "tenant-a";
  o.page_size = 2;
  o.lifecycle.max_succeeded_ttl_seconds = 600;
  o.lifecycle.min_failed_ttl_seconds = 1;
  o.lifecycle.max_failed_ttl_seconds = 3600;
  const ReapStats s = run_reap_pass(api, o, [] { return kEndEpoch + 10; });

  EXPECT_TRUE(s.ok()) << s.list_error;
  EXPECT_EQ(s.listed, 7);
  EXPECT_EQ(s.deleted, 2);       // rj-ok, rj-flaky (after two 503s)
  EXPECT_EQ(s.already_gone, 2);  // rj-gone (404), rj-replaced (409)
  EXPECT_EQ(s.skipped, 2);       // rj-terminating, rj-no-end
  EXPECT_EQ(s.kept, 1);          // rj-running
  EXPECT_EQ(s.failed, 0);
  // 500 then 429 (Retry-After: 0) on page 2, 503 twice on rj-flaky.
  ASSERT_EQ(waits.all.size(), 4u);
  EXPECT_LE(waits.all[0], std::chrono::milliseconds(20));
  EXPECT_EQ(waits.all[1], std::chrono::milliseconds(0));
  EXPECT_LE(waits.all[2], std::chrono::milliseconds(20));
  EXPECT_LE(waits.all[3], std::chrono::milliseconds(40));

  const std::vector<std::string> lines = logged();
  int deletes = 0;
  for (const std::string& l : lines) {
    EXPECT_NE(l.find(R"("auth": "Bearer sekret")"), std::string::npos) << l;
    EXPECT_EQ(l.find("rj-running"), std::string::npos) << "a running RayJob was touched: " << l;
    EXPECT_EQ(l.find("rj-terminating"), std::string::npos) << l;
    EXPECT_EQ(l.find("rj-no-end"), std::string::npos) << l;
    if (l.find(R"("method": "DELETE")") != std::string::npos) {
      ++deletes;
      EXPECT_NE(l.find(R"(\"propagationPolicy\":\"Background\")"), std::string::npos) << l;
      EXPECT_NE(l.find(R"(\"preconditions\":{\"uid\":\"uid-rj-)"), std::string::npos) << l;
    }
  }
  // 2 + 1 + 1 list GETs (page 2 three times), then 1 + 3 + 1 + 1 DELETEs.
  EXPECT_EQ(deletes, 6);
  EXPECT_EQ(lines.size(), 10u);
}

TEST_F(FakeApiServer, WrongTokenIsFatalNotRetried) {
  Result<std::unique_ptr<kube::HttpsClient>> client =
      kube::HttpsClient::create(endpoint("certs", "wrong"), std::chrono::seconds(10));
  ASSERT_TRUE(client.ok());
  int sleeps = 0;
  kube::KubeApi api(
      *client.value(), kube::Backoff{}, [&](std::chrono::milliseconds) { ++sleeps; }, 1);
  Result<admission::RayJobListPage> page = api.list_page("tenant-a", 2, "");
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.error().message.find("HTTP 401"), std::string::npos) << page.error().message;
  EXPECT_EQ(sleeps, 0);
}

// A 401 has the credentials run again and the request sent once more: the exec plugin's first
// token is refused, its second accepted, within one call; a plugin that keeps giving a refused
// token gets one retry, not a loop.
TEST_F(FakeApiServer, UnauthorizedRunsThePluginAgainOnce) {
  const std::string count = dir_ + "/plugin-runs";
  const std::string plugin = dir_ + "/plugin.sh";
  std::ofstream(plugin) << "#!/bin/sh\necho run >>'" << count << "'\n"
                        << "tok=wrong; [ $(wc -l <'" << count << "') -ge 2 ] && tok=\"$GOOD\"\n"
                        << "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                           "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%s\"}}' "
                           "\"$tok\"\n";
  std::filesystem::permissions(plugin, std::filesystem::perms::owner_all);
  for (const std::string good : {"sekret", "never-right"}) {
    std::filesystem::remove(count);
    kube::ApiEndpoint ep = endpoint();
    ep.login.token.reset();
    ep.login.exec = admission::ExecConfig{};
    ep.login.exec->api_version = "client.authentication.k8s.io/v1";
    ep.login.exec->command = plugin;
    ep.login.exec->interactive_mode = "Never";
    ep.login.exec->env = {{"GOOD", good}};
    Result<std::unique_ptr<kube::HttpsClient>> client =
        kube::HttpsClient::create(ep, std::chrono::seconds(10));
    ASSERT_TRUE(client.ok()) << client.error().message;
    Result<kube::HttpResponse> r = client.value()->send(
        {"GET", "/apis/ray.io/v1/namespaces/tenant-a/rayjobs?limit=2", "", "application/json"});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r.value().status, good == "sekret" ? 200 : 401) << good;
    std::ifstream in(count);
    int runs = 0;
    for (std::string l; std::getline(in, l);) {
      ++runs;
    }
    EXPECT_EQ(runs, 2) << good;
  }
}

TEST_F(FakeApiServer, UnknownCaIsATransportError) {
  Result<std::unique_ptr<kube::HttpsClient>> client =
      kube::HttpsClient::create(endpoint("other"), std::chrono::seconds(10));
  ASSERT_TRUE(client.ok());
  Result<kube::HttpResponse> r = client.value()->send(kube::HttpRequest{"GET", "/version", "", ""});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("TLS handshake"), std::string::npos) << r.error().message;
  EXPECT_TRUE(logged().empty());  // nothing reached the server
}

TEST_F(FakeApiServer, InsecureSkipVerifyConnectsWithoutCa) {
  kube::ApiEndpoint ep = endpoint();
  ep.ca_pem.clear();
  ep.insecure_skip_tls_verify = true;
  Result<std::unique_ptr<kube::HttpsClient>> client =
      kube::HttpsClient::create(ep, std::chrono::seconds(10));
  ASSERT_TRUE(client.ok());
  Result<kube::HttpResponse> r = client.value()->send(kube::HttpRequest{"GET", "/nothing", "", ""});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().status, 400);
}

TEST_F(FakeApiServer, ClosedPortIsUnavailable) {
  // Stop the server; its port is then closed.
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
  Result<std::unique_ptr<kube::HttpsClient>> client =
      kube::HttpsClient::create(endpoint(), std::chrono::seconds(5));
  ASSERT_TRUE(client.ok());
  Result<kube::HttpResponse> r = client.value()->send(kube::HttpRequest{"GET", "/version", "", ""});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("connect"), std::string::npos) << r.error().message;
}

TEST(HttpsClientCreate, RefusesBadCa) {
  kube::ApiEndpoint ep;
  ep.host = "127.0.0.1";
  ep.port = "1";
  ep.ca_pem = "not a pem";
  Result<std::unique_ptr<kube::HttpsClient>> client =
      kube::HttpsClient::create(ep, std::chrono::seconds(1));
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().code, ErrorCode::kInvalidArgument);
  ep.ca_pem.clear();
  EXPECT_FALSE(kube::HttpsClient::create(ep, std::chrono::seconds(1)).ok());
}

}  // namespace
}  // namespace rjg::reaper
