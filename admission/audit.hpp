// audit: the library path of `rayjob-guard audit`. The RayJobs stored in a cluster, and the Jobs,
// RayClusters and Pods they own, as listed from the API -> one report: (a) what the policy would
// deny or warn about each RayJob if it were created now, for the rollout from warn to enforce;
// (b) which RayJobs hold quota that nothing will free (policy::decide_quota_hold), with what each
// holds and the namespace totals. Decoding, the join and the encodings live here; the API calls
// and the exit status are the command's (cli/audit_command.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "admission/json_reader.hpp"
#include "admission/policy_file.hpp"
#include "common/result.hpp"
#include "policy/quantity.hpp"
#include "policy/rayjob.hpp"
#include "policy/reap_decision.hpp"

namespace rjg::admission {

// One listed RayJob: its spec through the policy model, its status and metadata as the reaper
// reads them, and when it was created.
struct AuditedRayJob {
  policy::RayJob job;
  policy::ReapCandidate status;
  std::optional<std::int64_t> created;  // metadata.creationTimestamp, seconds since the epoch
  // Why `job` could not be read (a field of the wrong type, naming its path), or "". Such a
  // RayJob is reported as an `error` result instead of failing the whole audit.
  std::string decode_error;
};

// One listed Job, RayCluster or Pod: who owns it and, for a Pod, whether quota counts its
// requests and what they are (the effective requests: the larger of the containers' sum and
// the largest init container, per resource, as the quota evaluator counts them).
struct OwnedObject {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::vector<std::string> owner_uids;  // metadata.ownerReferences[].uid
  bool counts_compute = true;           // a Pod not Succeeded or Failed
  policy::Quantity requests_cpu;
  policy::Quantity requests_memory;
};

template <typename T>
struct ListPage {
  std::vector<T> items;
  std::string continue_token;  // metadata.continue; empty on the last page
};

// Decodes one RayJobList page. Returns kInvalidArgument naming the JSON path, like
// decode_rayjob_list, for anything that is not a RayJobList whose items have the metadata and
// status the reaper reads; a spec the policy model cannot read sets that item's decode_error.
Result<ListPage<AuditedRayJob>> decode_audit_rayjobs(std::string_view text);

// Decodes one page of any list (JobList, RayClusterList, PodList): metadata and owners of every
// item; for Pods (`pods` true) status.phase and the containers' resources.requests cpu and
// memory. Returns kInvalidArgument naming the JSON path for a wrong type or a bad quantity.
Result<ListPage<OwnedObject>> decode_owned_list(std::string_view text, bool pods);

// What one RayJob holds: itself, its submitter Jobs, and the compute Pods of those Jobs and of
// its RayClusters.
struct Holding {
  long long rayjobs = 0;  // count/rayjobs.ray.io
  long long jobs = 0;     // count/jobs.batch
  long long pods = 0;     // Pods quota counts compute for (not Succeeded or Failed)
  policy::Quantity requests_cpu;
  policy::Quantity requests_memory;
  Holding& operator+=(const Holding& other);
};

enum class AuditOutcome { kFail, kWarn, kError };

// One line of the report: about a RayJob, or (operator_drift) about another object.
struct AuditResult {
  std::string api_version = "ray.io/v1";
  std::string kind = "RayJob";
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string rule;      // a rule id, a hold id (policy::hold_kind_id) or "decode" (an error)
  AuditOutcome outcome = AuditOutcome::kWarn;
  bool waste = false;    // a quota hold (category waste) rather than a policy result
  std::string field;     // the finding's field path; empty for holds
  std::string message;   // "[rule] field: what; what to do" for findings, the hold's message
  std::string status;    // "Complete/SUCCEEDED", "ValidationFailed", "-" when none
  std::optional<std::int64_t> age_seconds;  // since creation
  std::optional<Holding> holds;             // for waste results
};

struct AuditReport {
  std::int64_t now = 0;
  int pass = 0;  // RayJobs with no result
  std::map<std::string, int> pass_by_namespace;
  // Every namespace the audit looked at: those holding a RayJob or a result, and the one
  // `audit -n` names even when it holds nothing. Each gets a report, passes included, so a
  // report written there before is replaced rather than left stale.
  std::set<std::string> namespaces;
  int fail = 0;
  int warn = 0;
  int error = 0;
  std::vector<AuditResult> results;  // by namespace, then name, then rule order
  // Per namespace, what the RayJobs holding quota for nothing hold together (`rayjobs` counts
  // them).
  std::map<std::string, Holding> held;
  bool found() const { return fail + warn + error > 0; }
};

struct AuditInput {
  std::vector<AuditedRayJob> rayjobs;
  std::vector<OwnedObject> jobs;
  std::vector<OwnedObject> clusters;
  std::vector<OwnedObject> pods;
};

// Decodes what `kubectl get rayjobs,jobs,rayclusters,pods -o json` prints (a List, or one typed
// list) into the audit's input, each item by its kind, as the list decoders above read it.
// Returns kInvalidArgument naming the JSON path for an item of another kind, for a list with a
// continue token (one page of a longer list: the rest would be missing), or for what those
// decoders refuse. Jobs, RayClusters and Pods the text lacks are absent for run_audit.
Result<AuditInput> decode_audit_export(std::string_view text);

// Judges every RayJob of `input` under `policy` at `now` (seconds since the epoch) with
// `grace_seconds` past the TTL bounds. Each RayJob is evaluated as a CREATE in its namespace
// (denials fail, warnings warn) and by policy::decide_quota_hold (a hold warns, with its
// Holding); one with a decode_error gets one `error` result, rule "decode". Never fails.
AuditReport run_audit(const AuditInput& input, const LoadedPolicy& policy, std::int64_t now,
                      std::int64_t grace_seconds);

// Adds results about other objects than RayJobs (operator_drift) to `report`, counted and
// ordered like the others.
void add_results(AuditReport& report, std::vector<AuditResult> results);

// A report for people: NAMESPACE RAYJOB RULE RESULT STATUS AGE MESSAGE (an object that is not a
// RayJob is named kind/name there), the summary line
// "pass: N, fail: N, warn: N, error: N, skip: 0", then the held-quota totals per namespace.
std::string encode_audit_table(const AuditReport& report);
// The report kinds audit writes, one object per namespace in both:
//   kOpenReports   openreports.io/v1alpha1 Report (source rayjob-guard)
//   kPolicyReport  wgpolicyk8s.io/v1alpha2 PolicyReport
enum class ReportKind { kOpenReports, kPolicyReport };

// Every report object is called kReportName, in its namespace, and carries the label
// kReportLabel=kReportLabelValue, so the next audit finds and replaces it.
inline constexpr std::string_view kReportName = "rayjob-guard-audit";
inline constexpr std::string_view kReportLabel = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kReportLabelValue = "rayjob-guard";

struct NamespaceReport {
  std::string namespace_;
  std::string json;  // one report object, compact JSON
};

// One report per namespace of report.namespaces, in name order: its summary (passes counted)
// and its results; a namespace whose RayJobs all pass gets one with no results.
std::vector<NamespaceReport> namespace_reports(const AuditReport& report, ReportKind kind);

// Those reports as one v1 List, compact JSON (what -o json and -o policyreport print).
std::string encode_audit_reports(const AuditReport& report, ReportKind kind);

}  // namespace rjg::admission
