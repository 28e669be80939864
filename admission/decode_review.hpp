// decode_review: an AdmissionReview admission.k8s.io/v1 request body -> policy::AdmissionRequest
// plus the identifying facts the response and the audit log need. userInfo is read only into
// DecodedReview::username, never into the AdmissionRequest, so the verdict cannot depend on it.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "policy/admission_request.hpp"

namespace rjg::admission {

struct DecodedReview {
  std::string uid;                   // request.uid, echoed in response.uid
  std::string operation;             // request.operation as sent ("CREATE", ...)
  std::string namespace_;            // request.namespace
  std::string name;                  // object.metadata.name, else oldObject's, else request.name
  std::string kind;                  // request.kind.kind
  std::string username;              // request.userInfo.username: audit log only
  bool dry_run = false;              // request.dryRun
  policy::AdmissionRequest request;  // what policy::evaluate sees
};

// Decodes one AdmissionReview body. Errors:
// - kInvalidArgument: not JSON (message with byte offset), duplicate keys, nesting too deep,
//   apiVersion/kind other than admission.k8s.io/v1 AdmissionReview, missing `request`, missing or
//   empty or non-string request.uid, unknown operation, a wrong type at any field read (the message
//   names the JSON path), object null on CREATE/UPDATE, oldObject null on UPDATE.
// - kUnsupported: apiVersion admission.k8s.io/v1beta1 (register admissionReviewVersions ["v1"]).
// A request for anything but the ray.io RayJob main resource decodes with is_rayjob = false and
// its object is not decoded. On DELETE and CONNECT objects are not decoded either (the verdict
// does not read them).
Result<DecodedReview> decode_review(std::string_view body);

}  // namespace rjg::admission
