// rayjob-guard serve: parse and validate the flags once, then hand over to the server layer.
// With a policy whose quota.source is cluster it also connects to the cluster (the cluster flags,
// else as kubectl finds it, else the pod's service account) and watches its ResourceQuotas and
// Kueue's LocalQueues and ClusterQueues (kube/watcher.hpp into kube/quota_cache.hpp), each on a
// thread of its own, which the server reads through server::ClusterView; the watches are stopped
// and joined when serve returns.
// Exit codes: 0 after a graceful shutdown, 1 when startup fails (unreadable or invalid
// certificate, key or policy, port in use, no cluster for quota.source: cluster), 2 for a usage
// error.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "admission/policy_file.hpp"
#include "cli/cluster_flags.hpp"
#include "cli/commands.hpp"
#include "common/visible_text.hpp"
#include "kube/quota_cache.hpp"
#include "kube/watcher.hpp"
#include "server/cluster_view.hpp"
#include "server/server.hpp"
#include "server/server_config.hpp"

namespace rjg::cli {

namespace {

// A review of a large RayJob allocates a few hundred KB at once (the body, the parsed document's
// pool) and frees it when the answer is sent. glibc's defaults serve blocks above 128 KB with
// mmap and give the top of the heap back above 128 KB free, so every such request paid
// mmap/munmap or brk and a few page faults for memory it asks for again right away (~4 faults
// and 10 % of the CPU per 60 KB review). Blocks up to 1 MiB now come from the heap, and up to 4
// MiB of free heap is kept; bigger bodies (up to --max-body-bytes) still use mmap and are
// returned, so RSS stays bounded.
void tune_malloc_for_requests() {
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_TRIM_THRESHOLD, 4 << 20);
}

// The cluster's quota objects (kube::kQuotaCollections: ResourceQuotas, and Kueue's queues where
// Kueue is installed), one watcher and thread per collection, for as long as this lives.
class WatchedQuotas final : public server::ClusterView {
 public:
  explicit WatchedQuotas(Connection connection) : connection_(std::move(connection)) {
    std::random_device seed;
    for (const kube::QuotaCollectionInfo& c : kube::kQuotaCollections) {
      kube::WatchOptions o;
      o.prefix = c.prefix;
      o.resource = c.resource;
      o.optional = c.optional;
      watchers_.push_back(std::make_unique<kube::Watcher>(*connection_.client, std::move(o),
                                                          cache_.sink(c.collection), seed()));
    }
    for (auto& w : watchers_) {
      threads_.emplace_back([&w] { w->run(); });
    }
  }
  ~WatchedQuotas() override {
    for (auto& w : watchers_) {
      w->stop();
    }
    for (std::thread& t : threads_) {
      t.join();
    }
  }
  WatchedQuotas(const WatchedQuotas&) = delete;
  WatchedQuotas& operator=(const WatchedQuotas&) = delete;

  std::shared_ptr<const policy::ClusterQuotas> quotas() const override {
    return cache_.snapshot();
  }
  // Every collection listed (or found not served).
  bool synced() const override {
    return std::all_of(watchers_.begin(), watchers_.end(),
                       [](const auto& w) { return w->state().synced; });
  }
  // The stalest collection's.
  double staleness_seconds() const override {
    const auto now = std::chrono::steady_clock::now();
    double most = 0;
    for (const auto& w : watchers_) {
      most = std::max(most, w->staleness(now).count());
    }
    return most;
  }

 private:
  Connection connection_;
  kube::QuotaCache cache_;
  std::vector<std::unique_ptr<kube::Watcher>> watchers_;
  std::vector<std::thread> threads_;  // started once every watcher exists
};

const char* const kServeClusterHelp =
    "  --kubeconfig FILE, --context NAME, --server URL --token-file FILE --ca FILE\n"
    "                           the cluster whose ResourceQuotas and Kueue queues a policy\n"
    "                           with quota.source: cluster reads (default: as kubectl finds it,\n"
    "                           else the pod's service account)\n";

}  // namespace

int run_serve(const Args& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(server::serve_usage(), stdout);
      std::fputs(kServeClusterHelp, stdout);
      return 0;
    }
  }
  kube::ClusterFlags cluster_flags;
  std::vector<flags::Flag> extra;
  add_cluster_flags(extra, cluster_flags);
  auto config = server::parse_server_config(args, std::move(extra));
  if (!config.ok()) {
    std::fprintf(stderr, "rayjob-guard serve: %s (see 'rayjob-guard serve --help')\n",
                 visible(config.error().message).c_str());
    return 2;
  }
  tune_malloc_for_requests();
  // The watch starts with the process when the policy it starts with takes quota from the
  // cluster (serve refuses a reload that changes quota.source). An unreadable policy is left to
  // serve, which says why.
  std::unique_ptr<WatchedQuotas> cluster;
  if (Result<admission::LoadedPolicy> policy =
          admission::load_policy_or_default(config.value().policy_file);
      policy && policy.value().config.quota.source == policy::QuotaConfig::Source::kCluster) {
    Result<Connection> connection = connect(cluster_flags, std::chrono::seconds(30));
    if (!connection) {
      std::fprintf(stderr, "rayjob-guard serve: quota.source is cluster: %s\n",
                   visible(connection.error().message).c_str());
      return 1;
    }
    cluster = std::make_unique<WatchedQuotas>(std::move(connection).value());
  }
  const Status status = server::serve(config.value(), RJG_VERSION, {}, cluster.get());
  cluster.reset();
  if (!status.ok()) {
    std::fprintf(stderr, "rayjob-guard serve: %s\n", visible(status.error().message).c_str());
    return 1;
  }
  return 0;
}

}  // namespace rjg::cli
