// ExecCredential encoding and decoding (see exec_credential.hpp).
#include "admission/exec_credential.hpp"

#include <openssl/evp.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "admission/json_reader.hpp"
#include "admission/rayjob_list.hpp"

namespace rjg::admission {
namespace {

std::string base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace

std::string exec_info_json(const ExecConfig& exec, const KubeCluster& cluster,
                           const std::string& ca_pem) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const auto key = [&w](std::string_view k) {
    w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
  };
  const auto str = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  key("apiVersion");
  str(exec.api_version);
  key("kind");
  str("ExecCredential");
  key("spec");
  w.StartObject();
  key("interactive");
  w.Bool(false);
  if (exec.provide_cluster_info) {
    key("cluster");
    w.StartObject();
    key("server");
    str(cluster.server);
    if (!cluster.tls_server_name.empty()) {
      key("tls-server-name");
      str(cluster.tls_server_name);
    }
    if (cluster.insecure_skip_tls_verify) {
      key("insecure-skip-tls-verify");
      w.Bool(true);
    }
    if (!ca_pem.empty()) {
      key("certificate-authority-data");
      str(base64(ca_pem));
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

Result<ExecCredential> decode_exec_credential(std::string_view text,
                                              std::string_view api_version) {
  RJG_ASSIGN_OR_RETURN(const json::Document doc, json::parse(text));
  const json::Path root("ExecCredential");
  RJG_RETURN_IF_ERROR(json::check_object(doc, root));
  std::string kind;
  std::string version;
  RJG_RETURN_IF_ERROR(json::read_string(doc, "kind", root, kind));
  RJG_RETURN_IF_ERROR(json::read_string(doc, "apiVersion", root, version));
  if (kind != "ExecCredential" || version != api_version) {
    return invalid_argument("the exec plugin printed kind \"" + kind + "\", apiVersion \"" +
                            version + "\"; the kubeconfig asks for an ExecCredential of " +
                            std::string(api_version));
  }
  const json::Value* status = json::member(doc, "status");
  const json::Path spath = root.field("status");
  if (status == nullptr) {
    return invalid_argument("the exec plugin's ExecCredential has no status");
  }
  RJG_RETURN_IF_ERROR(json::check_object(*status, spath));
  ExecCredential out;
  RJG_RETURN_IF_ERROR(json::read_string(*status, "token", spath, out.token));
  RJG_RETURN_IF_ERROR(
      json::read_string(*status, "clientCertificateData", spath, out.client_certificate_pem));
  RJG_RETURN_IF_ERROR(json::read_string(*status, "clientKeyData", spath, out.client_key_pem));
  if (out.client_certificate_pem.empty() != out.client_key_pem.empty()) {
    return invalid_argument("the exec plugin returned only one of clientCertificateData and "
                            "clientKeyData; it must return both or neither");
  }
  if (out.token.empty() && out.client_certificate_pem.empty()) {
    return invalid_argument("the exec plugin returned neither a token nor a client certificate "
                            "and key");
  }
  std::optional<std::string> expiry;
  RJG_RETURN_IF_ERROR(json::read_string(*status, "expirationTimestamp", spath, expiry));
  if (expiry) {
    Result<std::int64_t> t = parse_rfc3339(*expiry);
    if (!t) {
      return invalid_argument("ExecCredential.status.expirationTimestamp: " + t.error().message);
    }
    out.expires_unix = t.value();
  }
  return out;
}

}  // namespace rjg::admission
