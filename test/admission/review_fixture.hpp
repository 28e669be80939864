// Test fixtures: a compliant RayJob as JSON (what the apiserver sends after CRD defaulting) and
// an AdmissionReview around it, with named knobs so each malformed-input test changes one thing.
#pragma once

#include <string>

namespace rjg::admission::testing {

inline std::string compliant_object_json(const std::string& name = "sample-job") {
  const std::string image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.52.0-py310";
  auto container = [&](const char* cname, const char* cpu, const char* mem) {
    return std::string(R"({"name":")") + cname + R"(","image":")" + image +
           R"(","resources":{"requests":{"cpu":")" + cpu + R"(","memory":")" + mem +
           R"("},"limits":{"cpu":")" + cpu + R"(","memory":")" + mem + R"("}}})";
  };
  return R"({"apiVersion":"ray.io/v1","kind":"RayJob","metadata":{"name":")" + name +
         R"(","namespace":"tenant-a","labels":{"app":"sample"}},"spec":{)"
         R"("entrypoint":"python /home/ray/samples/sample_code.py","submissionMode":"K8sJobMode",)"
         R"("shutdownAfterJobFinishes":false,"ttlSecondsAfterFinished":0,"backoffLimit":0,)"
         R"("activeDeadlineSeconds":3600,"deletionStrategy":{"deletionRules":[)"
         R"({"policy":"DeleteSelf","condition":{"jobStatus":"SUCCEEDED","ttlSeconds":60}},)"
         R"({"policy":"DeleteSelf","condition":{"jobStatus":"FAILED","ttlSeconds":7200}},)"
         R"({"policy":"DeleteSelf","condition":{"jobDeploymentStatus":"Failed","ttlSeconds":7200}}]},)"
         R"("rayClusterSpec":{"rayVersion":"2.52.0","headGroupSpec":{"rayStartParams":{},"template":{"spec":{"containers":[)" +
         container("ray-head", "1", "2Gi") +
         R"(]}}},"workerGroupSpecs":[{"groupName":"small-group","replicas":2,"minReplicas":2,"maxReplicas":2,"numOfHosts":1,"rayStartParams":{},"template":{"spec":{"containers":[)" +
         container("ray-worker", "2", "4Gi") + R"(]}}}]}}})";
}

inline std::string review_json(
    const std::string& object, const std::string& operation = "CREATE",
    const std::string& old_object = "null",
    const std::string& uid = "705ab4f5-6393-11e8-b7cc-42010a800002",
    const std::string& user_info = R"({"username":"alice","groups":["system:authenticated"]})") {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":")" +
         uid +
         R"(","kind":{"group":"ray.io","version":"v1","kind":"RayJob"},)"
         R"("resource":{"group":"ray.io","version":"v1","resource":"rayjobs"},)"
         R"("name":"sample-job","namespace":"tenant-a","operation":")" +
         operation + R"(","userInfo":)" + user_info + R"(,"object":)" + object +
         R"(,"oldObject":)" + old_object + R"(,"dryRun":false,"options":null}})";
}

// Replaces the first occurrence of `from` in `text` by `to` (the test fails loudly if absent).
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) {
    return "<replace_once: pattern not found: " + from + ">";
  }
  text.replace(at, from.size(), to);
  return text;
}

}  // namespace rjg::admission::testing
