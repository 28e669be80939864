// Credentials kept fresh: token files read again when they rotate, client certificate files
// likewise, exec credentials cached until they expire or a 401 comes back; and exec plugins run
// for real (scripts written here): their environment, KUBERNETES_EXEC_INFO, exit status,
// signals, deadline, and a command that is not there.
#include "kube/credentials.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kube/exec_plugin.hpp"
#include "test/common/temp_dir.hpp"

namespace rjg::kube {
namespace {

using rjg::testing::TempDir;

// A self-signed certificate and its key, made by the openssl tool into DIR/NAME.crt and .key.
void mint(const TempDir& d, const std::string& name) {
  const std::string cmd = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
                          "-subj /CN=" + name + " -days 1 -keyout '" + d.path() + "/" + name +
                          ".key' -out '" + d.path() + "/" + name + ".crt' 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "openssl is a prerequisite of this test";
}

// A plugin runner that counts its runs and returns what `printed` holds at the time.
struct FakePlugin {
  int runs = 0;
  std::string printed;
  std::string last_info;
  PluginRunner runner() {
    return [this](const admission::ExecConfig&, const std::string& info) -> Result<std::string> {
      ++runs;
      last_info = info;
      return printed;
    };
  }
};

std::string credential(const std::string& token, const std::string& expiry) {
  return R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
         R"("status":{"token":")" +
         token + "\"" + (expiry.empty() ? "" : R"(,"expirationTimestamp":")" + expiry + "\"") +
         "}}";
}

admission::KubeUser exec_user() {
  admission::KubeUser u;
  u.exec = admission::ExecConfig{};
  u.exec->api_version = "client.authentication.k8s.io/v1";
  u.exec->command = "plugin";
  u.exec->interactive_mode = "Never";
  return u;
}

PluginRunner no_plugin() {
  return [](const admission::ExecConfig&, const std::string&) -> Result<std::string> {
    return internal_error("no plugin in this test");
  };
}

TEST(Credentials, TokenFileIsReadAgainWhenItRotates) {
  TempDir d;
  admission::KubeUser u;
  u.token_file = d.write("token", "first\n");
  Credentials c(u, "", no_plugin(), [] { return 0; });
  EXPECT_EQ(c.current().value().bearer_token, "first");
  EXPECT_EQ(c.current().value().bearer_token, "first");
  d.write("token", "second\n");  // kubelet's projected volume swaps the file in
  EXPECT_EQ(c.current().value().bearer_token, "second");
  EXPECT_TRUE(c.refresh_after_unauthorized());
  EXPECT_EQ(c.current().value().bearer_token, "second");
  EXPECT_EQ(c.describe(), "tokenFile " + u.token_file.value());
  d.write("token", "\n");
  EXPECT_NE(c.current().error().message.find("is empty"), std::string::npos);
  std::filesystem::remove(*u.token_file);
  EXPECT_EQ(c.current().error().code, ErrorCode::kUnavailable);
}

TEST(Credentials, FixedTokenWinsOverTokenFileAndCannotRefresh) {
  admission::KubeUser u;
  u.token = "fixed";
  u.token_file = "/nonexistent";
  Credentials c(u, "", no_plugin(), [] { return 0; });
  EXPECT_EQ(c.current().value().bearer_token, "fixed");
  EXPECT_FALSE(c.refresh_after_unauthorized());
  EXPECT_EQ(c.describe(), "token");
}

TEST(Credentials, ClientCertificateFilesAreCheckedAndReadAgain) {
  TempDir d;
  mint(d, "a");
  mint(d, "b");
  admission::KubeUser u;
  u.client_certificate_file = d.write("client.crt", d.read("a.crt"));
  u.client_key_file = d.write("client.key", d.read("a.key"));
  Credentials c(u, "", no_plugin(), [] { return 0; });
  Result<Auth> first = c.current();
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_NE(first.value().cert, nullptr);
  EXPECT_TRUE(first.value().bearer_token.empty());
  EXPECT_EQ(c.current().value().cert, first.value().cert);  // unchanged files: parsed once
  // Rotated: a new certificate and key.
  d.write("client.crt", d.read("b.crt"));
  d.write("client.key", d.read("b.key"));
  Result<Auth> second = c.current();
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_NE(second.value().cert, first.value().cert);
  // Half-rotated (the key of another certificate): a clear error, not a failed handshake.
  d.write("client.key", d.read("a.key"));
  Result<Auth> mismatch = c.current();
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.error().message.find("does not belong"), std::string::npos);
  d.write("client.crt", "not pem");
  EXPECT_NE(c.current().error().message.find("not a PEM certificate"), std::string::npos);
}

TEST(Credentials, ClientCertificateDataWithToken) {
  TempDir d;
  mint(d, "a");
  admission::KubeUser u;
  u.client_certificate_pem = d.read("a.crt");
  u.client_key_pem = d.read("a.key");
  u.token = "t";
  Credentials c(u, "", no_plugin(), [] { return 0; });
  Result<Auth> a = c.current();
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_NE(a.value().cert, nullptr);
  EXPECT_EQ(a.value().bearer_token, "t");
  EXPECT_EQ(c.describe(), "token + client certificate");
}

TEST(Credentials, ExecCredentialCachedUntilItExpires) {
  FakePlugin plugin;
  std::int64_t now = 1796378400 - 10;  // ten seconds before 2026-12-04T10:00:00Z
  plugin.printed = credential("t1", "2026-12-04T10:00:00Z");
  Credentials c(exec_user(), "INFO", plugin.runner(), [&now] { return now; });
  EXPECT_EQ(c.current().value().bearer_token, "t1");
  now += 9;
  EXPECT_EQ(c.current().value().bearer_token, "t1");
  EXPECT_EQ(plugin.runs, 1);
  EXPECT_EQ(plugin.last_info, "INFO");
  now += 1;  // expired
  plugin.printed = credential("t2", "");
  EXPECT_EQ(c.current().value().bearer_token, "t2");
  EXPECT_EQ(plugin.runs, 2);
  now += 100'000;  // no expiry: kept
  EXPECT_EQ(c.current().value().bearer_token, "t2");
  EXPECT_EQ(plugin.runs, 2);
  // A 401: run again.
  EXPECT_TRUE(c.refresh_after_unauthorized());
  plugin.printed = credential("t3", "");
  EXPECT_EQ(c.current().value().bearer_token, "t3");
  EXPECT_EQ(plugin.runs, 3);
  EXPECT_EQ(c.describe(), "exec plugin plugin");
}

TEST(Credentials, ExecFailuresAreErrorsAndNotCached) {
  FakePlugin plugin;
  plugin.printed = "garbage";
  Credentials c(exec_user(), "", plugin.runner(), [] { return 0; });
  Result<Auth> bad = c.current();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.error().message.find("exec plugin \"plugin\""), std::string::npos);
  plugin.printed = credential("ok", "");
  EXPECT_EQ(c.current().value().bearer_token, "ok");
  EXPECT_EQ(plugin.runs, 2);
}

TEST(Credentials, ExecClientCertificate) {
  TempDir d;
  mint(d, "a");
  const auto json_string = [](const std::string& pem) {
    std::string out;
    for (const char ch : pem) {
      out += ch == '\n' ? std::string("\\n") : std::string(1, ch);
    }
    return out;
  };
  FakePlugin plugin;
  plugin.printed =
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{)"
      R"("clientCertificateData":")" + json_string(d.read("a.crt")) +
      R"(","clientKeyData":")" + json_string(d.read("a.key")) + R"("}})";
  Credentials c(exec_user(), "", plugin.runner(), [] { return 0; });
  Result<Auth> a = c.current();
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_NE(a.value().cert, nullptr);
  EXPECT_TRUE(a.value().bearer_token.empty());
}

TEST(Credentials, Anonymous) {
  Credentials c({}, "", no_plugin(), [] { return 0; });
  Result<Auth> a = c.current();
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a.value().bearer_token.empty());
  EXPECT_EQ(a.value().cert, nullptr);
  EXPECT_FALSE(c.refresh_after_unauthorized());
  EXPECT_EQ(c.describe(), "anonymous");
}

admission::ExecConfig script(const TempDir& d, const std::string& body) {
  admission::ExecConfig e;
  e.api_version = "client.authentication.k8s.io/v1";
  e.command = d.write("plugin.sh", "#!/bin/sh\n" + body, 0755);
  e.interactive_mode = "Never";
  return e;
}

// Sets environment variables for one scope, and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (const auto& [name, value] : vars) {
      const char* old = std::getenv(name);
      saved_.emplace_back(name, old == nullptr ? std::nullopt : std::optional<std::string>(old));
      ::setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& [name, old] : saved_) {
      old ? ::setenv(name.c_str(), old->c_str(), 1) : ::unsetenv(name.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(ExecPlugin, RunsWithArgsEnvAndExecInfo) {
  // An entry shorter than the names set for the plugin (CI has "CI=true"): a lookup that reads
  // past it shows under ASan. The parent's GREETING is replaced by the kubeconfig's.
  ScopedEnv parent({{"Z", ""}, {"GREETING", "from the parent"}});
  TempDir d;
  admission::ExecConfig e = script(d, "printf '%s|%s|%s|%s' \"$1\" \"$2\" \"$GREETING\" "
                                      "\"$KUBERNETES_EXEC_INFO\"\n");
  e.args = {"get-token", "a b"};
  e.env = {{"GREETING", "hello"}};
  Result<std::string> out = run_exec_plugin(e, "{\"info\":1}", std::chrono::seconds(10));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out.value(), "get-token|a b|hello|{\"info\":1}");
}

TEST(ExecPlugin, Failures) {
  TempDir d;
  Result<std::string> exit3 =
      run_exec_plugin(script(d, "echo 'token expired, run login' >&2\nexit 3\n"), "{}",
                      std::chrono::seconds(10));
  ASSERT_FALSE(exit3.ok());
  EXPECT_EQ(exit3.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(exit3.error().message.find("exited with status 3: token expired, run login"),
            std::string::npos)
      << exit3.error().message;

  Result<std::string> killed =
      run_exec_plugin(script(d, "kill -9 $$\n"), "{}", std::chrono::seconds(10));
  ASSERT_FALSE(killed.ok());
  EXPECT_NE(killed.error().message.find("killed by signal 9"), std::string::npos)
      << killed.error().message;

  const auto t0 = std::chrono::steady_clock::now();
  Result<std::string> slow =
      run_exec_plugin(script(d, "exec sleep 30\n"), "{}", std::chrono::milliseconds(300));
  ASSERT_FALSE(slow.ok());
  EXPECT_NE(slow.error().message.find("did not finish within 300 ms"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));

  // A plugin that never stops printing is stopped by the deadline, not read into memory.
  Result<std::string> flood =
      run_exec_plugin(script(d, "exec yes\n"), "{}", std::chrono::milliseconds(500));
  ASSERT_FALSE(flood.ok());
  EXPECT_NE(flood.error().message.find("did not finish"), std::string::npos);

  admission::ExecConfig missing;
  missing.command = "rjg-no-such-plugin";
  missing.install_hint = "Install it with: apt install rjg-plugin";
  Result<std::string> none = run_exec_plugin(missing, "{}", std::chrono::seconds(1));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("not in PATH"), std::string::npos);
  EXPECT_NE(none.error().message.find("apt install rjg-plugin"), std::string::npos);

  admission::ExecConfig not_executable = script(d, "exit 0\n");
  std::filesystem::permissions(not_executable.command, std::filesystem::perms::owner_read);
  Result<std::string> refused = run_exec_plugin(not_executable, "{}", std::chrono::seconds(1));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace rjg::kube
