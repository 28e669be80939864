// Tests admission/decode_review: one test per malformed-input class, each asserting the
// ErrorCode and the JSON path in the message.
#include "admission/decode_review.hpp"

#include <gtest/gtest.h>

#include "review_fixture.hpp"

namespace rjg::admission {
namespace {

using testing::compliant_object_json;
using testing::replace_once;
using testing::review_json;

void expect_error(const std::string& body, ErrorCode code, const std::string& in_message) {
  Result<DecodedReview> r = decode_review(body);
  ASSERT_FALSE(r.ok()) << "decoded: " << body.substr(0, 200);
  EXPECT_EQ(r.error().code, code) << r.error().message;
  EXPECT_NE(r.error().message.find(in_message), std::string::npos)
      << "message: " << r.error().message << "\nexpected to contain: " << in_message;
}

TEST(DecodeReview, CompliantCreateDecodes) {
  Result<DecodedReview> r = decode_review(review_json(compliant_object_json()));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const DecodedReview& d = r.value();
  EXPECT_EQ(d.uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
  EXPECT_EQ(d.operation, "CREATE");
  EXPECT_EQ(d.namespace_, "tenant-a");
  EXPECT_EQ(d.name, "sample-job");
  EXPECT_EQ(d.kind, "RayJob");
  EXPECT_EQ(d.username, "alice");
  EXPECT_FALSE(d.dry_run);
  ASSERT_TRUE(d.request.is_rayjob);
  ASSERT_TRUE(d.request.object.has_value());
  const policy::RayJob& job = *d.request.object;
  EXPECT_EQ(job.spec.backoff_limit, 0);
  EXPECT_EQ(job.spec.active_deadline_seconds, 3600);
  ASSERT_TRUE(job.spec.deletion_strategy && job.spec.deletion_strategy->deletion_rules);
  EXPECT_EQ(job.spec.deletion_strategy->deletion_rules->size(), 3u);
  EXPECT_EQ((*job.spec.deletion_strategy->deletion_rules)[2].job_deployment_status, "Failed");
  ASSERT_TRUE(job.spec.ray_cluster_spec);
  EXPECT_EQ(job.spec.ray_cluster_spec->worker_groups.at(0).replicas, 2);
  EXPECT_EQ(job.spec.ray_cluster_spec->head.pod_template.containers.at(0).requests->at("memory"),
            "2Gi");
  EXPECT_FALSE(d.request.old_object.has_value());
}

TEST(DecodeReview, NotJson) {
  expect_error("this is not json", ErrorCode::kInvalidArgument, "not valid JSON");
}

TEST(DecodeReview, Truncated) {
  const std::string body = review_json(compliant_object_json());
  expect_error(body.substr(0, body.size() / 2), ErrorCode::kInvalidArgument, "not valid JSON");
}

TEST(DecodeReview, DeepNesting) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  expect_error(
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":)" + deep + "}",
      ErrorCode::kInvalidArgument, "nesting deeper than");
}

TEST(DecodeReview, WrongApiVersion) {
  expect_error(replace_once(review_json(compliant_object_json()), "admission.k8s.io/v1", "apps/v1"),
               ErrorCode::kInvalidArgument, "apiVersion: expected \"admission.k8s.io/v1\"");
}

TEST(DecodeReview, V1beta1IsUnsupported) {
  expect_error(replace_once(review_json(compliant_object_json()), "admission.k8s.io/v1",
                            "admission.k8s.io/v1beta1"),
               ErrorCode::kUnsupported, "admissionReviewVersions");
}

TEST(DecodeReview, WrongKind) {
  expect_error(replace_once(review_json(compliant_object_json()), "\"AdmissionReview\"",
                            "\"AdmissionResponse\""),
               ErrorCode::kInvalidArgument, "kind: expected \"AdmissionReview\"");
}

TEST(DecodeReview, NotAnObject) {
  expect_error("[1,2]", ErrorCode::kInvalidArgument, "expected an AdmissionReview object");
}

TEST(DecodeReview, MissingRequest) {
  expect_error(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})",
               ErrorCode::kInvalidArgument, "request: required");
}

TEST(DecodeReview, MissingUid) {
  expect_error(replace_once(review_json(compliant_object_json()),
                            R"("uid":"705ab4f5-6393-11e8-b7cc-42010a800002",)", ""),
               ErrorCode::kInvalidArgument, "request.uid: required");
}

TEST(DecodeReview, EmptyUid) {
  expect_error(review_json(compliant_object_json(), "CREATE", "null", ""),
               ErrorCode::kInvalidArgument, "request.uid: must not be empty");
}

TEST(DecodeReview, UidNotAString) {
  expect_error(replace_once(review_json(compliant_object_json()),
                            R"("705ab4f5-6393-11e8-b7cc-42010a800002")", "42"),
               ErrorCode::kInvalidArgument, "request.uid: expected a string, got number");
}

TEST(DecodeReview, UnknownOperation) {
  expect_error(review_json(compliant_object_json(), "PATCH"), ErrorCode::kInvalidArgument,
               "request.operation: expected CREATE, UPDATE, DELETE or CONNECT");
}

TEST(DecodeReview, DuplicateKeys) {
  expect_error(replace_once(review_json(compliant_object_json()), R"("backoffLimit":0,)",
                            R"("backoffLimit":0,"backoffLimit":9,)"),
               ErrorCode::kInvalidArgument, "request.object.spec: duplicate key \"backoffLimit\"");
}

TEST(DecodeReview, ObjectNullOnCreate) {
  expect_error(review_json("null"), ErrorCode::kInvalidArgument,
               "request.object: required on CREATE");
}

TEST(DecodeReview, OldObjectNullOnUpdate) {
  expect_error(review_json(compliant_object_json(), "UPDATE", "null"), ErrorCode::kInvalidArgument,
               "request.oldObject: required on UPDATE");
}

TEST(DecodeReview, ObjectNotAnObject) {
  expect_error(review_json("\"a string\""), ErrorCode::kInvalidArgument,
               "request.object: expected an object, got string");
}

TEST(DecodeReview, DryRunNotABool) {
  expect_error(replace_once(review_json(compliant_object_json()), R"("dryRun":false)",
                            R"("dryRun":"false")"),
               ErrorCode::kInvalidArgument, "request.dryRun: expected a boolean, got string");
}

TEST(DecodeReview, UsernameNotAString) {
  expect_error(review_json(compliant_object_json(), "CREATE", "null", "u1", R"({"username":7})"),
               ErrorCode::kInvalidArgument, "request.userInfo.username: expected a string");
}

TEST(DecodeReview, NonRayJobKindIsAllowedWithoutDecodingTheObject) {
  // The object would fail RayJob decoding (backoffLimit is a string), but a ConfigMap is never
  // decoded as a RayJob.
  std::string body =
      replace_once(review_json(R"({"metadata":{"name":"cm"},"spec":{"backoffLimit":"x"}})"),
                   R"("kind":{"group":"ray.io","version":"v1","kind":"RayJob"})",
                   R"("kind":{"group":"","version":"v1","kind":"ConfigMap"})");
  Result<DecodedReview> r = decode_review(body);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r.value().request.is_rayjob);
  EXPECT_FALSE(r.value().request.object.has_value());
  EXPECT_EQ(r.value().name, "cm");
}

TEST(DecodeReview, StatusSubresourceIsNotTheRayJob) {
  std::string body =
      replace_once(review_json(compliant_object_json()), R"("name":"sample-job","namespace")",
                   R"("subResource":"status","name":"sample-job","namespace")");
  Result<DecodedReview> r = decode_review(body);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r.value().request.is_rayjob);
}

TEST(DecodeReview, DeleteNeedsNoObject) {
  Result<DecodedReview> r =
      decode_review(review_json("null", "DELETE", compliant_object_json("gone")));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().name, "gone");
  EXPECT_FALSE(r.value().request.object.has_value());
}

TEST(DecodeReview, NameFallsBackToRequestName) {
  std::string obj = replace_once(compliant_object_json(), R"("name":"sample-job",)", "");
  Result<DecodedReview> r = decode_review(review_json(obj));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().name, "sample-job");
}

TEST(DecodeReview, UserInfoNeverReachesTheRequest) {
  // Structural: AdmissionRequest has no identity field; the username only lands in DecodedReview.
  Result<DecodedReview> a = decode_review(
      review_json(compliant_object_json(), "CREATE", "null", "u1", R"({"username":"notebook"})"));
  Result<DecodedReview> b = decode_review(review_json(compliant_object_json(), "CREATE", "null",
                                                      "u1", R"({"username":"api","groups":[]})"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a.value().username, b.value().username);
  EXPECT_EQ(a.value().request.object->spec.backoff_limit,
            b.value().request.object->spec.backoff_limit);
}

// Every field the rules read, given the wrong JSON type, is rejected with its path.
struct WrongType {
  const char* from;
  const char* to;
  const char* path;
};

class DecodeReviewWrongType : public ::testing::TestWithParam<WrongType> {};

TEST_P(DecodeReviewWrongType, NamesThePath) {
  const WrongType& c = GetParam();
  const std::string body = review_json(replace_once(compliant_object_json(), c.from, c.to));
  Result<DecodedReview> r = decode_review(body);
  ASSERT_FALSE(r.ok()) << c.path;
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().message.rfind(c.path, 0), 0u) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Fields, DecodeReviewWrongType,
    ::testing::Values(
        WrongType{R"("name":"sample-job")", R"("name":1)", "request.object.metadata.name:"},
        WrongType{R"("namespace":"tenant-a")", R"("namespace":[])",
                  "request.object.metadata.namespace:"},
        WrongType{R"("labels":{"app":"sample"})", R"("labels":{"app":true})",
                  "request.object.metadata.labels.app:"},
        WrongType{R"("labels":{"app":"sample"})", R"("annotations":"x")",
                  "request.object.metadata.annotations:"},
        WrongType{R"("entrypoint":"python)", R"("entrypoint":5,"x":"python)",
                  "request.object.spec.entrypoint:"},
        WrongType{R"("submissionMode":"K8sJobMode")", R"("submissionMode":{})",
                  "request.object.spec.submissionMode:"},
        WrongType{R"("shutdownAfterJobFinishes":false)", R"("shutdownAfterJobFinishes":"false")",
                  "request.object.spec.shutdownAfterJobFinishes:"},
        WrongType{R"("ttlSecondsAfterFinished":0)", R"("ttlSecondsAfterFinished":"0")",
                  "request.object.spec.ttlSecondsAfterFinished:"},
        WrongType{R"("ttlSecondsAfterFinished":0)", R"("ttlSecondsAfterFinished":2147483648)",
                  "request.object.spec.ttlSecondsAfterFinished:"},
        WrongType{R"("backoffLimit":0)", R"("backoffLimit":"0")",
                  "request.object.spec.backoffLimit:"},
        WrongType{R"("backoffLimit":0)", R"("backoffLimit":0.5)",
                  "request.object.spec.backoffLimit:"},
        WrongType{R"("activeDeadlineSeconds":3600)", R"("activeDeadlineSeconds":true)",
                  "request.object.spec.activeDeadlineSeconds:"},
        WrongType{R"("activeDeadlineSeconds":3600)", R"("activeDeadlineSeconds":1e20)",
                  "request.object.spec.activeDeadlineSeconds:"},
        WrongType{R"("activeDeadlineSeconds":3600)",
                  R"("activeDeadlineSeconds":3600,"suspend":"no")", "request.object.spec.suspend:"},
        WrongType{R"("activeDeadlineSeconds":3600)",
                  R"("activeDeadlineSeconds":3600,"clusterSelector":{"ray.io/cluster":1})",
                  "request.object.spec.clusterSelector.ray.io/cluster:"},
        WrongType{R"("activeDeadlineSeconds":3600)",
                  R"("activeDeadlineSeconds":3600,"runtimeEnvYAML":{"pip":[]})",
                  "request.object.spec.runtimeEnvYAML:"},
        WrongType{R"("activeDeadlineSeconds":3600)",
                  R"("activeDeadlineSeconds":3600,"submitterConfig":{"backoffLimit":"2"})",
                  "request.object.spec.submitterConfig.backoffLimit:"},
        WrongType{R"("activeDeadlineSeconds":3600)",
                  R"("activeDeadlineSeconds":3600,"submitterPodTemplate":[])",
                  "request.object.spec.submitterPodTemplate:"},
        WrongType{R"("activeDeadlineSeconds":3600)",
                  R"("activeDeadlineSeconds":3600,"deletionPolicy":7)",
                  "request.object.spec.deletionPolicy:"},
        WrongType{R"("activeDeadlineSeconds":3600)",
                  R"("activeDeadlineSeconds":3600,"managedBy":false)",
                  "request.object.spec.managedBy:"},
        WrongType{
            R"("policy":"DeleteSelf","condition":{"jobStatus":"SUCCEEDED","ttlSeconds":60})",
            R"("policy":"DeleteSelf","condition":{"jobStatus":"SUCCEEDED","ttlSeconds":"60"})",
            "request.object.spec.deletionStrategy.deletionRules[0].condition.ttlSeconds:"},
        WrongType{R"("policy":"DeleteSelf","condition":{"jobStatus":"SUCCEEDED")",
                  R"("policy":1,"condition":{"jobStatus":"SUCCEEDED")",
                  "request.object.spec.deletionStrategy.deletionRules[0].policy:"},
        WrongType{R"("deletionRules":[)", R"("onSuccess":"x","deletionRules":[)",
                  "request.object.spec.deletionStrategy.onSuccess:"},
        WrongType{R"("rayVersion":"2.52.0")", R"("rayVersion":2.52)",
                  "request.object.spec.rayClusterSpec.rayVersion:"},
        WrongType{R"("headGroupSpec":{)", R"("enableInTreeAutoscaling":"true","headGroupSpec":{)",
                  "request.object.spec.rayClusterSpec.enableInTreeAutoscaling:"},
        WrongType{
            R"("rayStartParams":{},"template":{"spec":{"containers":[{"name":"ray-head")",
            R"("rayStartParams":{},"template":{"spec":{"containers":"ray-head","x":[{"name":"ray-head")",
            "request.object.spec.rayClusterSpec.headGroupSpec.template.spec.containers:"},
        WrongType{R"("replicas":2)", R"("replicas":"2")",
                  "request.object.spec.rayClusterSpec.workerGroupSpecs[0].replicas:"},
        WrongType{R"("maxReplicas":2)", R"("maxReplicas":-2147483649)",
                  "request.object.spec.rayClusterSpec.workerGroupSpecs[0].maxReplicas:"},
        WrongType{R"("numOfHosts":1)", R"("numOfHosts":1.0)",
                  "request.object.spec.rayClusterSpec.workerGroupSpecs[0].numOfHosts:"},
        WrongType{R"("groupName":"small-group")", R"("groupName":["small-group"])",
                  "request.object.spec.rayClusterSpec.workerGroupSpecs[0].groupName:"},
        WrongType{R"("cpu":"2")", R"("cpu":true)",
                  "request.object.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers["
                  "0].resources.requests.cpu:"},
        WrongType{R"("cpu":"2")", R"("cpu":0.5)",
                  "request.object.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers["
                  "0].resources.requests.cpu:"},
        WrongType{
            R"("image":"123)", R"("image":123,"x":"123)",
            "request.object.spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].image:"},
        WrongType{R"("workerGroupSpecs":[)", R"("workerGroupSpecs":[7,)",
                  "request.object.spec.rayClusterSpec.workerGroupSpecs[0]:"}));

TEST(DecodeReview, NullOptionalFieldIsAbsent) {
  // A JSON null in an optional field is treated as absent (the WrongType table's minReplicas row
  // only checks this decodes; here we check the value).
  const std::string body = review_json(
      replace_once(compliant_object_json(), R"("minReplicas":2)", R"("minReplicas":null)"));
  Result<DecodedReview> r = decode_review(body);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r.value().request.object->spec.ray_cluster_spec->worker_groups[0].min_replicas);
}

TEST(DecodeReview, IntegerQuantitiesAreAccepted) {
  const std::string body =
      review_json(replace_once(compliant_object_json(), R"("cpu":"2")", R"("cpu":2)"));
  Result<DecodedReview> r = decode_review(body);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value()
                .request.object->spec.ray_cluster_spec->worker_groups[0]
                .pod_template.containers[0]
                .requests->at("cpu"),
            "2");
}

}  // namespace
}  // namespace rjg::admission
