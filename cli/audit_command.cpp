// rayjob-guard audit: what in the cluster the policy would refuse, and which RayJobs hold quota
// that nothing will free. Lists RayJobs, Jobs, RayClusters and Pods (read-only GETs, page by
// page), hands them to admission::run_audit and prints the report. Owns argument parsing, the
// API calls, writing the reports into the cluster with --write-reports (cli/audit_reports.hpp)
// and the exit status.
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>

#include "admission/audit.hpp"
#include "admission/json_to_yaml.hpp"
#include "admission/operator_drift.hpp"
#include "admission/policy_file.hpp"
#include "cli/audit_reports.hpp"
#include "cli/cluster_flags.hpp"
#include "cli/commands.hpp"
#include "cli/input.hpp"
#include "common/clock.hpp"
#include "common/file.hpp"
#include "common/flags.hpp"
#include "logging/log.hpp"
#include "kube/kube_api.hpp"
#include "common/visible_text.hpp"

namespace rjg::cli {
namespace {

constexpr const char* kAuditUsage =
    "usage: rayjob-guard audit [--policy FILE] (--namespace NS | --all-namespaces)\n"
    "                          [-o text|json|yaml|policyreport] [--grace SECONDS]\n"
    "                          [--write-reports]\n"
    "                          [--kubeconfig FILE] [--context NAME]\n"
    "                          [--server URL --token-file FILE --ca FILE]\n"
    "                          [--page-size N] [--timeout SECONDS]\n"
    "       rayjob-guard audit [--policy FILE] -f FILE|- [-o ...] [--grace SECONDS]\n"
    "Reads the RayJobs in the cluster (and the Jobs, RayClusters and Pods they own) and reports\n"
    "(a) what the policy would deny (fail) or warn about if each were created now, and (b) the\n"
    "RayJobs that hold quota with nothing to free it (warn): validation-failed, past-ttl (terminal\n"
    "longer than the policy's TTL bound plus --grace, default 300), existing-cluster,\n"
    "deployment-failed-unmatched, no-deletion, with what each holds and the namespace totals;\n"
    "with --all-namespaces also (c) operator-drift (warn): where the KubeRay operator's\n"
    "Deployment (label app.kubernetes.io/component=kuberay-operator) runs another version,\n"
    "other feature gates or another delete-after-finish setting than the policy says.\n"
    "Output: a table (text, the default; table is its former name), -o json or -o yaml (a List\n"
    "of openreports.io Reports) or -o policyreport (a List of wgpolicyk8s.io PolicyReports): one\n"
    "report per namespace audited, named rayjob-guard-audit, passes counted.\n"
    "--write-reports also writes those openreports.io Reports into the cluster (server-side\n"
    "apply, replacing the previous audit's; with --all-namespaces, this tool's reports in\n"
    "namespaces without a RayJob are deleted), and then exits 0 whatever was found: the findings\n"
    "are the reports. It needs the Report CRD and create, patch, list and delete on reports.\n"
    "Otherwise read-only.\n"
    "-f reads the objects from a file (- for stdin) instead of a cluster, as\n"
    "`kubectl get rayjobs,jobs,rayclusters,pods -A -o json`\n"
    "prints them (at most 256 MiB): for when the tool gets no credentials; Jobs, RayClusters and\n"
    "Pods left out of it count as absent. Exit 0 when nothing was found, 1 when something was, 2\n"
    "on bad usage or when the API or the file could not be read (or a report not written).\n";

struct AuditArgs {
  std::string policy_file;
  std::string export_file;  // -f: the objects from a file, not the cluster
  std::string namespace_;
  bool all_namespaces = false;
  bool write_reports = false;
  std::string output = "text";
  long grace_seconds = 300;
  kube::ClusterFlags cluster;
  long page_size = 500;
  long timeout_seconds = 30;
};

// --output: the vocabulary every command shares, and `table`, the former name of text.
std::function<Status(const std::string&)> output_flag(std::string& into) {
  return [&into, set = flags::one_of(into, {"text", "json", "yaml", "policyreport"})](
             const std::string& v) { return set(v == "table" ? "text" : v); };
}

// Returns an error message, or "" when the arguments are consistent.
std::string parse(const Args& args, AuditArgs& out, bool& help) {
  std::vector<flags::Flag> table = {{"--policy", "", true, flags::text(out.policy_file)},
                          {"--filename", "-f", true, flags::text(out.export_file)},
                          {"--namespace", "-n", true, flags::text(out.namespace_)},
                          {"--all-namespaces", "-A", false, flags::on(out.all_namespaces)},
                          {"--write-reports", "", false, flags::on(out.write_reports)},
                          {"--output", "-o", true, output_flag(out.output)},
                          {"--grace", "", true, flags::whole(out.grace_seconds, 0, 31'536'000)},
                          {"--page-size", "", true, flags::whole(out.page_size, 1, 5000)},
                          {"--timeout", "", true, flags::whole(out.timeout_seconds, 1, 86400)}};
  if (std::string err = parse_with_cluster_flags(args, std::move(table), out.cluster, help);
      !err.empty() || help) {
    return err;
  }
  if (!out.export_file.empty()) {
    if (out.all_namespaces || !out.namespace_.empty() || out.write_reports ||
        any_cluster_flag(out.cluster)) {
      return "-f reads the objects from a file: it excludes --namespace, --all-namespaces, "
             "--write-reports and the cluster's flags (--kubeconfig, --context, --server, "
             "--token-file, --ca)";
    }
  } else if (out.all_namespaces == !out.namespace_.empty()) {
    return "choose exactly one of --namespace NS and --all-namespaces";
  }
  return "";
}

// Every page of one collection (only the objects matching `label_selector` when not empty),
// each handed to `take`. A collection the cluster does not serve (404) is empty: a cluster
// without the RayCluster CRD has no RayClusters.
Status list_all(kube::KubeApi& api, const std::string& prefix, const std::string& resource,
                const AuditArgs& a, const std::function<Result<std::string>(std::string_view)>& take,
                std::string_view label_selector = {}) {
  std::string token;
  do {
    std::string target = kube::collection_target(
        prefix, resource, a.all_namespaces ? "" : a.namespace_, static_cast<int>(a.page_size),
        token);
    if (!label_selector.empty()) {
      target += "&labelSelector=" + kube::url_escape(std::string(label_selector));
    }
    Result<std::optional<std::string>> body = api.get(target);
    if (!body) {
      return body.error();
    }
    if (!body.value()) {
      return {};
    }
    Result<std::string> next = take(*body.value());
    if (!next) {
      return invalid_argument("GET " + target + ": " + next.error().message);
    }
    token = std::move(next.value());
  } while (!token.empty());
  return {};
}

Status list_owned(kube::KubeApi& api, const std::string& prefix, const std::string& resource,
                  const AuditArgs& a, bool pods, std::vector<admission::OwnedObject>& into) {
  return list_all(api, prefix, resource, a, [&](std::string_view text) -> Result<std::string> {
    Result<admission::ListPage<admission::OwnedObject>> page =
        admission::decode_owned_list(text, pods);
    if (!page) {
      return page.error();
    }
    for (admission::OwnedObject& o : page.value().items) {
      into.push_back(std::move(o));
    }
    return std::move(page.value().continue_token);
  });
}

// With --all-namespaces, the KubeRay operator's Deployments, wherever they run (selected by
// kOperatorSelector). A 404 (no apps API) is none.
Result<std::vector<admission::OperatorDeployment>> read_operators(const AuditArgs& a,
                                                                   kube::KubeApi& api) {
  std::vector<admission::OperatorDeployment> out;
  Status listed = list_all(
      api, "/apis/apps/v1", "deployments", a,
      [&out](std::string_view text) -> Result<std::string> {
        Result<admission::ListPage<admission::OperatorDeployment>> page =
            admission::decode_operator_deployments(text);
        if (!page) {
          return page.error();
        }
        for (admission::OperatorDeployment& d : page.value().items) {
          out.push_back(std::move(d));
        }
        return std::move(page.value().continue_token);
      },
      admission::kOperatorSelector);
  if (!listed) {
    return listed.error();
  }
  return out;
}

// The cluster's API with audit's retries; the client lives as long as the API object.
struct Cluster {
  Connection connection;
  std::unique_ptr<kube::KubeApi> api;
};

Result<Cluster> open_cluster(const AuditArgs& a) {
  RJG_ASSIGN_OR_RETURN(Connection connection,
                       connect(a.cluster, std::chrono::seconds(a.timeout_seconds)));
  kube::Backoff backoff;
  backoff.max_attempts = 3;
  auto api = std::make_unique<kube::KubeApi>(
      *connection.client, backoff,
      [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }, std::random_device{}());
  return Cluster{std::move(connection), std::move(api)};
}

// The objects of the cluster: RayJobs, then the Jobs, RayClusters and Pods they may own; with
// --all-namespaces, the operator's Deployments into `operators`.
Result<admission::AuditInput> read_cluster(const AuditArgs& a, kube::KubeApi& api,
                                           std::vector<admission::OperatorDeployment>& operators) {
  admission::AuditInput input;
  Status listed = list_all(
      api, "/apis/ray.io/v1", "rayjobs", a, [&](std::string_view text) -> Result<std::string> {
        Result<admission::ListPage<admission::AuditedRayJob>> page =
            admission::decode_audit_rayjobs(text);
        if (!page) {
          return page.error();
        }
        for (admission::AuditedRayJob& j : page.value().items) {
          input.rayjobs.push_back(std::move(j));
        }
        return std::move(page.value().continue_token);
      });
  if (listed) {
    listed = list_owned(api, "/apis/batch/v1", "jobs", a, false, input.jobs);
  }
  if (listed) {
    listed = list_owned(api, "/apis/ray.io/v1", "rayclusters", a, false, input.clusters);
  }
  if (listed) {
    listed = list_owned(api, "/api/v1", "pods", a, true, input.pods);
  }
  if (!listed) {
    return listed.error();
  }
  if (a.all_namespaces) {
    Result<std::vector<admission::OperatorDeployment>> found = read_operators(a, api);
    if (!found) {
      return found.error();
    }
    operators = std::move(found.value());
  }
  return input;
}


// The objects of a `kubectl get ... -o json` export.
Result<admission::AuditInput> read_export(const std::string& path) {
  Result<std::string> text = read_input(path, kMaxExportBytes);
  if (!text) {
    return text.error();
  }
  const std::string name = path == "-" ? "stdin" : path;
  Result<admission::AuditInput> input = admission::decode_audit_export(text.value());
  if (!input) {
    return invalid_argument(name + ": " + input.error().message);
  }
  return input;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "rayjob-guard audit: %s\n", visible(message).c_str());
  return 2;
}

}  // namespace

int run_audit(const Args& args) {
  AuditArgs a;
  bool help = false;
  const std::string err = parse(args, a, help);
  if (const std::optional<int> code = usage_or_help("audit", err, help, kAuditUsage)) {
    return *code;
  }
  // Retries are logged as warnings on stderr, like reap's; the report is stdout's alone.
  logging::init_logging(logging::LogFormat::kText, "warn");
  Result<admission::LoadedPolicy> policy = admission::load_policy_or_default(a.policy_file);
  if (!policy) {
    return fail("policy: " + policy.error().message);
  }
  std::vector<admission::OperatorDeployment> operators;
  std::optional<Cluster> cluster;
  if (a.export_file.empty()) {
    Result<Cluster> opened = open_cluster(a);
    if (!opened) {
      return fail(opened.error().message);
    }
    cluster = std::move(opened).value();
  }
  Result<admission::AuditInput> input = cluster ? read_cluster(a, *cluster->api, operators)
                                                : read_export(a.export_file);
  if (!input) {
    return fail(input.error().message);
  }
  const std::int64_t now = unix_seconds();
  admission::AuditReport report =
      admission::run_audit(input.value(), policy.value(), now, a.grace_seconds);
  if (a.all_namespaces && operators.empty()) {
    std::fprintf(stderr,
                 "rayjob-guard audit: note: no Deployment labelled %s, so the policy's "
                 "kuberay.version and featureGates were not compared with a running operator\n",
                 std::string(admission::kOperatorSelector).c_str());
  }
  admission::add_results(report, admission::operator_drift(operators, policy.value().config));
  if (!a.namespace_.empty()) {
    report.namespaces.insert(a.namespace_);  // its report says so even when it holds nothing
  }
  std::string out;
  if (a.output == "json") {
    out = admission::encode_audit_reports(report, admission::ReportKind::kOpenReports) + "\n";
  } else if (a.output == "yaml") {
    Result<std::string> yaml = admission::json_text_to_yaml(
        admission::encode_audit_reports(report, admission::ReportKind::kOpenReports));
    if (!yaml) {
      std::fprintf(stderr, "rayjob-guard audit: %s\n", visible(yaml.error().message).c_str());
      return 2;
    }
    out = std::move(yaml).value();
  } else if (a.output == "policyreport") {
    out = admission::encode_audit_reports(report, admission::ReportKind::kPolicyReport) + "\n";
  } else {
    out = admission::encode_audit_table(report);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (!a.write_reports) {
    return report.found() ? 1 : 0;
  }
  const ReportsWritten written = write_reports(
      *cluster->api, admission::namespace_reports(report, admission::ReportKind::kOpenReports),
      a.all_namespaces);
  for (const std::string& e : written.errors) {
    std::fprintf(stderr, "rayjob-guard audit: %s\n", visible(e).c_str());
  }
  std::fprintf(stderr,
               "rayjob-guard audit: %d openreports.io Report(s) written, %d of earlier audits "
               "deleted; pass: %d, fail: %d, warn: %d, error: %d\n",
               written.written, written.deleted, report.pass, report.fail, report.warn,
               report.error);
  return written.errors.empty() ? 0 : 2;
}

}  // namespace rjg::cli
