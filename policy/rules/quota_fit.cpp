// quota-fit: the RayJob's worst-case pod footprint fits its namespace's quota, for every quota
// key the policy names, so that no pod of it is refused after the RayJob was admitted.
#include <algorithm>
#include <string>
#include <vector>

#include "policy/pod_footprint.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

constexpr std::int64_t kCrdMaxReplicas = 2147483647;

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

}  // namespace

void check_quota_fit(const RuleContext& ctx, Findings& out) {
  const std::string& ns = ctx.namespace_.empty() ? ctx.job.metadata.namespace_ : ctx.namespace_;
  const QuotaConfig& quota = ctx.policy.quota;
  const QuotaLimits* limits = nullptr;
  std::string source;
  if (auto it = quota.namespaces.find(ns); it != quota.namespaces.end()) {
    limits = &it->second;
    source = "namespace \"" + ns + "\" quota";
  } else if (quota.unknown_namespace == QuotaConfig::UnknownNamespace::kUseDefault) {
    limits = &quota.default_limits;
    source = "default quota (namespace \"" + ns + "\" has no entry)";
  } else {
    out.push_back(
        {RuleId::kQuotaFit, Finding::Kind::kViolation, "metadata.namespace",
         "namespace \"" + ns +
             "\" has no entry in the policy's quota.namespaces and quota.unknownNamespace "
             "is deny, so the RayJob's footprint cannot be checked; create the RayJob in "
             "a tenant namespace that has a quota entry, or ask the platform team to add "
             "one"});
    return;
  }

  const PodFootprint fp = compute_pod_footprint(ctx.job);
  for (const auto& [key, limit] : *limits) {
    if (!is_supported_quota_key(key)) {
      continue;
    }
    const Quantity need = fp.amount(key);
    if (need <= limit) {
      continue;
    }
    const std::string canonical = canonical_quota_key(key);
    std::vector<std::pair<Quantity, const FootprintPart*>> contributors;
    for (const FootprintPart& p : fp.parts) {
      const Quantity a = PodFootprint::part_amount(p, key);
      if (a > Quantity()) {
        contributors.emplace_back(a, &p);
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
                   "worst-case " + shown_key + " is " + need.to_string() + ", over the " + source +
                       " of " + limit.to_string() +
                       ", so pods would be refused after the RayJob is admitted (" + breakdown +
                       "); " + advice});
  }
}

}  // namespace rjg::policy
