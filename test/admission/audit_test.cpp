// admission::audit: list pages decoded with every field checked, the join by owner uid, the
// policy results and the quota holds of run_audit, and the three encodings.
#include "admission/audit.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <sstream>
#include <string>

#include "admission/policy_file.hpp"
#include "admission/rayjob_list.hpp"

namespace rjg::admission {
namespace {

constexpr std::int64_t kNow = 1'800'000'000;  // 2027-01-15T08:00:00Z

std::string text_of(const rapidjson::Value& v) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  v.Accept(w);
  return std::string(b.GetString(), b.GetSize());
}

std::string at(std::int64_t seconds) {
  // kNow - offsets used below, written as RFC 3339 (checked by parse_rfc3339 in Setup).
  const std::time_t t = static_cast<std::time_t>(seconds);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// The golden compliant RayJob (admitted by the default policy in tenant-a), renamed, with a uid,
// a creation time and the given status.
std::string rayjob(const std::string& name, const std::string& uid, const std::string& status) {
  std::ifstream in(std::string(RJG_GOLDEN_CASES_DIR) + "/allow-compliant/request.json");
  std::stringstream s;
  s << in.rdbuf();
  rapidjson::Document review;
  review.Parse(s.str().c_str());
  rapidjson::Value& object = review["request"]["object"];
  auto& a = review.GetAllocator();
  rapidjson::Value& meta = object["metadata"];
  meta["name"].SetString(name.c_str(), a);
  meta.RemoveMember("uid");
  meta.AddMember("uid", rapidjson::Value(uid.c_str(), a), a);
  meta.RemoveMember("creationTimestamp");
  meta.AddMember("creationTimestamp", rapidjson::Value(at(kNow - 3 * 3600).c_str(), a), a);
  object.RemoveMember("status");
  std::string out = text_of(object);
  if (!status.empty()) {
    out.pop_back();
    out += ",\"status\":" + status + "}";
  }
  return out;
}

std::string list(const std::string& kind, const std::string& items) {
  return "{\"kind\":\"" + kind + "\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[" + items +
         "]}";
}

std::string owned(const std::string& name, const std::string& uid, const std::string& owner,
                  const std::string& extra = "") {
  return "{\"metadata\":{\"namespace\":\"tenant-a\",\"name\":\"" + name + "\",\"uid\":\"" + uid +
         "\",\"ownerReferences\":[{\"apiVersion\":\"x\",\"kind\":\"X\",\"name\":\"o\",\"uid\":\"" +
         owner + "\"}]}" + extra + "}";
}

std::string pod_body(const std::string& phase, const std::string& cpu, const std::string& mem,
                     const std::string& init_cpu = "0") {
  return ",\"status\":{\"phase\":\"" + phase +
         "\"},\"spec\":{\"initContainers\":[{\"name\":\"i\",\"resources\":{\"requests\":{"
         "\"cpu\":\"" +
         init_cpu + "\"}}}],\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"" +
         cpu + "\",\"memory\":\"" + mem + "\"}}},{\"name\":\"b\"}]}";
}

class Audit : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<LoadedPolicy> p = decode_policy(default_policy_yaml());
    ASSERT_TRUE(p) << p.error().message;
    policy_ = std::move(p.value());
    const std::string held_status = "{\"jobStatus\":\"SUCCEEDED\",\"jobDeploymentStatus\":"
                                    "\"Complete\",\"endTime\":\"" +
                                    at(kNow - 7200) + "\"}";
    const std::string items =
        rayjob("ok", "u-ok", "{\"jobStatus\":\"RUNNING\",\"jobDeploymentStatus\":\"Running\"}") +
        "," + rayjob("held", "u-held", held_status) + "," +
        rayjob("refused", "u-refused",
               "{\"jobDeploymentStatus\":\"ValidationFailed\",\"message\":\"bad spec\"}");
    Result<ListPage<AuditedRayJob>> jobs = decode_audit_rayjobs(list("RayJobList", items));
    ASSERT_TRUE(jobs) << jobs.error().message;
    input_.rayjobs = std::move(jobs.value().items);
    input_.jobs = decode_owned_list(list("JobList", owned("held", "j-1", "u-held") + "," +
                                                        owned("other", "j-2", "u-ok")),
                                    false)
                      .value()
                      .items;
    input_.clusters =
        decode_owned_list(list("RayClusterList", owned("held-rc", "c-1", "u-held")), false)
            .value()
            .items;
    Result<ListPage<OwnedObject>> pods = decode_owned_list(
        list("PodList",
             owned("submitter", "p-1", "j-1", pod_body("Pending", "500m", "1Gi")) + "," +
                 owned("head", "p-2", "c-1", pod_body("Running", "1", "2Gi", "1500m")) + "," +
                 owned("done", "p-3", "j-1", pod_body("Succeeded", "4", "8Gi")) + "," +
                 owned("others", "p-4", "j-2", pod_body("Running", "8", "8Gi"))),
        true);
    ASSERT_TRUE(pods) << pods.error().message;
    input_.pods = std::move(pods.value().items);
  }
  LoadedPolicy policy_;
  AuditInput input_;
};

TEST_F(Audit, JudgesPolicyAndHoldsAndCountsWhatIsHeld) {
  const AuditReport r = run_audit(input_, policy_, kNow, 300);
  EXPECT_EQ(r.pass, 1);  // "ok": running, compliant
  EXPECT_EQ(r.fail, 0);
  EXPECT_EQ(r.warn, 2);
  ASSERT_EQ(r.results.size(), 2u);
  const AuditResult& held = r.results[0];  // sorted by name: held, refused
  EXPECT_EQ(held.name, "held");
  EXPECT_EQ(held.rule, "past-ttl");
  EXPECT_TRUE(held.waste);
  EXPECT_EQ(held.status, "Complete/SUCCEEDED");
  ASSERT_TRUE(held.holds);
  EXPECT_EQ(held.holds->rayjobs, 1);
  EXPECT_EQ(held.holds->jobs, 1);
  EXPECT_EQ(held.holds->pods, 2);  // the pending submitter and the head; not the Succeeded one
  // 500m + the head's max(1, init 1500m)
  EXPECT_EQ(held.holds->requests_cpu.to_string(), "2");
  EXPECT_EQ(held.holds->requests_memory.to_string(), "3Gi");
  EXPECT_EQ(r.results[1].rule, "validation-failed");
  EXPECT_NE(r.results[1].message.find("(bad spec)"), std::string::npos);
  ASSERT_EQ(r.held.count("tenant-a"), 1u);
  EXPECT_EQ(r.held.at("tenant-a").rayjobs, 2);
  EXPECT_EQ(r.held.at("tenant-a").jobs, 1);
  EXPECT_TRUE(r.found());
}

TEST_F(Audit, PolicyViolationsFailWithTheCheckLine) {
  // backoffLimit 10 on the running job: the same [backoff-limit] line check prints.
  Result<ListPage<AuditedRayJob>> jobs = decode_audit_rayjobs(list(
      "RayJobList", [] {
        std::string j = rayjob("ok", "u-ok", "");
        const std::size_t at = j.find("\"backoffLimit\":");
        EXPECT_NE(at, std::string::npos);
        j.replace(at, j.find_first_of(",}", at) - at, "\"backoffLimit\":10");
        return j;
      }()));
  ASSERT_TRUE(jobs) << jobs.error().message;
  AuditInput in;
  in.rayjobs = std::move(jobs.value().items);
  const AuditReport r = run_audit(in, policy_, kNow, 300);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].rule, "backoff-limit");
  EXPECT_EQ(r.results[0].outcome, AuditOutcome::kFail);
  EXPECT_EQ(r.results[0].message.rfind("[backoff-limit] spec.backoffLimit: 10 exceeds", 0), 0u);
  EXPECT_EQ(r.pass, 0);
  EXPECT_EQ(r.fail, 1);
}

TEST_F(Audit, TableJsonAndPolicyReports) {
  const AuditReport r = run_audit(input_, policy_, kNow, 300);
  const std::string table = encode_audit_table(r);
  EXPECT_EQ(table.rfind("NAMESPACE  RAYJOB   RULE               RESULT  STATUS              AGE  "
                        "MESSAGE\n",
                        0),
            0u)
      << table;
  EXPECT_NE(table.find("tenant-a   held     past-ttl           warn    Complete/SUCCEEDED  3h   "
                       "[past-ttl] succeeded 2h ago"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("\npass: 1, fail: 0, warn: 2, error: 0, skip: 0\n"), std::string::npos);
  EXPECT_NE(table.find("tenant-a   2 RayJobs  2                     1                 2     2    "
                       "         3Gi\n"),
            std::string::npos)
      << table;

  rapidjson::Document j;
  j.Parse(encode_audit_reports(r, ReportKind::kOpenReports).c_str());
  ASSERT_FALSE(j.HasParseError());
  EXPECT_STREQ(j["kind"].GetString(), "List");
  ASSERT_EQ(j["items"].Size(), 1u);
  const rapidjson::Value& report = j["items"][0];
  EXPECT_STREQ(report["apiVersion"].GetString(), "openreports.io/v1alpha1");
  EXPECT_STREQ(report["kind"].GetString(), "Report");
  EXPECT_STREQ(report["metadata"]["name"].GetString(), "rayjob-guard-audit");
  EXPECT_STREQ(report["metadata"]["namespace"].GetString(), "tenant-a");
  EXPECT_STREQ(report["metadata"]["labels"]["app.kubernetes.io/managed-by"].GetString(),
               "rayjob-guard");
  EXPECT_STREQ(report["source"].GetString(), "rayjob-guard");
  EXPECT_EQ(report["summary"]["pass"].GetInt(), 1);
  EXPECT_EQ(report["summary"]["warn"].GetInt(), 2);
  ASSERT_EQ(report["results"].Size(), 2u);
  const rapidjson::Value& first = report["results"][0];
  EXPECT_STREQ(first["rule"].GetString(), "past-ttl");
  EXPECT_STREQ(first["category"].GetString(), "waste");
  EXPECT_FALSE(first["scored"].GetBool());
  EXPECT_STREQ(first["resources"][0]["uid"].GetString(), "u-held");
  EXPECT_STREQ(first["properties"]["count/jobs.batch"].GetString(), "1");
  EXPECT_STREQ(first["properties"]["requests.memory"].GetString(), "3Gi");
  EXPECT_EQ(first["timestamp"]["seconds"].GetInt64(), kNow);

  rapidjson::Document p;
  p.Parse(encode_audit_reports(r, ReportKind::kPolicyReport).c_str());
  ASSERT_FALSE(p.HasParseError());
  EXPECT_STREQ(p["kind"].GetString(), "List");
  ASSERT_EQ(p["items"].Size(), 1u);
  EXPECT_STREQ(p["items"][0]["apiVersion"].GetString(), "wgpolicyk8s.io/v1alpha2");
  EXPECT_STREQ(p["items"][0]["kind"].GetString(), "PolicyReport");
  EXPECT_STREQ(p["items"][0]["metadata"]["namespace"].GetString(), "tenant-a");
  EXPECT_FALSE(p["items"][0].HasMember("source"));
  EXPECT_EQ(p["items"][0]["summary"]["pass"].GetInt(), 1);
  EXPECT_EQ(p["items"][0]["results"].Size(), 2u);
}

// A namespace whose RayJobs all pass, and one audit -n named that holds nothing, get a report
// with their passes and no results: it replaces whatever an earlier audit wrote there.
TEST_F(Audit, EveryNamespaceAuditedGetsAReportPassesIncluded) {
  AuditInput in;
  in.rayjobs.push_back(input_.rayjobs[0]);  // "ok" in tenant-a
  AuditReport r = run_audit(in, policy_, kNow, 300);
  r.namespaces.insert("empty");
  const std::vector<NamespaceReport> reports = namespace_reports(r, ReportKind::kOpenReports);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].namespace_, "empty");
  EXPECT_EQ(reports[1].namespace_, "tenant-a");
  for (const auto& [report, pass] : {std::pair{&reports[0], 0}, std::pair{&reports[1], 1}}) {
    rapidjson::Document d;
    d.Parse(report->json.c_str());
    ASSERT_FALSE(d.HasParseError()) << report->json;
    EXPECT_STREQ(d["metadata"]["namespace"].GetString(), report->namespace_.c_str());
    EXPECT_EQ(d["summary"]["pass"].GetInt(), pass) << report->json;
    EXPECT_EQ(d["summary"]["fail"].GetInt() + d["summary"]["warn"].GetInt(), 0);
    EXPECT_EQ(d["results"].Size(), 0u);
  }
  // The List -o json prints holds exactly those objects, in that order.
  EXPECT_EQ(encode_audit_reports(r, ReportKind::kOpenReports),
            R"({"apiVersion":"v1","kind":"List","items":[)" + reports[0].json + "," +
                reports[1].json + "]}");
}

TEST_F(Audit, CleanClusterFindsNothing) {
  AuditInput in;
  in.rayjobs.push_back(input_.rayjobs[0]);  // "ok"
  const AuditReport r = run_audit(in, policy_, kNow, 300);
  EXPECT_FALSE(r.found());
  EXPECT_EQ(encode_audit_table(r),
            "No RayJob breaks the policy or holds quota for nothing.\n\n"
            "pass: 1, fail: 0, warn: 0, error: 0, skip: 0\n");
}

TEST_F(Audit, AnUnreadableRayJobIsAnErrorAndTheRestIsJudged) {
  std::string bad = rayjob("bad", "u-bad", "");
  const std::size_t at = bad.find("\"backoffLimit\":");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, bad.find_first_of(",}", at) - at, "\"backoffLimit\":\"two\"");
  Result<ListPage<AuditedRayJob>> jobs =
      decode_audit_rayjobs(list("RayJobList", bad + "," + rayjob("ok", "u-ok", "")));
  ASSERT_TRUE(jobs) << jobs.error().message;
  AuditInput in;
  in.rayjobs = std::move(jobs.value().items);
  const AuditReport r = run_audit(in, policy_, kNow, 300);
  EXPECT_EQ(r.pass, 1);
  EXPECT_EQ(r.error, 1);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].name, "bad");
  EXPECT_EQ(r.results[0].rule, "decode");
  EXPECT_NE(r.results[0].message.find("items[0].spec.backoffLimit"), std::string::npos)
      << r.results[0].message;
  EXPECT_TRUE(r.found());
}

// `kubectl get rayjobs,jobs,rayclusters,pods -o json`: one List of mixed kinds gives the same
// report as the four lists read from the API.
TEST_F(Audit, AnExportGivesTheSameReportAsTheLists) {
  const auto kinded = [](const std::string& kind, const std::string& item) {
    return "{\"kind\":\"" + kind + "\"," + item.substr(1);
  };
  const std::string held_status = "{\"jobStatus\":\"SUCCEEDED\",\"jobDeploymentStatus\":"
                                  "\"Complete\",\"endTime\":\"" +
                                  at(kNow - 7200) + "\"}";
  const std::string items =
      kinded("Pod", owned("head", "p-2", "c-1", pod_body("Running", "1", "2Gi", "1500m"))) + "," +
      rayjob("ok", "u-ok", "{\"jobStatus\":\"RUNNING\",\"jobDeploymentStatus\":\"Running\"}") +
      "," + kinded("Job", owned("held", "j-1", "u-held")) + "," +
      rayjob("held", "u-held", held_status) + "," +
      kinded("RayCluster", owned("held-rc", "c-1", "u-held")) + "," +
      rayjob("refused", "u-refused",
             "{\"jobDeploymentStatus\":\"ValidationFailed\",\"message\":\"bad spec\"}") +
      "," + kinded("Job", owned("other", "j-2", "u-ok")) + "," +
      kinded("Pod", owned("submitter", "p-1", "j-1", pod_body("Pending", "500m", "1Gi"))) + "," +
      kinded("Pod", owned("done", "p-3", "j-1", pod_body("Succeeded", "4", "8Gi"))) + "," +
      kinded("Pod", owned("others", "p-4", "j-2", pod_body("Running", "8", "8Gi")));
  Result<AuditInput> in = decode_audit_export(list("List", items));
  ASSERT_TRUE(in) << in.error().message;
  EXPECT_EQ(in.value().rayjobs.size(), 3u);
  EXPECT_EQ(in.value().pods.size(), 4u);
  EXPECT_EQ(encode_audit_reports(run_audit(in.value(), policy_, kNow, 300),
                                 ReportKind::kOpenReports),
            encode_audit_reports(run_audit(input_, policy_, kNow, 300), ReportKind::kOpenReports));
  // One typed list is an export too.
  Result<AuditInput> typed =
      decode_audit_export(list("RayJobList", rayjob("ok", "u-ok", "")));
  ASSERT_TRUE(typed) << typed.error().message;
  EXPECT_EQ(typed.value().rayjobs.size(), 1u);
}

TEST(AuditDecode, AnExportOfOtherKindsOrOnePageIsRefused) {
  const auto err = [](const std::string& text) {
    Result<AuditInput> r = decode_audit_export(text);
    return r ? std::string("ok") : r.error().message;
  };
  EXPECT_EQ(err(list("List", "{\"kind\":\"Service\",\"metadata\":{}}")),
            "items[0].kind: \"Service\"; audit reads RayJob, Job, RayCluster and Pod items "
            "(kubectl get rayjobs,jobs,rayclusters,pods -o json)");
  EXPECT_NE(err(list("List", "{\"metadata\":{}}")).find("items[0].kind: missing"),
            std::string::npos);
  EXPECT_NE(err("{\"kind\":\"List\",\"metadata\":{\"continue\":\"abc\"},\"items\":[]}")
                .find("one page of a longer list"),
            std::string::npos);
  EXPECT_NE(err(list("List", "3")).find("items[0]"), std::string::npos);
  EXPECT_EQ(err(list("List", "")), "ok");
}

TEST(AuditDecode, BadInputNamesItsPath) {
  const auto err = [](const std::string& text, bool pods) {
    Result<ListPage<OwnedObject>> r = decode_owned_list(text, pods);
    return r ? std::string("ok") : r.error().message;
  };
  EXPECT_NE(err("[]", false).find("a list object"), std::string::npos);
  EXPECT_NE(err("{\"items\":[{\"metadata\":{\"uid\":3}}]}", false).find("items[0].metadata.uid"),
            std::string::npos);
  EXPECT_NE(err("{\"items\":[{\"metadata\":{},\"spec\":{\"containers\":[{\"resources\":{"
                "\"requests\":{\"cpu\":\"lots\"}}}]}}]}",
                true)
                .find("items[0].spec.containers[0].resources.requests.cpu: \"lots\" is not a "
                      "Kubernetes quantity"),
            std::string::npos);
  EXPECT_EQ(err("{\"metadata\":{}}", false), "items: required array is missing");
  EXPECT_NE(err("{\"items\":[", false), "ok");
  Result<ListPage<AuditedRayJob>> r = decode_audit_rayjobs(list("PodList", ""));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("RayJobList"), std::string::npos);
}

}  // namespace
}  // namespace rjg::admission
