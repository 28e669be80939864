// Writing audit's reports into the cluster: one openreports.io Report per namespace audited,
// replacing the one the previous audit wrote, and (for an audit of every namespace) deleting
// this tool's reports in namespaces that no longer hold a RayJob.
#pragma once

#include <string>
#include <vector>

#include "admission/audit.hpp"
#include "kube/kube_api.hpp"

namespace rjg::cli {

struct ReportsWritten {
  int written = 0;
  int deleted = 0;
  // One line per report that could not be written or deleted, and for a failed listing; the
  // other reports are still written.
  std::vector<std::string> errors;
};

// Applies each of `reports` (server-side apply, field manager rayjob-guard-audit). With `sweep`
// (the audit covered every namespace) it then lists the reports named admission::kReportName
// with admission's label and deletes, each with a uid precondition, those in a namespace
// `reports` does not name. A cluster without the Report CRD gives one error saying so.
ReportsWritten write_reports(kube::KubeApi& api,
                             const std::vector<admission::NamespaceReport>& reports, bool sweep);

}  // namespace rjg::cli
