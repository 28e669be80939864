// Listed objects -> judged RayJobs -> a report. Decoding checks every field it reads; the join
// follows ownerReferences by uid (RayJob -> Job and RayCluster -> Pod), as the garbage collector
// does.
#include "admission/audit.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "admission/decode_rayjob.hpp"
#include "admission/finding_format.hpp"
#include "admission/json_reader.hpp"
#include "admission/rayjob_list.hpp"
#include "common/ascii.hpp"
#include "common/visible_text.hpp"
#include "policy/evaluate.hpp"
#include "policy/quota_hold.hpp"

namespace rjg::admission {
namespace {

using json::Path;
using json::Value;

// One page of T: decode_list_page, each item appended by `each(item, path, page)`.
template <typename T, typename Each>
Result<ListPage<T>> decode_list(std::string_view text, std::string_view kind, Each each) {
  ListPage<T> page;
  Result<std::string> token = decode_list_page(
      text, kind, [&](const Value& item, const Path& path) { return each(item, path, page); });
  if (!token) {
    return token.error();
  }
  page.continue_token = std::move(token.value());
  return page;
}

// Adds the requests.cpu / requests.memory of each container of `spec.<key>` to the sums, or,
// for init containers (`largest`), keeps the largest.
Status add_requests(const Value& spec, std::string_view key, const Path& path, bool largest,
                    policy::Quantity& cpu, policy::Quantity& memory) {
  Result<const Value*> list = json::read_array(spec, key, path);
  if (!list) {
    return list.error();
  }
  if (list.value() == nullptr) {
    return {};
  }
  const Path lpath = path.field(key);
  for (rapidjson::SizeType i = 0; i < list.value()->Size(); ++i) {
    const Value& c = (*list.value())[i];
    const Path cpath = lpath.index(i);
    if (!c.IsObject()) {
      return json::type_error(cpath, "an object", c);
    }
    Result<const Value*> res = json::read_object(c, "resources", cpath);
    if (!res) {
      return res.error();
    }
    if (res.value() == nullptr) {
      continue;
    }
    const Path rpath = cpath.field("resources");
    Result<const Value*> req = json::read_object(*res.value(), "requests", rpath);
    if (!req) {
      return req.error();
    }
    if (req.value() == nullptr) {
      continue;
    }
    const Path requests = rpath.field("requests");
    for (const auto& [name, into] : {std::pair{"cpu", &cpu}, std::pair{"memory", &memory}}) {
      std::optional<std::string> text;
      RJG_RETURN_IF_ERROR(json::read_string(*req.value(), name, requests, text));
      if (!text) {
        continue;
      }
      std::optional<policy::Quantity> q = policy::Quantity::parse(*text);
      if (!q) {
        return invalid_argument(requests.field(name).str() + ": \"" + *text +
                                "\" is not a Kubernetes quantity");
      }
      *into = largest ? std::max(*into, *q) : *into + *q;
    }
  }
  return {};
}

// One RayJob item of a list, appended to `into`: its status as the reaper reads it, its spec
// as the policy model reads it (a spec it cannot read sets decode_error), its creation time.
Status decode_audited(const Value& item, const Path& path, std::vector<AuditedRayJob>& into) {
  policy::ReapCandidate status;
  RJG_RETURN_IF_ERROR(decode_reap_candidate(item, path, status));
  Result<policy::RayJob> job = decode_rayjob(item, path);
  AuditedRayJob a{job ? std::move(job.value()) : policy::RayJob{}, std::move(status), {}, {}};
  if (!job) {
    a.decode_error = job.error().message;
  }
  const Path mpath = path.field("metadata");
  std::optional<std::string> created;
  RJG_RETURN_IF_ERROR(
      json::read_string(*json::member(item, "metadata"), "creationTimestamp", mpath, created));
  if (created) {
    Result<std::int64_t> t = parse_rfc3339(*created);
    if (!t) {
      return invalid_argument(mpath.field("creationTimestamp").str() + ": " + t.error().message);
    }
    a.created = t.value();
  }
  into.push_back(std::move(a));
  return {};
}

Status decode_owned(const Value& item, const Path& path, bool pods, OwnedObject& o) {
  RJG_RETURN_IF_ERROR(json::check_object(item, path));
  RJG_ASSIGN_OR_RETURN(const Value* meta, json::read_required_object(item, "metadata", path));
  const Path mpath = path.field("metadata");
  const Value& m = *meta;
  RJG_RETURN_IF_ERROR(json::read_string(m, "namespace", mpath, o.namespace_));
  RJG_RETURN_IF_ERROR(json::read_string(m, "name", mpath, o.name));
  RJG_RETURN_IF_ERROR(json::read_string(m, "uid", mpath, o.uid));
  Result<const Value*> owners = json::read_array(m, "ownerReferences", mpath);
  if (!owners) {
    return owners.error();
  }
  if (owners.value() != nullptr) {
    const Path opath = mpath.field("ownerReferences");
    for (rapidjson::SizeType i = 0; i < owners.value()->Size(); ++i) {
      const Value& ref = (*owners.value())[i];
      if (!ref.IsObject()) {
        return json::type_error(opath.index(i), "an object", ref);
      }
      std::string uid;
      RJG_RETURN_IF_ERROR(json::read_string(ref, "uid", opath.index(i), uid));
      o.owner_uids.push_back(std::move(uid));
    }
  }
  if (!pods) {
    return {};
  }
  Result<const Value*> status = json::read_object(item, "status", path);
  if (!status) {
    return status.error();
  }
  if (status.value() != nullptr) {
    std::optional<std::string> phase;
    RJG_RETURN_IF_ERROR(json::read_string(*status.value(), "phase", path.field("status"), phase));
    o.counts_compute = !(phase && (*phase == "Succeeded" || *phase == "Failed"));
  }
  Result<const Value*> spec = json::read_object(item, "spec", path);
  if (!spec) {
    return spec.error();
  }
  if (spec.value() == nullptr) {
    return {};
  }
  const Path spath = path.field("spec");
  policy::Quantity cpu, memory, init_cpu, init_memory;
  RJG_RETURN_IF_ERROR(add_requests(*spec.value(), "containers", spath, false, cpu, memory));
  RJG_RETURN_IF_ERROR(
      add_requests(*spec.value(), "initContainers", spath, true, init_cpu, init_memory));
  o.requests_cpu = std::max(cpu, init_cpu);
  o.requests_memory = std::max(memory, init_memory);
  return {};
}

std::string status_text(const policy::ReapCandidate& s) {
  const std::string d = s.job_deployment_status.value_or("");
  const std::string j = s.job_status.value_or("");
  if (d.empty() && j.empty()) {
    return "-";
  }
  if (j.empty()) {
    return d;
  }
  return (d.empty() ? "-" : d) + "/" + j;
}

// kubectl's AGE: the largest unit, like 45s, 12m, 3h, 4d.
std::string age_text(const std::optional<std::int64_t>& seconds) {
  if (!seconds) {
    return "-";
  }
  const std::int64_t s = std::max<std::int64_t>(*seconds, 0);
  if (s < 120) {
    return std::to_string(s) + "s";
  }
  if (s < 2 * 3600) {
    return std::to_string(s / 60) + "m";
  }
  if (s < 2 * 86400) {
    return std::to_string(s / 3600) + "h";
  }
  return std::to_string(s / 86400) + "d";
}

const char* outcome_name(AuditOutcome o) {
  switch (o) {
    case AuditOutcome::kFail:
      return "fail";
    case AuditOutcome::kWarn:
      return "warn";
    case AuditOutcome::kError:
      return "error";
  }
  return "error";
}

// What `job` holds: itself, the Jobs and RayClusters it owns, and their compute Pods.
Holding holding_of(const std::string& uid, const AuditInput& in) {
  Holding h;
  h.rayjobs = 1;
  std::set<std::string> owners;
  const auto owned_by = [&uid](const OwnedObject& o) {
    return std::find(o.owner_uids.begin(), o.owner_uids.end(), uid) != o.owner_uids.end();
  };
  for (const OwnedObject& j : in.jobs) {
    if (owned_by(j)) {
      ++h.jobs;
      owners.insert(j.uid);
    }
  }
  for (const OwnedObject& c : in.clusters) {
    if (owned_by(c)) {
      owners.insert(c.uid);
    }
  }
  for (const OwnedObject& p : in.pods) {
    if (!p.counts_compute) {
      continue;
    }
    for (const std::string& owner : p.owner_uids) {
      if (owners.count(owner) != 0) {
        ++h.pods;
        h.requests_cpu += p.requests_cpu;
        h.requests_memory += p.requests_memory;
        break;
      }
    }
  }
  return h;
}

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void put(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void property(Writer& w, std::string_view key, std::string_view value) {
  put(w, key);
  put(w, value);
}

// One report result, openreports / wgpolicyk8s.io shape.
void write_result(Writer& w, const AuditResult& r, std::int64_t now) {
  w.StartObject();
  property(w, "policy", "rayjob-guard");
  property(w, "rule", r.rule);
  property(w, "result", outcome_name(r.outcome));
  property(w, "severity", r.outcome == AuditOutcome::kWarn ? "medium" : "high");
  property(w, "category", r.waste ? "waste" : "policy");
  w.Key("scored");
  w.Bool(!r.waste);
  property(w, "message", r.message);
  property(w, "source", "rayjob-guard");
  w.Key("timestamp");
  w.StartObject();
  w.Key("seconds");
  w.Int64(now);
  w.Key("nanos");
  w.Int(0);
  w.EndObject();
  w.Key("resources");
  w.StartArray();
  w.StartObject();
  property(w, "apiVersion", r.api_version);
  property(w, "kind", r.kind);
  property(w, "namespace", r.namespace_);
  property(w, "name", r.name);
  property(w, "uid", r.uid);
  w.EndObject();
  w.EndArray();
  w.Key("properties");
  w.StartObject();
  property(w, "status", r.status);
  if (!r.field.empty()) {
    property(w, "field", r.field);
  }
  if (r.holds) {
    property(w, "count/rayjobs.ray.io", std::to_string(r.holds->rayjobs));
    property(w, "count/jobs.batch", std::to_string(r.holds->jobs));
    property(w, "pods", std::to_string(r.holds->pods));
    property(w, "requests.cpu", r.holds->requests_cpu.to_string());
    property(w, "requests.memory", r.holds->requests_memory.to_string());
  }
  w.EndObject();
  w.EndObject();
}

struct Summary {
  int pass = 0, fail = 0, warn = 0, error = 0;
};

void write_summary(Writer& w, const Summary& s) {
  w.Key("summary");
  w.StartObject();
  for (const auto& [k, v] :
       {std::pair{"pass", s.pass}, std::pair{"fail", s.fail}, std::pair{"warn", s.warn},
        std::pair{"error", s.error}, std::pair{"skip", 0}}) {
    w.Key(k);
    w.Int(v);
  }
  w.EndObject();
}

// Pads each column to its widest cell, two spaces apart, like kubectl get.
std::string columns(std::vector<std::vector<std::string>> rows) {
  std::vector<std::size_t> width;
  for (auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) {
      row[i] = visible(row[i]);  // names and messages come from the cluster: escape its controls
      width[i] = std::max(width[i], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) {
        line.append(width[i] - row[i].size() + 2, ' ');
      }
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

Holding& Holding::operator+=(const Holding& o) {
  rayjobs += o.rayjobs;
  jobs += o.jobs;
  pods += o.pods;
  requests_cpu += o.requests_cpu;
  requests_memory += o.requests_memory;
  return *this;
}

Result<ListPage<AuditedRayJob>> decode_audit_rayjobs(std::string_view text) {
  return decode_list<AuditedRayJob>(
      text, "RayJobList",
      [](const Value& item, const Path& path, ListPage<AuditedRayJob>& page) -> Status {
        return decode_audited(item, path, page.items);
      });
}

Result<AuditInput> decode_audit_export(std::string_view text) {
  AuditInput input;
  Result<std::string> token =
      decode_list_page(text, "", [&input](const Value& item, const Path& path) -> Status {
        if (!item.IsObject()) {
          return json::type_error(path, "an object", item);
        }
        std::optional<std::string> kind;
        RJG_RETURN_IF_ERROR(json::read_string(item, "kind", path, kind));
        if (kind == "RayJob") {
          return decode_audited(item, path, input.rayjobs);
        }
        std::vector<OwnedObject>* into = kind == "Job"          ? &input.jobs
                                         : kind == "RayCluster" ? &input.clusters
                                         : kind == "Pod"        ? &input.pods
                                                                : nullptr;
        if (into == nullptr) {
          return invalid_argument(
              path.field("kind").str() + ": " +
              (kind ? "\"" + visible(*kind) + "\"" : std::string("missing")) +
              "; audit reads RayJob, Job, RayCluster and Pod items "
              "(kubectl get rayjobs,jobs,rayclusters,pods -o json)");
        }
        OwnedObject o;
        RJG_RETURN_IF_ERROR(decode_owned(item, path, kind == "Pod", o));
        into->push_back(std::move(o));
        return {};
      });
  if (!token) {
    return token.error();
  }
  if (!token.value().empty()) {
    return invalid_argument(
        "metadata.continue: this is one page of a longer list, and the rest would be missing; "
        "export the whole list (kubectl get ... -o json reads every page)");
  }
  return input;
}

Result<ListPage<OwnedObject>> decode_owned_list(std::string_view text, bool pods) {
  return decode_list<OwnedObject>(text, "", [pods](const Value& item, const Path& path,
                                               ListPage<OwnedObject>& page) -> Status {
    OwnedObject o;
    RJG_RETURN_IF_ERROR(decode_owned(item, path, pods, o));
    page.items.push_back(std::move(o));
    return {};
  });
}

AuditReport run_audit(const AuditInput& input, const LoadedPolicy& policy, std::int64_t now,
                      std::int64_t grace_seconds) {
  AuditReport report;
  report.now = now;
  std::vector<const AuditedRayJob*> order;
  for (const AuditedRayJob& a : input.rayjobs) {
    order.push_back(&a);
  }
  std::sort(order.begin(), order.end(), [](const AuditedRayJob* x, const AuditedRayJob* y) {
    return std::tie(x->status.namespace_, x->status.name) <
           std::tie(y->status.namespace_, y->status.name);
  });
  for (const AuditedRayJob* a : order) {
    const policy::ReapCandidate& s = a->status;
    report.namespaces.insert(s.namespace_);
    AuditResult base;
    base.namespace_ = s.namespace_;
    base.name = s.name;
    base.uid = s.uid;
    base.status = status_text(s);
    if (a->created) {
      base.age_seconds = now - *a->created;
    }
    if (!a->decode_error.empty()) {
      AuditResult r = base;
      r.rule = "decode";
      r.outcome = AuditOutcome::kError;
      r.message = "[decode] this RayJob cannot be read, so it was not judged: " + a->decode_error;
      report.results.push_back(std::move(r));
      continue;
    }
    const std::size_t before = report.results.size();
    policy::AdmissionRequest request;
    request.operation = policy::Operation::kCreate;
    request.namespace_ = s.namespace_;
    request.object = a->job;
    const policy::Verdict verdict = policy::evaluate(request, policy.config);
    for (const auto& [findings, outcome] :
         {std::pair{&verdict.denials, AuditOutcome::kFail},
          std::pair{&verdict.warnings, AuditOutcome::kWarn}}) {
      for (const policy::Finding& f : *findings) {
        AuditResult r = base;
        r.rule = policy::rule_id_name(f.rule);
        r.outcome = outcome;
        r.field = f.field;
        r.message = format_finding(f);
        report.results.push_back(std::move(r));
      }
    }
    if (std::optional<policy::QuotaHold> hold = policy::decide_quota_hold(
            a->job, s, policy.config, now, grace_seconds)) {
      AuditResult r = base;
      r.rule = policy::hold_kind_id(hold->kind);
      r.outcome = AuditOutcome::kWarn;
      r.waste = true;
      r.message = "[" + r.rule + "] " + hold->message;
      r.holds = holding_of(s.uid, input);
      report.held[s.namespace_] += *r.holds;
      report.results.push_back(std::move(r));
    }
    if (report.results.size() == before) {
      ++report.pass;
      ++report.pass_by_namespace[s.namespace_];
    }
  }
  for (const AuditResult& r : report.results) {
    (r.outcome == AuditOutcome::kFail   ? report.fail
     : r.outcome == AuditOutcome::kWarn ? report.warn
                                        : report.error)++;
  }
  return report;
}

void add_results(AuditReport& report, std::vector<AuditResult> results) {
  for (AuditResult& r : results) {
    report.namespaces.insert(r.namespace_);
    (r.outcome == AuditOutcome::kFail   ? report.fail
     : r.outcome == AuditOutcome::kWarn ? report.warn
                                        : report.error)++;
    report.results.push_back(std::move(r));
  }
  std::stable_sort(report.results.begin(), report.results.end(),
                   [](const AuditResult& a, const AuditResult& b) {
                     return a.namespace_ < b.namespace_;
                   });
}

std::string encode_audit_table(const AuditReport& report) {
  std::vector<std::vector<std::string>> rows{
      {"NAMESPACE", "RAYJOB", "RULE", "RESULT", "STATUS", "AGE", "MESSAGE"}};
  for (const AuditResult& r : report.results) {
    rows.push_back({r.namespace_, r.kind == "RayJob" ? r.name : ascii_lower(r.kind) + "/" + r.name,
                    r.rule, outcome_name(r.outcome), r.status, age_text(r.age_seconds),
                    r.message});
  }
  std::string out = report.results.empty() ? "No RayJob breaks the policy or holds quota for "
                                             "nothing.\n"
                                           : columns(rows);
  out += "\npass: " + std::to_string(report.pass) + ", fail: " + std::to_string(report.fail) +
         ", warn: " + std::to_string(report.warn) + ", error: " + std::to_string(report.error) +
         ", skip: 0\n";
  if (!report.held.empty()) {
    std::vector<std::vector<std::string>> held{{"NAMESPACE", "HELD-BY", "COUNT/RAYJOBS.RAY.IO",
                                                "COUNT/JOBS.BATCH", "PODS", "REQUESTS.CPU",
                                                "REQUESTS.MEMORY"}};
    for (const auto& [ns, h] : report.held) {
      held.push_back({ns, std::to_string(h.rayjobs) + (h.rayjobs == 1 ? " RayJob" : " RayJobs"),
                      std::to_string(h.rayjobs), std::to_string(h.jobs), std::to_string(h.pods),
                      h.requests_cpu.to_string(), h.requests_memory.to_string()});
    }
    out += "\nQuota held with nothing to free it:\n" + columns(held);
  }
  return out;
}

std::vector<NamespaceReport> namespace_reports(const AuditReport& report, ReportKind kind) {
  std::map<std::string, std::vector<const AuditResult*>> by_namespace;
  for (const std::string& ns : report.namespaces) {
    by_namespace[ns];
  }
  for (const AuditResult& r : report.results) {
    by_namespace[r.namespace_].push_back(&r);
  }
  std::vector<NamespaceReport> out;
  for (const auto& [ns, results] : by_namespace) {
    Summary s;
    const auto passed = report.pass_by_namespace.find(ns);
    s.pass = passed == report.pass_by_namespace.end() ? 0 : passed->second;
    for (const AuditResult* r : results) {
      (r->outcome == AuditOutcome::kFail   ? s.fail
       : r->outcome == AuditOutcome::kWarn ? s.warn
                                           : s.error)++;
    }
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    if (kind == ReportKind::kOpenReports) {
      property(w, "apiVersion", "openreports.io/v1alpha1");
      property(w, "kind", "Report");
    } else {
      property(w, "apiVersion", "wgpolicyk8s.io/v1alpha2");
      property(w, "kind", "PolicyReport");
    }
    w.Key("metadata");
    w.StartObject();
    property(w, "name", kReportName);
    property(w, "namespace", ns);
    w.Key("labels");
    w.StartObject();
    property(w, kReportLabel, kReportLabelValue);
    w.EndObject();
    w.EndObject();
    if (kind == ReportKind::kOpenReports) {
      property(w, "source", "rayjob-guard");
    }
    write_summary(w, s);
    w.Key("results");
    w.StartArray();
    for (const AuditResult* r : results) {
      write_result(w, *r, report.now);
    }
    w.EndArray();
    w.EndObject();
    out.push_back({ns, std::string(buffer.GetString(), buffer.GetSize())});
  }
  return out;
}

std::string encode_audit_reports(const AuditReport& report, ReportKind kind) {
  std::string out = R"({"apiVersion":"v1","kind":"List","items":[)";
  const char* separator = "";
  for (const NamespaceReport& r : namespace_reports(report, kind)) {
    out += separator;
    out += r.json;
    separator = ",";
  }
  return out + "]}";
}

}  // namespace rjg::admission
