// Fuzz target: admission::review, the whole POST /validate path (decode -> evaluate -> encode)
// with the built-in default policy. Checked for every input:
// - an error is kInvalidArgument or kUnsupported with a message, never kInternal;
// - a response is one JSON object, admission.k8s.io/v1 AdmissionReview, response.uid equal to the
//   summary's uid (which is request.uid), response.allowed a boolean equal to the summary's,
//   no patch/patchType, and a denial carries status.code and status.message;
// - the same input gives the same body again (verdicts are pure).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "admission/policy_file.hpp"
#include "admission/review.hpp"
#include "common/result.hpp"
#include "fuzz/default_policy.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using rjg::fuzz::default_policy;

const rapidjson::Value* get(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) {
    return nullptr;
  }
  const auto it = obj.FindMember(key);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

bool is_string(const rapidjson::Value* v, std::string_view want) {
  return v != nullptr && v->IsString() &&
         std::string_view(v->GetString(), v->GetStringLength()) == want;
}

void check_response(const rjg::admission::ReviewResult& result) {
  rapidjson::Document doc;
  doc.Parse(result.body.data(), result.body.size());
  FUZZ_CHECK(!doc.HasParseError());
  FUZZ_CHECK(doc.IsObject());
  FUZZ_CHECK(is_string(get(doc, "apiVersion"), "admission.k8s.io/v1"));
  FUZZ_CHECK(is_string(get(doc, "kind"), "AdmissionReview"));
  const rapidjson::Value* response = get(doc, "response");
  FUZZ_CHECK(response != nullptr && response->IsObject());
  FUZZ_CHECK(!result.summary.uid.empty());
  FUZZ_CHECK(is_string(get(*response, "uid"), result.summary.uid));
  const rapidjson::Value* allowed = get(*response, "allowed");
  FUZZ_CHECK(allowed != nullptr && allowed->IsBool());
  FUZZ_CHECK(allowed->GetBool() == result.summary.allowed);
  FUZZ_CHECK(get(*response, "patch") == nullptr && get(*response, "patchType") == nullptr);
  if (!result.summary.allowed) {
    const rapidjson::Value* status = get(*response, "status");
    FUZZ_CHECK(status != nullptr && status->IsObject());
    const rapidjson::Value* code = get(*status, "code");
    FUZZ_CHECK(code != nullptr && code->IsInt() && code->GetInt() >= 400);
    const rapidjson::Value* message = get(*status, "message");
    FUZZ_CHECK(message != nullptr && message->IsString() && message->GetStringLength() > 0);
    FUZZ_CHECK(!result.summary.denied_rules.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const auto& policy = default_policy();
  const auto result = rjg::admission::review(body, policy);
  if (!result.ok()) {
    FUZZ_CHECK(result.error().code == rjg::ErrorCode::kInvalidArgument ||
               result.error().code == rjg::ErrorCode::kUnsupported);
    FUZZ_CHECK(!result.error().message.empty());
    return 0;
  }
  check_response(result.value());
  const auto again = rjg::admission::review(body, policy);
  FUZZ_CHECK(again.ok() && again.value().body == result.value().body);
  return 0;
}
