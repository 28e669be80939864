// Which pods a ResourceQuota covers (see cluster_quota.hpp).
#include "policy/cluster_quota.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace rjg::policy {

namespace {

using Qos = PodScopeFacts::Qos;

bool has_value(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// One requirement: a scope of spec.scopes (operator Exists) or a matchExpressions item.
// Kubernetes reads the operator only for PriorityClass; its validation allows nothing but Exists
// for the other scopes.
bool covers(std::string_view scope, std::string_view op, const std::vector<std::string>& values,
            const PodScopeFacts& pod) {
  if (scope == "Terminating") {
    return pod.terminating;
  }
  if (scope == "NotTerminating") {
    return !pod.terminating;
  }
  if (scope == "BestEffort") {
    return pod.qos != Qos::kNotBestEffort;
  }
  if (scope == "NotBestEffort") {
    return pod.qos != Qos::kBestEffort;
  }
  if (scope == "CrossNamespacePodAffinity") {
    return pod.cross_namespace_pod_affinity;
  }
  if (scope == "VolumeAttributesClass") {
    return false;
  }
  if (scope == "PriorityClass") {
    const bool named = !pod.priority_class.empty();
    if (op == "Exists") {
      return named;
    }
    if (op == "DoesNotExist") {
      return !named;
    }
    if (op == "In") {
      return named && has_value(values, pod.priority_class);
    }
    if (op == "NotIn") {
      return !named || !has_value(values, pod.priority_class);
    }
  }
  return true;  // a scope or operator of a later Kubernetes: count the pod rather than miss it
}

}  // namespace

bool quota_covers(const ResourceQuotaSpec& quota, const PodScopeFacts& pod) {
  static const std::vector<std::string> kNoValues;
  for (const std::string& scope : quota.scopes) {
    if (!covers(scope, "Exists", kNoValues, pod)) {
      return false;
    }
  }
  for (const ResourceQuotaSpec::ScopeExpression& e : quota.scope_selector) {
    if (!covers(e.scope_name, e.op, e.values, pod)) {
      return false;
    }
  }
  return true;
}

std::string scope_text(const ResourceQuotaSpec& quota) {
  std::string out;
  for (const std::string& scope : quota.scopes) {
    out += (out.empty() ? "" : ", ") + scope;
  }
  for (const ResourceQuotaSpec::ScopeExpression& e : quota.scope_selector) {
    out += (out.empty() ? "" : ", ") + e.scope_name;
    if (e.op != "Exists" || e.scope_name == "PriorityClass") {
      out += " " + e.op;  // Exists is all the other scopes can say
    }
    if (!e.values.empty()) {
      std::string list;
      for (const std::string& v : e.values) {
        list += (list.empty() ? "" : ", ") + v;
      }
      out += " (" + list + ")";
    }
  }
  return out;
}

QuotaLimits most_granted(const ClusterQueueSpec& queue) {
  QuotaLimits granted;
  std::set<std::string> unbounded;
  for (const ClusterQueueSpec::ResourceQuota& q : queue.quotas) {
    const std::string key = q.resource == "pods" ? "pods" : "requests." + q.resource;
    if (queue.in_cohort && !q.borrowing_limit) {
      unbounded.insert(key);
      continue;
    }
    Quantity& total = granted[key];
    total += q.nominal;
    if (queue.in_cohort) {
      total += *q.borrowing_limit;
    }
  }
  for (const std::string& key : unbounded) {
    granted.erase(key);
  }
  return granted;
}

}  // namespace rjg::policy
