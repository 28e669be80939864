// rayjob-guard reap: deletes finished RayJobs whose TTL passed, so that count/rayjobs.ray.io and
// count/jobs.batch return to zero on KubeRay versions without a deletion policy. Composes the
// policy file, the API endpoint, the API client and the reap pass; owns only argument parsing,
// logging setup and the --interval loop.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>

#include "admission/policy_file.hpp"
#include "cli/cluster_flags.hpp"
#include "cli/commands.hpp"
#include "common/clock.hpp"
#include "common/flags.hpp"
#include "logging/log.hpp"
#include "kube/kube_api.hpp"
#include "reaper/reap_pass.hpp"
#include "common/visible_text.hpp"

namespace rjg::cli {
namespace {

constexpr const char* kReapUsage =
    "usage: rayjob-guard reap [--policy FILE] (--namespace NS | --all-namespaces) [--dry-run]\n"
    "                         [--once | --interval SECONDS]\n"
    "                         [--kubeconfig FILE] [--context NAME]\n"
    "                         [--server URL --token-file FILE --ca FILE]\n"
    "                         [--page-size N] [--timeout SECONDS] [--log-level LEVEL]\n"
    "Deletes finished RayJobs (jobStatus SUCCEEDED/FAILED or jobDeploymentStatus Complete/Failed)\n"
    "once status.endTime is older than their rayjob-guard.io/ttl-after-success or\n"
    "ttl-after-failure annotation, bounded by the policy's lifecycle limits. Deletion is\n"
    "Background with a uid precondition. --once (default) exits 0 if all went well, 1 if a list\n"
    "or a deletion finally failed, 2 on bad usage or configuration; --interval loops until\n"
    "SIGTERM.\n";

struct ReapArgs {
  std::string policy_file;
  std::string namespace_;
  bool all_namespaces = false;
  bool dry_run = false;
  bool once = false;
  std::optional<long> interval_seconds;
  kube::ClusterFlags cluster;
  long page_size = 100;
  long timeout_seconds = 30;
  std::string log_level = "info";
};

int config_error(const std::string& message) {
  std::fprintf(stderr, "rayjob-guard reap: %s\n", visible(message).c_str());
  return 2;
}

// Returns an error message, or "" when the arguments are consistent.
std::string parse(const Args& args, ReapArgs& out, bool& help) {
  long interval = 0;
  std::vector<flags::Flag> table = {{"--policy", "", true, flags::text(out.policy_file)},
                          {"--namespace", "-n", true, flags::text(out.namespace_)},
                          {"--all-namespaces", "-A", false, flags::on(out.all_namespaces)},
                          {"--dry-run", "", false, flags::on(out.dry_run)},
                          {"--once", "", false, flags::on(out.once)},
                          {"--interval", "", true, flags::whole(interval, 1, 86400)},
                          {"--page-size", "", true, flags::whole(out.page_size, 1, 5000)},
                          {"--timeout", "", true, flags::whole(out.timeout_seconds, 1, 86400)},
                          {"--log-level", "", true, flags::text(out.log_level)}};
  if (std::string err = parse_with_cluster_flags(args, std::move(table), out.cluster, help);
      !err.empty() || help) {
    return err;
  }
  if (interval > 0) {
    out.interval_seconds = interval;
  }
  if (out.all_namespaces == !out.namespace_.empty()) {
    return "choose exactly one of --namespace NS and --all-namespaces";
  }
  if (out.once && out.interval_seconds) {
    return "--once and --interval exclude each other";
  }
  if (out.log_level != "trace" && out.log_level != "debug" && out.log_level != "info" &&
      out.log_level != "warn" && out.log_level != "error" && out.log_level != "off") {
    return "--log-level must be trace, debug, info, warn, error or off";
  }
  return "";
}

// Waits up to `seconds` for SIGTERM/SIGINT (blocked beforehand). Returns true if one arrived.
bool wait_for_stop(long seconds, const sigset_t& set) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  for (;;) {
    const auto left = until - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) {
      return false;
    }
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(left);
    const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(left - secs);
    timespec ts{static_cast<time_t>(secs.count()), static_cast<long>(nanos.count())};
    const int sig = sigtimedwait(&set, nullptr, &ts);
    if (sig == SIGTERM || sig == SIGINT) {
      logging::log_event(logging::Level::kInfo, "reap stopping",
                         {{"signal", std::string(sig == SIGTERM ? "SIGTERM" : "SIGINT")}});
      return true;
    }
    // EAGAIN: the time is up (re-checked above); EINTR: another signal, keep waiting.
  }
}

}  // namespace

int run_reap(const Args& args) {
  ReapArgs a;
  bool help = false;
  const std::string err = parse(args, a, help);
  if (const std::optional<int> code = usage_or_help("reap", err, help, kReapUsage)) {
    return *code;
  }

  // With --interval, SIGTERM/SIGINT are blocked in every thread and taken between passes
  // (wait_for_stop), so a pass is never cut between a decision and its DELETE. Threads inherit
  // the mask of the thread that starts them, so it is set before the logger starts its flusher:
  // a thread that left them unblocked would take the signal and die of it in the middle of a pass.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  if (a.interval_seconds) {
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  }

  // One structured line per event on stderr (logfmt text, every value escaped), UTC timestamps:
  // the server's logger (logging/log.hpp).
  logging::init_logging(logging::LogFormat::kText, a.log_level);

  Result<admission::LoadedPolicy> policy =
      admission::load_policy_or_default(a.policy_file);
  if (!policy) {
    return config_error("policy: " + policy.error().message);
  }
  const policy::PolicyConfig& config = policy.value().config;
  if (config.lifecycle.mode != policy::LifecycleMode::kReaper &&
      config.kueue.lifecycle_mode != policy::LifecycleMode::kReaper) {
    logging::log_event(logging::Level::kWarn,
                       "reap policy lifecycle.mode and kueue.lifecycleMode are not reaper; "
                       "reaping anyway with its bounds",
                       {{"policy_hash", policy.value().hash}});
  }
  const policy::LifecycleConfig& lifecycle = config.lifecycle;

  Result<Connection> connection = connect(a.cluster, std::chrono::seconds(a.timeout_seconds));
  if (!connection) {
    return config_error(connection.error().message);
  }
  const kube::ApiEndpoint& endpoint = connection.value().endpoint;
  if (endpoint.insecure_skip_tls_verify) {
    logging::log_event(logging::Level::kWarn, "reap",
                       {{"tls", std::string("insecure-skip-tls-verify")},
                        {"server", endpoint.describe()}});
  }
  kube::KubeApi api(
      *connection.value().client, kube::Backoff{},
      [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }, std::random_device{}());

  reaper::ReapOptions options;
  options.namespace_ = a.all_namespaces ? "" : a.namespace_;
  options.dry_run = a.dry_run;
  options.page_size = static_cast<int>(a.page_size);
  options.lifecycle = lifecycle;
  logging::log_event(
      logging::Level::kInfo, "reap start",
      {{"server", endpoint.describe()},
       {"source", endpoint.source},
       {"namespace", a.all_namespaces ? std::string("*") : a.namespace_},
       {"dry_run", a.dry_run},
       {"mode", std::string(a.interval_seconds ? "interval" : "once")},
       {"maxSucceededTTLSeconds", static_cast<long long>(lifecycle.max_succeeded_ttl_seconds)},
       {"minFailedTTLSeconds", static_cast<long long>(lifecycle.min_failed_ttl_seconds)},
       {"maxFailedTTLSeconds", static_cast<long long>(lifecycle.max_failed_ttl_seconds)},
       {"policy_hash", policy.value().hash}});

  if (!a.interval_seconds) {
    const reaper::ReapStats stats = reaper::run_reap_pass(api, options, unix_seconds);
    return stats.ok() ? 0 : 1;
  }
  // A SIGTERM/SIGINT that arrived during start-up or a pass stays pending (blocked above) and
  // ends the loop at the next wait.
  do {
    (void)reaper::run_reap_pass(api, options, unix_seconds);
  } while (!wait_for_stop(*a.interval_seconds, stop_signals));
  return 0;
}

}  // namespace rjg::cli
