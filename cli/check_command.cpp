// rayjob-guard check: RayJob manifests (YAML/JSON) judged exactly as the webhook would judge them
// after `kubectl create`, with the same messages. For tenants before they submit, and for CI.
// This file reads the flags and the files and prints; admission::check() does the rest.
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "admission/check_run.hpp"
#include "admission/policy_file.hpp"
#include "cli/cluster_flags.hpp"
#include "cli/commands.hpp"
#include "cli/input.hpp"
#include "common/flags.hpp"
#include "common/visible_text.hpp"
#include "kube/quota_cache.hpp"

namespace rjg::cli {
namespace {

constexpr const char* kHelp =
    "usage: rayjob-guard check [--policy FILE] [--namespace NS]\n"
    "                          [--output text|json|yaml|junit|sarif]\n"
    "                          [--allow-empty] [--fix] FILE...\n"
    "Checks every RayJob in the YAML/JSON manifests FILE... (- for stdin) as a CREATE, with the\n"
    "CRD defaults of the policy's KubeRay version applied, exactly as the webhook would.\n"
    "Other kinds are skipped with a note.\n"
    "  --policy FILE       policy YAML (default: the built-in policy)\n"
    "  -n, --namespace NS  namespace for objects without metadata.namespace (default: default)\n"
    "  -o, --output FMT    text (default); json (an array of per-object results), or yaml\n"
    "                      (the same as YAML); junit\n"
    "                      (JUnit XML: a test case per document, a failure per denied RayJob,\n"
    "                      for CI test reports); sarif (SARIF 2.1.0: a result per finding,\n"
    "                      for code scanning). The exit status is the same for every format\n"
    "  --allow-empty       accept a file with no object (empty, or only comments)\n"
    "  --kubeconfig FILE, --context NAME, --server URL --token-file FILE --ca FILE\n"
    "                      with a policy whose quota.source is cluster: judge quota-fit by the\n"
    "                      cluster's ResourceQuotas and Kueue queues (of --namespace, else of\n"
    "                      every namespace), read once; without them, by the policy's entries\n"
    "  --fix               print every document with the literal fixes of all findings applied\n"
    "                      (JSON documents separated by ---), judge what it printed again, and\n"
    "                      list on stderr each violation left, whose change is yours to choose\n"
    "A flag takes its value after a space or an = sign (-o json, --output=json).\n"
    "Exit status: 0 all allowed, 1 any denied, 2 bad input (unreadable file, YAML error,\n"
    "a file with no object unless --allow-empty). With --fix: 0 every RayJob printed is\n"
    "allowed with no violation left, 1 some are still denied or keep a violation for you to\n"
    "change, 2 bad input or fixes that contradict each other. --fix on its own output\n"
    "prints it unchanged.\n";

// The ResourceQuotas and Kueue LocalQueues of `namespace_` (every namespace when empty) and the
// ClusterQueues, in the cluster `flags` name.
Result<std::shared_ptr<const policy::ClusterQuotas>> cluster_quotas(const kube::ClusterFlags& flags,
                                                                    const std::string& namespace_) {
  RJG_ASSIGN_OR_RETURN(Connection connection, connect(flags, std::chrono::seconds(30)));
  kube::Backoff backoff;
  backoff.max_attempts = 3;
  kube::KubeApi api(
      *connection.client, backoff,
      [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }, std::random_device{}());
  return kube::list_quotas(api, namespace_);
}

}  // namespace

int run_check(const Args& args) {
  std::string policy_path;
  admission::CheckRequest request;
  std::string output = "text";
  std::string namespace_;
  kube::ClusterFlags cluster;
  std::vector<flags::Flag> table = {
      {"--policy", "", true, flags::text(policy_path)},
      {"--namespace", "-n", true, flags::text(namespace_)},
      {"--output", "-o", true, flags::one_of(output, admission::check_format_names())},
      {"--allow-empty", "", false, flags::on(request.allow_empty)},
      {"--fix", "", false, flags::on(request.fix)}};
  add_cluster_flags(table, cluster);
  Result<flags::Parsed> parsed = flags::parse(args, table);
  if (!parsed.ok()) {
    return usage_error("check", parsed.error().message);
  }
  if (parsed.value().help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  request.format = admission::check_format(output).value_or(admission::CheckFormat::kText);
  if (request.fix && request.format != admission::CheckFormat::kText) {
    return usage_error("check", "--fix prints manifests; it takes no --output");
  }
  if (!namespace_.empty()) {
    request.options.namespace_ = namespace_;
  }
  const std::vector<std::string>& files = parsed.value().positional;
  if (files.empty()) {
    return usage_error("check", "no FILE given");
  }
  Result<admission::LoadedPolicy> policy = admission::load_policy_or_default(policy_path);
  if (!policy.ok()) {
    std::fprintf(stderr, "rayjob-guard check: %s\n", visible(policy.error().message).c_str());
    return 2;
  }
  if (any_cluster_flag(cluster)) {
    if (policy.value().config.quota.source != policy::QuotaConfig::Source::kCluster) {
      return usage_error("check", "the cluster flags give quota-fit the cluster's ResourceQuotas; "
                                  "the policy's quota.source is not cluster");
    }
    Result<std::shared_ptr<const policy::ClusterQuotas>> quotas = cluster_quotas(cluster, namespace_);
    if (!quotas) {
      std::fprintf(stderr, "rayjob-guard check: %s\n", visible(quotas.error().message).c_str());
      return 2;
    }
    request.options.cluster_quotas = std::move(quotas).value();
  }
  request.tool_version = RJG_VERSION;
  const admission::CheckRun run = admission::check(
      files, [](const std::string& file) { return read_input(file); }, request, policy.value());
  std::fwrite(run.out.data(), 1, run.out.size(), stdout);
  std::fwrite(run.err.data(), 1, run.err.size(), stderr);
  return run.exit_status;
}

}  // namespace rjg::cli
