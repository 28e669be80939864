// write_reports: apply, then sweep what the previous audits left in other namespaces.
#include "cli/audit_reports.hpp"

#include <set>

namespace rjg::cli {
namespace {

constexpr const char* kPrefix = "/apis/openreports.io/v1alpha1";
constexpr const char* kManager = "rayjob-guard-audit";
constexpr const char* kNoCrd =
    "the cluster does not serve openreports.io/v1alpha1 reports: install the Report CRD "
    "(config/crd/openreports.io_reports.yaml of the Go module github.com/openreports/reports-api)";

std::string report_target(const std::string& namespace_) {
  return std::string(kPrefix) + "/namespaces/" + kube::url_escape(namespace_) + "/reports/" +
         std::string(admission::kReportName);
}

// This tool's reports in every namespace: (namespace, uid) of each, or the error.
Result<std::vector<admission::OwnedObject>> list_reports(kube::KubeApi& api) {
  std::vector<admission::OwnedObject> found;
  std::string token;
  do {
    const std::string target =
        kube::collection_target(kPrefix, "reports", "", 500, token) + "&labelSelector=" +
        kube::url_escape(std::string(admission::kReportLabel) + "=" +
                         std::string(admission::kReportLabelValue)) +
        "&fieldSelector=" + kube::url_escape("metadata.name=" + std::string(admission::kReportName));
    RJG_ASSIGN_OR_RETURN(std::optional<std::string> body, api.get(target));
    if (!body) {
      return unavailable(kNoCrd);
    }
    Result<admission::ListPage<admission::OwnedObject>> page =
        admission::decode_owned_list(*body, false);
    if (!page) {
      return invalid_argument("GET " + target + ": " + page.error().message);
    }
    for (admission::OwnedObject& o : page.value().items) {
      found.push_back(std::move(o));
    }
    token = std::move(page.value().continue_token);
  } while (!token.empty());
  return found;
}

}  // namespace

ReportsWritten write_reports(kube::KubeApi& api,
                             const std::vector<admission::NamespaceReport>& reports, bool sweep) {
  ReportsWritten out;
  std::set<std::string> audited;
  for (const admission::NamespaceReport& r : reports) {
    audited.insert(r.namespace_);
    const std::string target = report_target(r.namespace_);
    const kube::CallResult result = api.apply(target, r.json, kManager);
    if (result.outcome == kube::ApiOutcome::kOk) {
      ++out.written;
    } else if (result.outcome == kube::ApiOutcome::kNotFound &&
               result.body.find(R"("kind":"namespaces")") == std::string::npos) {
      // Not a namespace deleted since the listing: the resource itself is unknown.
      out.errors.push_back(kNoCrd);
      return out;  // no report can be written anywhere
    } else {
      out.errors.push_back(kube::failure_text("PATCH", target, result));
    }
  }
  if (!sweep) {
    return out;
  }
  Result<std::vector<admission::OwnedObject>> existing = list_reports(api);
  if (!existing) {
    out.errors.push_back("the reports of earlier audits were not swept: " +
                         existing.error().message);
    return out;
  }
  for (const admission::OwnedObject& o : existing.value()) {
    if (audited.count(o.namespace_) != 0 || o.name != admission::kReportName) {
      continue;
    }
    const std::string target = report_target(o.namespace_);
    const kube::CallResult result = api.remove(target, o.uid);
    if (result.outcome == kube::ApiOutcome::kOk || result.outcome == kube::ApiOutcome::kNotFound) {
      ++out.deleted;
    } else if (result.outcome != kube::ApiOutcome::kConflict) {  // replaced since it was listed
      out.errors.push_back(kube::failure_text("DELETE", target, result));
    }
  }
  return out;
}

}  // namespace rjg::cli
