// The exec plugin exchange: KUBERNETES_EXEC_INFO, and the ExecCredential a plugin prints.
#include "admission/exec_credential.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rjg::admission {
namespace {

constexpr const char* kV1 = "client.authentication.k8s.io/v1";

TEST(ExecCredential, DecodesTokenCertificateAndExpiry) {
  Result<ExecCredential> c = decode_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
      R"("status":{"token":"t","expirationTimestamp":"2026-12-04T10:00:00Z"}})",
      kV1);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().token, "t");
  EXPECT_EQ(c.value().expires_unix, 1796378400);
  Result<ExecCredential> cert = decode_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
      R"("status":{"clientCertificateData":"C","clientKeyData":"K"}})",
      kV1);
  ASSERT_TRUE(cert.ok()) << cert.error().message;
  EXPECT_EQ(cert.value().client_certificate_pem, "C");
  EXPECT_EQ(cert.value().client_key_pem, "K");
  EXPECT_FALSE(cert.value().expires_unix);
}

TEST(ExecCredential, Refuses) {
  const std::string head =
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not valid JSON"},
      {"[]", "expected an object"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",)"
       R"("status":{"token":"t"}})",
       "asks for an ExecCredential of client.authentication.k8s.io/v1"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Secret"})", "kind \"Secret\""},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})",
       "has no status"},
      {head + R"("status":{}})", "neither a token nor a client certificate"},
      {head + R"("status":{"clientCertificateData":"C"}})", "only one of"},
      {head + R"("status":{"token":"t","expirationTimestamp":"tomorrow"}})",
       "expirationTimestamp"},
      {head + R"("status":{"token":1}})", "status.token"},
  };
  for (const auto& [text, want] : cases) {
    SCOPED_TRACE(text);
    Result<ExecCredential> c = decode_exec_credential(text, kV1);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(c.error().message.find(want), std::string::npos) << c.error().message;
  }
}

TEST(ExecCredential, ExecInfo) {
  ExecConfig e;
  e.api_version = kV1;
  KubeCluster k;
  k.server = "https://h:6443";
  k.tls_server_name = "api";
  EXPECT_EQ(exec_info_json(e, k, "PEM\n"),
            R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
            R"("spec":{"interactive":false}})");
  e.provide_cluster_info = true;
  EXPECT_EQ(exec_info_json(e, k, "PEM\n"),
            R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
            R"("spec":{"interactive":false,"cluster":{"server":"https://h:6443",)"
            R"("tls-server-name":"api","certificate-authority-data":"UEVNCg=="}}})");
}

}  // namespace
}  // namespace rjg::admission
