// kueue-webhook: a Kueue-managed RayJob (policy/kueue.hpp) passes what Kueue's own validating
// webhook checks (pkg/controller/jobs/rayjob and jobframework's validation in
// kubernetes-sigs/kueue v0.19), and Kueue can build its Workload, so that `check` in CI and this
// webhook give one answer before Kueue does; measured against Kueue's own code by
// conformance.kueue (test/conformance/kueue_conformance_test.py). What another rule already asks
// for is not repeated: shutdownAfterJobFinishes: true is reap-self's (every lifecycle mode a
// Kueue RayJob can have needs it), and a RayJob with neither rayClusterSpec nor clusterSelector
// is kuberay-schema's.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/k8s_names.hpp"
#include "policy/kueue.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

// A Workload holds at most this many PodSets: the head, one per worker group, and in K8sJobMode
// the submitter Job's pod.
constexpr std::size_t kMaxPodSets = 18;
// A PodSet name is a DNS-1123 label: at most this long.
constexpr std::size_t kMaxPodSetName = 63;
// What a Workload Kueue cannot create costs, said once.
constexpr std::string_view kNoWorkload =
    "so Kueue never creates the RayJob's Workload and it stays suspended, holding its quota";

void add(Findings& out, std::string field, std::string message, std::vector<Edit> fix = {}) {
  out.push_back(Finding{RuleId::kKueueWebhook, Finding::Kind::kViolation, std::move(field),
                        std::move(message), std::move(fix)});
}

std::string quoted(std::string_view v) { return "\"" + std::string(v) + "\""; }

std::string label_field(std::string_view key) {
  return "metadata.labels[" + std::string(key) + "]";
}

bool suspended(const RayJob& job) { return job.spec.suspend.value_or(false); }

// Elastic (resizable) per Kueue: the annotation is exactly "true" (and Kueue's
// ElasticJobsViaWorkloadSlices gate is on, as by default since v0.18).
bool elastic(const RayJob& job) {
  const auto it = job.metadata.kueue_annotations.find(kElasticJobAnnotation);
  return it != job.metadata.kueue_annotations.end() && it->second == "true";
}

// Kueue takes a RayJob into its webhook's checks when it carries a queue name or Kueue manages
// every RayJob.
bool queued(const RayJob& job, const PolicyConfig& policy) {
  return policy.kueue.manage_jobs_without_queue_name || !queue_name(job).empty();
}

// The old and the new value of a label, said as a change: "added", "removed", "changed from..".
std::string change(const std::string& before, const std::string& now) {
  return before.empty() ? "added (" + quoted(now) + ")"
         : now.empty()  ? "removed"
                        : "changed from " + quoted(before) + " to " + quoted(now);
}

// strconv.Atoi, as Kueue parses max-exec-time-seconds: an optional sign and decimal digits
// within a 64-bit int. False when it refuses the text.
bool parse_go_int(std::string_view s, std::int64_t& value) {
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) {
    return false;
  }
  std::uint64_t magnitude = 0;
  const std::uint64_t limit = negative ? 9223372036854775808ULL : 9223372036854775807ULL;
  for (char c : s) {
    if (c < '0' || c > '9') {
      return false;
    }
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) {
      return false;  // out of range
    }
    magnitude = magnitude * 10 + digit;
  }
  value =
      negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

// A name close to `name` that is a DNS-1123 label: lowercase, other characters as '-'.
std::string dns_label_like(std::string_view name) {
  std::string s;
  for (char c : name) {
    const char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    s += ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) ? l : '-';
  }
  if (s.size() > kMaxPodSetName) {
    s.resize(kMaxPodSetName);
  }
  const std::size_t first = s.find_first_not_of('-');
  if (first == std::string::npos) {
    return "workers";
  }
  return s.substr(first, s.find_last_not_of('-') - first + 1);
}

void check_shutdown(const RuleContext& ctx, Findings& out) {
  if (ctx.policy.action(RuleId::kReapSelf) != RuleAction::kOff ||
      ctx.job.spec.shutdown_after_job_finishes.value_or(false)) {
    return;
  }
  add(out, "spec.shutdownAfterJobFinishes",
      "Kueue refuses a RayJob it manages that keeps its cluster after the job (\"a kueue managed "
      "job should delete the cluster after finishing\"); set shutdownAfterJobFinishes: true",
      {Edit::set("spec.shutdownAfterJobFinishes", true)});
}

void check_cluster(const RuleContext& ctx, Findings& out) {
  const RayJobSpec& spec = ctx.job.spec;
  const bool selector = spec.cluster_selector && !spec.cluster_selector->empty();
  // Where cluster-selector refuses clusterSelector itself, its finding (the same fix) is the one.
  if (selector && spec.ray_cluster_spec && !cluster_selector_refuses(ctx.policy)) {
    add(out, "spec.clusterSelector",
        "Kueue refuses a RayJob with both clusterSelector and rayClusterSpec; remove "
        "clusterSelector (Kueue queues the cluster that rayClusterSpec describes)",
        {Edit::remove("spec.clusterSelector")});
  }
}

// Kueue names the Workload's PodSets "head", each worker group's groupName lowercased, and in
// K8sJobMode "submitter"; Kueue's Workload CRD wants them unique DNS-1123 labels (an empty name
// becomes "main"). Kueue's webhook checks only the name "head" (check_groups), so any other
// clash passes it and leaves the RayJob without a Workload.
void check_pod_set_names(const RayClusterSpec& rc, bool submitter, Findings& out) {
  std::vector<std::pair<std::string, std::string>> taken = {{"head", "the head's PodSet"}};
  if (submitter) {
    taken.emplace_back("submitter", "the K8sJobMode submitter's PodSet");
  }
  for (std::size_t i = 0; i < rc.worker_groups.size(); ++i) {
    const std::string& group = rc.worker_groups[i].group_name;
    if (group == "head") {
      continue;  // refused by Kueue's webhook itself (check_groups)
    }
    std::string name;
    for (char c : group) {
      name += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    const std::string field =
        "spec.rayClusterSpec.workerGroupSpecs[" + std::to_string(i) + "].groupName";
    const std::string becomes =
        group.empty() ? "an empty groupName becomes Kueue's PodSet name \"main\""
                      : quoted(group) + " becomes Kueue's PodSet name " + quoted(name);
    if (group.empty()) {
      name = "main";
    } else if (!is_dns1123_label(name)) {
      add(out, field,
          becomes +
              ", which a Workload refuses (PodSet names are DNS-1123 labels: lowercase "
              "letters, digits and '-', at most 63 characters), " +
              std::string(kNoWorkload) + "; rename the worker group (e.g. " +
              quoted(dns_label_like(group)) + ")");
      continue;
    }
    std::string holder;
    for (const auto& [used, whose] : taken) {
      if (used == name) {
        holder = whose;
      }
    }
    if (!holder.empty()) {
      add(out, field,
          becomes + ", which " + holder + " already has (a Workload's PodSet names are unique), " +
              std::string(kNoWorkload) + "; rename the worker group");
      continue;
    }
    taken.emplace_back(name, "workerGroupSpecs[" + std::to_string(i) + "]'s PodSet");
  }
}

// Kueue's PodSet for a worker group counts replicas (1 when unset) times numOfHosts (when more
// than 1), in 32-bit arithmetic; a Workload refuses a negative count.
void check_pod_set_counts(const RayClusterSpec& rc, Findings& out) {
  for (std::size_t i = 0; i < rc.worker_groups.size(); ++i) {
    const WorkerGroup& g = rc.worker_groups[i];
    const auto wrap = [](std::int64_t v) {
      return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
    };
    std::int32_t count = wrap(g.replicas.value_or(1));
    const std::int64_t hosts = g.num_of_hosts.value_or(1);
    if (hosts > 1) {
      count = wrap(static_cast<std::int64_t>(count) * wrap(hosts));
    }
    if (count >= 0) {
      continue;
    }
    const std::string group = "spec.rayClusterSpec.workerGroupSpecs[" + std::to_string(i) + "]";
    if (g.replicas.value_or(1) < 0) {
      add(out, group + ".replicas",
          std::to_string(*g.replicas) +
              " is negative, and Kueue counts the worker group's pods by it; a Workload refuses "
              "a negative count, " +
              std::string(kNoWorkload) + "; set replicas to 0 or more");
    } else {
      add(out, group + ".replicas",
          "replicas times numOfHosts exceeds 2147483647, and Kueue counts the worker group's "
          "pods by it in a 32-bit number, which turns negative; a Workload refuses a negative "
          "count, " +
              std::string(kNoWorkload) + "; lower replicas or numOfHosts");
    }
  }
}

void check_groups(const RuleContext& ctx, Findings& out) {
  const RayJobSpec& spec = ctx.job.spec;
  if (!spec.ray_cluster_spec) {
    return;
  }
  const RayClusterSpec& rc = *spec.ray_cluster_spec;
  if (rc.enable_in_tree_autoscaling.value_or(false) && !elastic(ctx.job)) {
    const std::string field = "metadata.annotations[" + std::string(kElasticJobAnnotation) + "]";
    add(out, field,
        "Kueue refuses in-tree autoscaling on a RayJob it manages unless the workload may be "
        "resized; add the annotation " +
            std::string(kElasticJobAnnotation) +
            ": \"true\" (Kueue's ElasticJobsViaWorkloadSlices gate, on by default since "
            "v0.18), or set enableInTreeAutoscaling: false",
        {Edit::set(field, std::string("true"))});
  }
  for (std::size_t i = 0; i < rc.worker_groups.size(); ++i) {
    if (rc.worker_groups[i].group_name == "head") {
      add(out, "spec.rayClusterSpec.workerGroupSpecs[" + std::to_string(i) + "].groupName",
          "\"head\" is the name of Kueue's PodSet for the head, so Kueue refuses a worker group "
          "of that name; rename the worker group");
    }
  }
  const std::string_view mode =
      spec.submission_mode ? std::string_view(*spec.submission_mode) : "K8sJobMode";
  const bool submitter = mode == "K8sJobMode";
  const std::size_t pod_sets = 1 + rc.worker_groups.size() + (submitter ? 1 : 0);
  if (pod_sets > kMaxPodSets) {
    add(out, "spec.rayClusterSpec.workerGroupSpecs",
        std::to_string(rc.worker_groups.size()) + " worker groups make " +
            std::to_string(pod_sets) + " Kueue PodSets (the head, one per worker group" +
            (submitter ? ", the K8sJobMode submitter" : "") + "), more than a Workload holds (" +
            std::to_string(kMaxPodSets) + "); use at most " +
            std::to_string(kMaxPodSets - 1 - (submitter ? 1 : 0)) + " worker groups");
  }
  check_pod_set_names(rc, submitter, out);
  check_pod_set_counts(rc, out);
}

// The queue-name label names a LocalQueue: a DNS-1123 subdomain, which Kueue checks on every
// RayJob that carries the label.
void check_queue_name(const RuleContext& ctx, Findings& out) {
  const auto it = ctx.job.metadata.kueue_labels.find(kQueueNameLabel);
  if (it == ctx.job.metadata.kueue_labels.end() || is_dns1123_subdomain(it->second)) {
    return;
  }
  const std::string like = dns_label_like(it->second);
  add(out, label_field(kQueueNameLabel),
      quoted(it->second) +
          " cannot name a LocalQueue (a DNS-1123 subdomain: lowercase letters, digits, '-' and "
          "'.', at most 253 characters), so Kueue refuses the RayJob; write the LocalQueue's "
          "name as it is" +
          (it->second.empty() ? std::string(", or remove the label")
                              : " (perhaps " + quoted(like) + ")"));
}

// Kueue parses max-exec-time-seconds on every RayJob that carries it.
void check_max_exec_time(const RuleContext& ctx, Findings& out) {
  const auto it = ctx.job.metadata.kueue_labels.find(kMaxExecTimeLabel);
  if (it == ctx.job.metadata.kueue_labels.end()) {
    return;
  }
  std::int64_t seconds = 0;
  if (!parse_go_int(it->second, seconds)) {
    add(out, label_field(kMaxExecTimeLabel),
        quoted(it->second) +
            " is not a whole number of seconds that Kueue can read, so Kueue refuses the "
            "RayJob; write the longest the Workload may stay admitted in seconds, digits only "
            "(e.g. \"3600\"), or remove the label");
  } else if (seconds <= 0) {
    add(out, label_field(kMaxExecTimeLabel),
        quoted(it->second) +
            " is not more than 0 seconds, which Kueue refuses; write the longest the Workload may "
            "stay admitted in seconds (e.g. \"3600\"), or remove the label");
  }
}

// Kueue refuses moving a RayJob that is running (not suspended) to another queue.
void check_queue_change(const RuleContext& ctx, Findings& out) {
  if (suspended(ctx.job)) {
    return;
  }
  const std::string before(kueue_label(*ctx.previous, kQueueNameLabel));
  const std::string now(kueue_label(ctx.job, kQueueNameLabel));
  if (before == now) {
    return;
  }
  const std::string field = label_field(kQueueNameLabel);
  const std::string what = before.empty() ? "added"
                           : now.empty()  ? "removed"
                                          : "changed from \"" + before + "\" to \"" + now + "\"";
  const std::string keep = before.empty() ? "leave the RayJob without it"
                                          : "keep " + std::string(kQueueNameLabel) + ": \"" +
                                                before + "\"";
  add(out, field,
      what + " while the RayJob is not suspended, which Kueue refuses; " + keep +
          " (a suspended RayJob may change queues)",
      before.empty() ? std::vector<Edit>{Edit::remove(field)}
                     : std::vector<Edit>{Edit::set(field, before)});
}

// Kueue refuses giving a running RayJob a priority class it did not have, and taking one away.
void check_priority_class_change(const RuleContext& ctx, Findings& out) {
  const std::string before(kueue_label(*ctx.previous, kPriorityClassLabel));
  const std::string now(kueue_label(ctx.job, kPriorityClassLabel));
  const std::string field = label_field(kPriorityClassLabel);
  if (before.empty() && !now.empty() && !suspended(ctx.job)) {
    add(out, field,
        "added (" + quoted(now) +
            ") while the RayJob is not suspended, which Kueue refuses (its Workload was admitted "
            "without a priority class); leave the RayJob without it (a suspended RayJob may get "
            "one)",
        {Edit::remove(field)});
  } else if (now.empty() && !before.empty()) {
    add(out, field,
        "removed, which Kueue refuses, suspended or not (a Workload keeps a priority class once "
        "it has one); keep " +
            std::string(kPriorityClassLabel) + ": " + quoted(before) +
            " (another class may replace it)",
        {Edit::set(field, before)});
  }
}

// Kueue refuses changing max-exec-time-seconds unless the RayJob was and stays suspended.
void check_max_exec_time_change(const RuleContext& ctx, Findings& out) {
  if (suspended(*ctx.previous) && suspended(ctx.job)) {
    return;
  }
  const std::string before(kueue_label(*ctx.previous, kMaxExecTimeLabel));
  const std::string now(kueue_label(ctx.job, kMaxExecTimeLabel));
  if (before == now) {
    return;
  }
  const std::string field = label_field(kMaxExecTimeLabel);
  add(out, field,
      change(before, now) + " while the RayJob is or was not suspended, which Kueue refuses; " +
          (before.empty() ? "leave the RayJob without it"
                          : "keep " + std::string(kMaxExecTimeLabel) + ": " + quoted(before)) +
          " (a RayJob suspended before and after the update may change it)",
      before.empty() ? std::vector<Edit>{Edit::remove(field)}
                     : std::vector<Edit>{Edit::set(field, before)});
}

// Kueue refuses turning elastic scaling on or off after the RayJob was created, suspended or not.
void check_elastic_job_change(const RuleContext& ctx, Findings& out) {
  const bool before = elastic(*ctx.previous);
  if (before == elastic(ctx.job)) {
    return;
  }
  const std::string field = "metadata.annotations[" + std::string(kElasticJobAnnotation) + "]";
  const auto old = ctx.previous->metadata.kueue_annotations.find(kElasticJobAnnotation);
  const bool had = old != ctx.previous->metadata.kueue_annotations.end();
  add(out, field,
      std::string(before ? "no longer \"true\"" : "now \"true\"") +
          ", which turns elastic scaling " + (before ? "off" : "on") +
          " after the RayJob was created; Kueue refuses that, suspended or not; " +
          (had ? "keep " + std::string(kElasticJobAnnotation) + ": " + quoted(old->second)
               : "leave the RayJob without it"),
      had ? std::vector<Edit>{Edit::set(field, old->second)}
          : std::vector<Edit>{Edit::remove(field)});
}

}  // namespace

void check_kueue_webhook(const RuleContext& ctx, Findings& out) {
  if (ctx.previous != nullptr) {
    // Kueue validates an UPDATE of a RayJob it takes now or took before (its gate
    // ValidateRayAndSparkJobUpdates, on by default since v0.18), clusterSelector-only ones too:
    // removing the label is refused even though the new object would no longer be Kueue's.
    if (!queued(ctx.job, ctx.policy) && !queued(*ctx.previous, ctx.policy)) {
      return;
    }
    check_queue_change(ctx, out);
    check_priority_class_change(ctx, out);
    check_max_exec_time_change(ctx, out);
    check_elastic_job_change(ctx, out);
  }
  if (kueue_managed(ctx.job, ctx.policy)) {
    check_shutdown(ctx, out);
    check_cluster(ctx, out);
    check_groups(ctx, out);
  } else if (queued(ctx.job, ctx.policy)) {
    return;  // a clusterSelector-only RayJob: Kueue checks nothing more
  }
  check_queue_name(ctx, out);
  check_max_exec_time(ctx, out);
}

}  // namespace rjg::policy
