// quota-fit: the RayJob's worst-case pod footprint fits its namespace's quota, for every quota
// key the quota names, so that no pod of it is refused after the RayJob was admitted.
//
// Where the namespace's quota comes from (docs/policy.md, quota.source):
// - an entry in quota.namespaces: that entry only, whatever the source (with `cluster` it
//   overrides the cluster's objects, and it is what `check` uses offline);
// - else, with quota.source cluster and the cluster's ResourceQuotas at hand
//   (RuleContext::cluster_quotas) holding some for the namespace: every one of them, each on its
//   own as the apiserver enforces them, each counting only the footprint parts (head, each worker
//   group, submitter) whose pods its scopes cover (cluster_quota.hpp: Terminating and
//   NotTerminating by the template's activeDeadlineSeconds, BestEffort and NotBestEffort by the
//   pod's cpu and memory requests and limits, PriorityClass by priorityClassName,
//   CrossNamespacePodAffinity by the template's pod affinity terms; what the model cannot tell,
//   such as the QoS of a pod with pod-level resources, counts the part);
// - else quota.unknownNamespace: deny, or quota.default. With source cluster but no cluster read
//   (cluster_quotas null), the source is the policy.
// A Kueue RayJob is also checked against its LocalQueue's ClusterQueue: the kueue.localQueues
// entry, whatever the source, else with quota.source cluster the ClusterQueue as the cluster holds
// it (most_granted).
#include <algorithm>
#include <array>
#include <string_view>
#include <string>
#include <vector>

#include "policy/cluster_quota.hpp"
#include "policy/kueue.hpp"
#include "policy/pod_footprint.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

constexpr std::int64_t kCrdMaxReplicas = 2147483647;

// The suffixes Quantity::to_string() writes, with their size in nano-units.
struct Unit {
  std::string_view suffix;
  __int128 nanos;
};
constexpr __int128 kKi = static_cast<__int128>(1024) * 1'000'000'000;
constexpr std::array<Unit, 9> kUnits = {{{"Ei", kKi * 1024 * 1024 * 1024 * 1024 * 1024},
                                         {"Pi", kKi * 1024 * 1024 * 1024 * 1024},
                                         {"Ti", kKi * 1024 * 1024 * 1024},
                                         {"Gi", kKi * 1024 * 1024},
                                         {"Mi", kKi * 1024},
                                         {"Ki", kKi},
                                         {"m", 1'000'000},
                                         {"u", 1'000},
                                         {"n", 1}}};

std::string digits(__int128 v) {
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v > 0);
  return out;
}

// `need` in the unit the quota `limit` is written in ("324.2Gi" against a quota of "256Gi",
// not "331976Mi"): exact when at most three decimals say it, else rounded up to two decimals
// with the exact value after it, so the message never understates the footprint.
std::string in_units_of(const Quantity& need, const Quantity& limit) {
  const std::string exact = need.to_string();
  const std::string lt = limit.to_string();
  Unit unit{"", 1'000'000'000};
  for (const Unit& u : kUnits) {
    const std::size_t at = lt.size() - u.suffix.size();
    if (lt.size() > u.suffix.size() && lt.ends_with(u.suffix) && lt[at - 1] >= '0' &&
        lt[at - 1] <= '9') {
      unit = u;
      break;
    }
  }
  const __int128 n = need.nanos();
  constexpr __int128 kMax = static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 1);
  if (n < 0 || n > kMax / 1000 || (!unit.suffix.empty() && exact.ends_with(unit.suffix))) {
    return exact;  // already in the quota's unit, or beyond what the arithmetic below holds
  }
  const __int128 whole = n / unit.nanos;
  const __int128 rest = n % unit.nanos;
  if (rest == 0) {
    return digits(whole) + std::string(unit.suffix);
  }
  if ((rest * 1000) % unit.nanos == 0) {
    std::string frac = digits(1000 + rest * 1000 / unit.nanos).substr(1);
    while (frac.back() == '0') {
      frac.pop_back();
    }
    return digits(whole) + "." + frac + std::string(unit.suffix);
  }
  const __int128 hundredths = (n * 100 + unit.nanos - 1) / unit.nanos;  // rounded up
  return "about " + digits(hundredths / 100) + "." + digits(100 + hundredths % 100).substr(1) +
         std::string(unit.suffix) + " (exactly " + exact + ")";
}

bool is_pod_count_key(const std::string& canonical) {
  return canonical == "pods" || canonical == "count/pods";
}

// "requests.cpu" -> {"requests", "cpu"}.
std::pair<std::string, std::string> split_key(const std::string& canonical) {
  const std::size_t dot = canonical.find('.');
  return {canonical.substr(0, dot), canonical.substr(dot + 1)};
}

std::string describe(const FootprintPart& p, const std::string& canonical, const Quantity& amount) {
  if (canonical == "count/pods" && p.kind == FootprintPart::Kind::kSubmitter &&
      p.counted_pods != p.pods) {
    return p.label() + " " + std::to_string(p.counted_pods) +
           " (a failed submitter pod stays until its Job is deleted, one per attempt)";
  }
  if (is_pod_count_key(canonical)) {
    return p.label() + " " + amount.to_string() + (p.pods == 1 ? " pod" : " pods");
  }
  if (p.pods == 1) {
    return p.label() + " " + amount.to_string();
  }
  return p.label() + " " + std::to_string(p.pods) + " pods x " +
         PodFootprint::per_pod_amount(p, canonical).to_string() + " = " + amount.to_string();
}

// One finding per key of `limits` that the worst case of footprint `fp` exceeds: `source` names
// the limits, `consequence` says what happens to such a RayJob. `covered`, when not null, says
// which of fp.parts the limits count (a scoped ResourceQuota's); null: all of them.
void check_against(const PodFootprint& fp, const std::vector<bool>* covered,
                   const QuotaLimits& limits, const std::string& source,
                   std::string_view consequence, Findings& out) {
  auto counts = [covered](std::size_t i) { return covered == nullptr || (*covered)[i]; };
  for (const auto& [key, limit] : limits) {
    if (!is_supported_quota_key(key)) {
      continue;
    }
    Quantity need;
    for (std::size_t i = 0; i < fp.parts.size(); ++i) {
      if (counts(i)) {
        need += PodFootprint::part_amount(fp.parts[i], key);
      }
    }
    if (need <= limit) {
      continue;
    }
    const std::string canonical = canonical_quota_key(key);
    std::vector<std::pair<Quantity, const FootprintPart*>> contributors;
    for (std::size_t i = 0; i < fp.parts.size(); ++i) {
      const Quantity a = counts(i) ? PodFootprint::part_amount(fp.parts[i], key) : Quantity();
      if (a > Quantity()) {
        contributors.emplace_back(a, &fp.parts[i]);
      }
    }
    std::stable_sort(contributors.begin(), contributors.end(),
                     [](const auto& a, const auto& b) { return b.first < a.first; });
    std::string breakdown;
    for (std::size_t i = 0; i < contributors.size() && i < 3; ++i) {
      breakdown += (i == 0 ? "" : ", ") +
                   describe(*contributors[i].second, canonical, contributors[i].first);
    }
    if (contributors.size() > 3) {
      breakdown += ", and " + std::to_string(contributors.size() - 3) + " more";
    }

    std::string field = "spec";
    std::string advice;
    const FootprintPart* unbounded = nullptr;
    for (const auto& [amount, part] : contributors) {
      if (part->unbounded_max_replicas) {
        unbounded = part;
        break;
      }
    }
    if (unbounded != nullptr) {
      field = unbounded->field() + ".maxReplicas";
      advice = unbounded->label() + " autoscales up to maxReplicas " +
               std::to_string(kCrdMaxReplicas) +
               " (the CRD default when it is not set); set maxReplicas so that the worst case fits";
    } else if (is_pod_count_key(canonical)) {
      advice = "lower replicas, maxReplicas (with autoscaling) or numOfHosts of the worker groups";
    } else {
      const auto [list, resource] = split_key(canonical);
      advice =
          "lower replicas, maxReplicas (with autoscaling) or numOfHosts, or the containers' "
          "resources." +
          list + "." + resource;
    }
    const std::string shown_key = key == canonical ? key : key + " (" + canonical + ")";
    out.push_back({RuleId::kQuotaFit, Finding::Kind::kViolation, field,
                   "worst-case " + shown_key + " is " + in_units_of(need, limit) + ", over the " +
                       source + " of " + limit.to_string() + ", " + std::string(consequence) +
                       " (" + breakdown + "); " + advice,
                   {}});  // what to lower is the tenant's choice
  }
}

// What the ResourceQuota scopes read of part `p`'s pods (cluster_quota.hpp).
PodScopeFacts scope_facts(const FootprintPart& p) {
  PodScopeFacts facts;
  // Null for KubeRay's default submitter: no deadline, no class, no affinity.
  const PodTemplate* t = p.pod_template;
  if (t != nullptr) {
    facts.terminating = t->active_deadline_seconds && *t->active_deadline_seconds >= 0;
    facts.priority_class = t->priority_class_name ? std::string_view(*t->priority_class_name)
                                                  : std::string_view();
    facts.cross_namespace_pod_affinity = t->cross_namespace_pod_affinity;
  }
  // Kubernetes' QoS class reads cpu and memory above zero in any container; the per-pod totals
  // hold exactly those that parse and are not negative (a pod with others is refused anyway).
  bool any = false;
  for (const FlatMap<Quantity>* list : {&p.per_pod.requests, &p.per_pod.limits}) {
    for (const char* resource : {"cpu", "memory"}) {
      const auto it = list->find(resource);
      any = any || (it != list->end() && it->second > Quantity());
    }
  }
  facts.qos = t != nullptr && t->pod_level_resources
                  ? PodScopeFacts::Qos::kUnknown  // pod-level resources decide it: not modelled
              : any ? PodScopeFacts::Qos::kNotBestEffort
                    : PodScopeFacts::Qos::kBestEffort;
  return facts;
}

// The cluster's ResourceQuotas of namespace `ns`, or null when it has none.
const std::vector<ResourceQuotaSpec>* cluster_quotas_of(const ClusterQuotas& cluster,
                                                        const std::string& ns) {
  const auto it = cluster.namespaces.find(ns);
  return it == cluster.namespaces.end() || it->second.empty() ? nullptr : &it->second;
}

}  // namespace

void check_quota_fit(const RuleContext& ctx, Findings& out) {
  const std::string& ns = ctx.namespace_.empty() ? ctx.job.metadata.namespace_ : ctx.namespace_;
  const QuotaConfig& quota = ctx.policy.quota;
  // With quota.source cluster and no cluster read (check offline), the policy decides alone.
  const bool from_cluster =
      quota.source == QuotaConfig::Source::kCluster && ctx.cluster_quotas != nullptr;
  const QuotaLimits* limits = nullptr;
  const std::vector<ResourceQuotaSpec>* cluster = nullptr;
  std::string source;
  if (auto it = quota.namespaces.find(ns); it != quota.namespaces.end()) {
    limits = &it->second;
    source = "namespace \"" + ns + "\" quota";
  } else if (from_cluster && (cluster = cluster_quotas_of(*ctx.cluster_quotas, ns)) != nullptr) {
    // Judged below, one ResourceQuota at a time.
  } else if (quota.unknown_namespace == QuotaConfig::UnknownNamespace::kUseDefault) {
    limits = &quota.default_limits;
    source = from_cluster ? "default quota (namespace \"" + ns +
                                "\" has no ResourceQuota in the cluster and no entry)"
                          : "default quota (namespace \"" + ns + "\" has no entry)";
  } else if (from_cluster) {
    out.push_back(
        {RuleId::kQuotaFit, Finding::Kind::kViolation, "metadata.namespace",
         "namespace \"" + ns +
             "\" has no ResourceQuota in the cluster and no entry in the policy's "
             "quota.namespaces, and quota.unknownNamespace is deny, so the RayJob's footprint "
             "cannot be checked; create the RayJob in a tenant namespace that has a quota, or ask "
             "the platform team to add one",
         {}});
    return;
  } else {
    out.push_back(
        {RuleId::kQuotaFit, Finding::Kind::kViolation, "metadata.namespace",
         "namespace \"" + ns +
             "\" has no entry in the policy's quota.namespaces and quota.unknownNamespace "
             "is deny, so the RayJob's footprint cannot be checked; create the RayJob in "
             "a tenant namespace that has a quota entry, or ask the platform team to add "
             "one",
         {}});
    return;
  }

  constexpr std::string_view kRefused = "so pods would be refused after the RayJob is admitted";
  const PodFootprint fp = compute_pod_footprint(ctx.job);
  if (cluster != nullptr) {
    // The apiserver checks a pod against every ResourceQuota of its namespace that covers it,
    // each on its own: the footprint must fit each one.
    std::vector<PodScopeFacts> facts;
    facts.reserve(fp.parts.size());
    for (const FootprintPart& p : fp.parts) {
      facts.push_back(scope_facts(p));
    }
    std::vector<bool> covered(fp.parts.size());
    for (const ResourceQuotaSpec& rq : *cluster) {
      for (std::size_t i = 0; i < fp.parts.size(); ++i) {
        covered[i] = quota_covers(rq, facts[i]);
      }
      const std::string scopes = scope_text(rq);
      check_against(fp, &covered, rq.hard,
                    "ResourceQuota \"" + ns + "/" + rq.name + "\"" +
                        (scopes.empty() ? "" : " (scopes " + scopes + ")"),
                    kRefused, out);
    }
  } else {
    check_against(fp, nullptr, *limits, source, kRefused, out);
  }

  // A Kueue RayJob also waits for its ClusterQueue: larger than all the queue can ever grant, it
  // would stay suspended forever. What is merely not free now is Kueue's to queue, not refused.
  if (!kueue_managed(ctx.job, ctx.policy)) {
    return;
  }
  const std::string_view local_queue = queue_name(ctx.job);
  if (local_queue.empty()) {
    return;
  }
  constexpr std::string_view kQueued =
      "so Kueue would never admit it: it would stay suspended in the queue";
  const std::string queue = ns + "/" + std::string(local_queue);
  if (const auto it = ctx.policy.kueue.local_queues.find(queue);
      it != ctx.policy.kueue.local_queues.end()) {
    check_against(fp, nullptr, it->second,
                  "ClusterQueue quota of LocalQueue \"" + queue + "\" (kueue.localQueues)",
                  kQueued, out);
    return;
  }
  // From the cluster: the LocalQueue's ClusterQueue as Kueue holds it. A LocalQueue or
  // ClusterQueue that does not exist (yet) is not refused: Kueue holds the workload until it does.
  if (!from_cluster) {
    return;
  }
  const auto lq = ctx.cluster_quotas->local_queues.find(queue);
  if (lq == ctx.cluster_quotas->local_queues.end()) {
    return;
  }
  const auto cq = ctx.cluster_quotas->cluster_queues.find(lq->second);
  if (cq == ctx.cluster_quotas->cluster_queues.end()) {
    return;
  }
  check_against(fp, nullptr, most_granted(cq->second),
                "ClusterQueue \"" + cq->first + "\" of LocalQueue \"" + queue + "\" (" +
                    (cq->second.in_cohort ? "nominal quota plus borrowing limit" : "nominal quota") +
                    ")",
                kQueued, out);
}

}  // namespace rjg::policy
