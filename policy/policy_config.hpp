// PolicyConfig: the validated, immutable policy a verdict is computed against.
// It is built once by admission::decode_policy (from the policy YAML file, or the embedded
// default) and then shared read-only as std::shared_ptr<const PolicyConfig>. The comments on each
// field are the policy reference; README.md repeats them with examples.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "policy/quantity.hpp"
#include "policy/rule_id.hpp"

namespace rjg::policy {

// A KubeRay operator minor version, e.g. {1, 6}. Supported: 1.0 to the newest the catalogue
// describes (policy/kuberay/catalogue.hpp, kNewestMinor).
struct KubeRayVersion {
  int major = 1;
  int minor = 6;
  friend auto operator<=>(const KubeRayVersion&, const KubeRayVersion&) = default;
};

// How finished RayJobs are removed so that count/rayjobs.ray.io and count/jobs.batch return to 0.
enum class LifecycleMode {
  kDeletionRules,          // "deletionRules": spec.deletionStrategy.deletionRules (KubeRay 1.5+)
  kDeletionPolicy,         // "deletionPolicy": spec.deletionPolicy DeleteSelf (KubeRay 1.3-1.4)
  kOperatorDeletesRayJob,  // "operatorDeletesRayJob": DELETE_RAYJOB_CR_AFTER_JOB_FINISHES=true (1.2+)
  kReaper,                 // "reaper": `rayjob-guard reap` deletes by annotation TTLs (any version)
};

struct KubeRayConfig {
  // kuberay.version: operator minor version. Selects known fields, submission modes, the deletion
  // API and the operator's own validation rules. Default "1.6".
  KubeRayVersion version;
  // kuberay.featureGates.RayJobDeletionPolicy: whether the operator runs with the gate on.
  // Default: the compiled default of `version` (on from 1.6, off in 1.3-1.5, absent before).
  bool ray_job_deletion_policy_gate = true;
  // kuberay.featureGates other than RayJobDeletionPolicy, as set in the policy: any gate of
  // `version` (policy/kuberay/catalogue.cpp lists them with their compiled defaults). A gate not
  // listed runs at its compiled default, as the operator does (see feature_gate_on).
  std::map<std::string, bool, std::less<>> feature_gates;
};

struct LifecycleConfig {
  LifecycleMode mode = LifecycleMode::kDeletionRules;  // lifecycle.mode
  long long max_succeeded_ttl_seconds = 600;           // a succeeded RayJob must be gone within this
  long long min_failed_ttl_seconds = 3600;             // a failed RayJob stays at least this long...
  long long max_failed_ttl_seconds = 86400;            // ...and at most this long
  long long max_active_deadline_seconds = 86400;       // activeDeadlineSeconds must be set and <= this
  // An InteractiveMode RayJob (KubeRay 1.6+) sets preRunningDeadlineSeconds, at most this: its
  // wait in Waiting for spec.jobId, with the RayCluster up, is bounded by nothing else.
  long long max_pre_running_deadline_seconds = 3600;
  long long max_backoff_limit = 2;                     // spec.backoffLimit <= this
  bool allow_cluster_selector = false;                 // clusterSelector mode refused unless true
};

// RayJobs that Kueue manages (policy/kueue.hpp): the queue-name label, or every RayJob when Kueue
// runs with manageJobsWithoutQueueName.
struct KueueConfig {
  // kueue.lifecycleMode: how a Kueue RayJob is removed. Kueue demands shutdownAfterJobFinishes:
  // true, which KubeRay refuses next to deletion rules, so only reaper (per-outcome TTLs, failures
  // kept longer) or operatorDeletesRayJob (one TTL for both outcomes) can carry it out.
  LifecycleMode lifecycle_mode = LifecycleMode::kReaper;
  // kueue.manageJobsWithoutQueueName: Kueue runs with manageJobsWithoutQueueName, so every RayJob
  // is Kueue's, labelled or not.
  bool manage_jobs_without_queue_name = false;
  // kueue.localQueues: "<namespace>/<LocalQueue>" -> the most its ClusterQueue can ever grant one
  // workload (nominal quota, plus what it may borrow), as requests.* and pods keys. quota-fit
  // refuses a Kueue RayJob whose worst-case footprint is larger: Kueue would queue it forever.
  std::map<std::string, std::map<std::string, Quantity>> local_queues;
};

struct ImageDenyEntry {
  std::string pattern;  // glob: `*` any run of characters, `?` one, `[..]` a class
  std::string reason;   // shown to the user
};

struct ImagesConfig {
  // images.allow: images built under the tenant image contract; always fine.
  std::vector<std::string> allow;
  // images.stock.patterns: stock Ray images, allowed only when runtimeEnvYAML pip pins the SDK floor.
  std::vector<std::string> stock_patterns;
  std::string botocore_min = "1.34.41";  // images.stock.botocoreMin
  std::string boto3_min = "1.35.0";      // images.stock.boto3Min
  // images.deny: checked first; the reason is shown to the user.
  std::vector<ImageDenyEntry> deny;
  // images.requireDigest: image-pinned demands an @sha256: digest, not only a tag.
  bool require_digest = false;
};

// Resource name ("requests.cpu", "limits.memory", "pods", "requests.nvidia.com/gpu") -> hard limit.
using QuotaLimits = std::map<std::string, Quantity>;

struct QuotaConfig {
  // quota.source: where a namespace's quota comes from.
  enum class Source {
    kPolicy,   // "policy": `namespaces` and `default` below
    kCluster,  // "cluster": the namespace's ResourceQuota objects, when the request carries them
               // (AdmissionRequest::cluster_quotas); a `namespaces` entry still overrides them
  };
  Source source = Source::kPolicy;  // quota.source
  enum class UnknownNamespace {
    kDeny,        // "deny": a namespace with no entry is refused by quota-fit
    kUseDefault,  // "useDefault": it is checked against `default`
  };
  UnknownNamespace unknown_namespace = UnknownNamespace::kDeny;  // quota.unknownNamespace
  QuotaLimits default_limits;                                    // quota.default
  std::map<std::string, QuotaLimits> namespaces;                 // quota.namespaces
};

// What a rule's violations do.
enum class RuleAction {
  kEnforce,  // "enforce": deny the request
  kWarn,     // "warn": admit it with an admission warning
  kOff,      // "off": not evaluated
};

struct PolicyConfig {
  KubeRayConfig kuberay;
  LifecycleConfig lifecycle;
  KueueConfig kueue;
  ImagesConfig images;
  QuotaConfig quota;
  // rules: per rule id; unlisted rules enforce. Indexed by static_cast<size_t>(RuleId).
  std::array<RuleAction, kAllRules.size()> rule_actions{};  // value-initialised: all kEnforce

  RuleAction action(RuleId id) const { return rule_actions[static_cast<std::size_t>(id)]; }
};

}  // namespace rjg::policy
