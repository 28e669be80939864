// Tests admission/policy_file: the default decodes, each error class names its key path, and
// the hash is stable under reordering and comments.
#include "admission/policy_file.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policy/image_ref.hpp"

namespace rjg::admission {
namespace {

using policy::LifecycleMode;
using policy::RuleAction;
using policy::RuleId;

constexpr const char* kHeader = "apiVersion: rayjob-guard.io/v1\nkind: Policy\n";

TEST(PolicyFile, DefaultDecodesToTheDocumentedValues) {
  Result<LoadedPolicy> p = decode_policy(default_policy_yaml());
  ASSERT_TRUE(p.ok()) << p.error().message;
  const policy::PolicyConfig& c = p.value().config;
  EXPECT_EQ(c.kuberay.version, (policy::KubeRayVersion{1, 6}));
  EXPECT_TRUE(c.kuberay.ray_job_deletion_policy_gate);
  EXPECT_EQ(c.lifecycle.mode, LifecycleMode::kDeletionRules);
  EXPECT_EQ(c.lifecycle.max_succeeded_ttl_seconds, 600);
  EXPECT_EQ(c.lifecycle.min_failed_ttl_seconds, 3600);
  EXPECT_EQ(c.lifecycle.max_failed_ttl_seconds, 86400);
  EXPECT_EQ(c.lifecycle.max_active_deadline_seconds, 86400);
  EXPECT_EQ(c.lifecycle.max_pre_running_deadline_seconds, 3600);
  EXPECT_EQ(c.lifecycle.max_backoff_limit, 2);
  EXPECT_FALSE(c.lifecycle.allow_cluster_selector);
  EXPECT_EQ(c.images.allow, std::vector<std::string>{"*.dkr.ecr.*.amazonaws.com/ray-tenant:*"});
  EXPECT_EQ(c.images.stock_patterns.size(), 2u);
  EXPECT_EQ(c.images.botocore_min, "1.34.41");
  EXPECT_EQ(c.images.boto3_min, "1.35.0");
  ASSERT_EQ(c.images.deny.size(), 1u);
  EXPECT_EQ(c.images.deny[0].pattern, "rayproject/ray:2.4[13]*");
  EXPECT_EQ(c.quota.source, policy::QuotaConfig::Source::kPolicy);
  EXPECT_EQ(c.quota.unknown_namespace, policy::QuotaConfig::UnknownNamespace::kDeny);
  EXPECT_EQ(c.quota.default_limits.at("pods"), policy::Quantity::from_units(20));
  EXPECT_EQ(c.quota.namespaces.at("tenant-a").at("requests.memory"),
            policy::Quantity::from_units(256LL << 30));
  EXPECT_EQ(c.quota.namespaces.at("tenant-a").at("requests.nvidia.com/gpu"),
            policy::Quantity::from_units(8));
  EXPECT_EQ(c.action(RuleId::kImagePinned), RuleAction::kWarn);
  EXPECT_EQ(c.action(RuleId::kQuotaFit), RuleAction::kEnforce);
  EXPECT_EQ(p.value().hash.size(), 16u);
  EXPECT_EQ(p.value().hash.find_first_not_of("0123456789abcdef"), std::string::npos);
}

struct Bad {
  std::string body;  // appended to the header
  ErrorCode code;
  std::string prefix;  // the message must start with this (the key path)
};

class PolicyFileErrors : public ::testing::TestWithParam<Bad> {};

TEST_P(PolicyFileErrors, NameTheKeyPath) {
  const Bad& b = GetParam();
  Result<LoadedPolicy> p = decode_policy(std::string(kHeader) + b.body);
  ASSERT_FALSE(p.ok()) << b.body;
  EXPECT_EQ(p.error().code, b.code) << p.error().message;
  EXPECT_EQ(p.error().message.rfind(b.prefix, 0), 0u)
      << "message: " << p.error().message << "\nexpected prefix: " << b.prefix;
}

INSTANTIATE_TEST_SUITE_P(
    Classes, PolicyFileErrors,
    ::testing::Values(
        Bad{"extra: 1\n", ErrorCode::kInvalidArgument, "extra: unknown key"},
        Bad{"lifecycle: {maxTTL: 1}\n", ErrorCode::kInvalidArgument,
            "lifecycle.maxTTL: unknown key"},
        Bad{"lifecycle: {maxFailedTTLSeconds: \"86400\"}\n", ErrorCode::kInvalidArgument,
            "lifecycle.maxFailedTTLSeconds: expected an integer, got string"},
        Bad{"lifecycle: {maxBackoffLimit: -1}\n", ErrorCode::kInvalidArgument,
            "lifecycle.maxBackoffLimit: must be between 0"},
        Bad{"lifecycle: {allowClusterSelector: maybe}\n", ErrorCode::kInvalidArgument,
            "lifecycle.allowClusterSelector: expected a boolean"},
        Bad{"lifecycle: {mode: cron}\n", ErrorCode::kInvalidArgument, "lifecycle.mode: expected"},
        Bad{"kueue: {lifecycleMode: deletionRules}\n", ErrorCode::kInvalidArgument,
            "kueue.lifecycleMode: expected reaper or operatorDeletesRayJob, got \"deletionRules\" "
            "(Kueue demands shutdownAfterJobFinishes"},
        Bad{"kueue: {manageJobsWithoutQueueName: maybe}\n", ErrorCode::kInvalidArgument,
            "kueue.manageJobsWithoutQueueName: expected a boolean"},
        Bad{"kueue: {localQueues: {batch: {requests.cpu: 8}}}\n", ErrorCode::kInvalidArgument,
            "kueue.localQueues.batch: expected <namespace>/<LocalQueue name>"},
        Bad{"kueue: {localQueues: {Team-A/batch: {requests.cpu: 8}}}\n",
            ErrorCode::kInvalidArgument, "kueue.localQueues.Team-A/batch: expected <namespace>/"},
        Bad{"kueue: {localQueues: {team-a/batch/x: {requests.cpu: 8}}}\n",
            ErrorCode::kInvalidArgument, "kueue.localQueues.team-a/batch/x: expected"},
        Bad{"kueue: {localQueues: {team-a/batch: {limits.cpu: 8}}}\n", ErrorCode::kInvalidArgument,
            "kueue.localQueues.team-a/batch.limits.cpu: Kueue's quota counts requests and pods"},
        Bad{"kueue: {localQueues: {team-a/batch: {requests.cpu: -8}}}\n",
            ErrorCode::kInvalidArgument, "kueue.localQueues.team-a/batch.requests.cpu: must not be negative"},
        Bad{"kueue: {localQueues: {team-a/batch: 8}}\n", ErrorCode::kInvalidArgument,
            "kueue.localQueues.team-a/batch: expected a mapping of quota keys"},
        Bad{"kuberay: {version: \"1.1\"}\nlifecycle: {mode: reaper}\n"
            "kueue: {lifecycleMode: operatorDeletesRayJob}\n",
            ErrorCode::kInvalidArgument,
            "kueue.lifecycleMode: operatorDeletesRayJob needs KubeRay 1.2 or later"},
        Bad{"lifecycle: {minFailedTTLSeconds: 600}\n", ErrorCode::kInvalidArgument,
            "lifecycle.minFailedTTLSeconds: must be greater than lifecycle.maxSucceededTTLSeconds"},
        Bad{"lifecycle: {minFailedTTLSeconds: 7200, maxFailedTTLSeconds: 3600}\n",
            ErrorCode::kInvalidArgument, "lifecycle.maxFailedTTLSeconds: must be at least"},
        Bad{"lifecycle: {maxActiveDeadlineSeconds: 0}\n", ErrorCode::kInvalidArgument,
            "lifecycle.maxActiveDeadlineSeconds: must be between 1"},
        Bad{"lifecycle: {maxPreRunningDeadlineSeconds: 0}\n", ErrorCode::kInvalidArgument,
            "lifecycle.maxPreRunningDeadlineSeconds: must be between 1"},
        Bad{"lifecycle: {maxPreRunningDeadlineSeconds: \"1h\"}\n", ErrorCode::kInvalidArgument,
            "lifecycle.maxPreRunningDeadlineSeconds"},
        Bad{"quota: {default: {requests.cpu: lots}}\n", ErrorCode::kInvalidArgument,
            "quota.default.requests.cpu: \"lots\" is not a Kubernetes quantity"},
        Bad{"quota: {default: {count/jobs.batch: \"5\"}}\n", ErrorCode::kInvalidArgument,
            "quota.default.count/jobs.batch: unsupported quota key"},
        Bad{"quota: {namespaces: {t: {requests.memory: [1]}}}\n", ErrorCode::kInvalidArgument,
            "quota.namespaces.t.requests.memory: expected a quantity"},
        Bad{"quota: {unknownNamespace: allow}\n", ErrorCode::kInvalidArgument,
            "quota.unknownNamespace: expected deny or useDefault"},
        Bad{"quota: {source: live}\n", ErrorCode::kInvalidArgument,
            "quota.source: expected policy or cluster, got \"live\" (policy: quota.namespaces "
            "and quota.default; cluster: the namespace's ResourceQuota objects)"},
        Bad{"quota: {source: Cluster}\n", ErrorCode::kInvalidArgument,
            "quota.source: expected policy or cluster, got \"Cluster\""},
        Bad{"quota: {source: [cluster]}\n", ErrorCode::kInvalidArgument,
            "quota.source: expected a string, got array"},
        Bad{"rules: {no-such-rule: warn}\n", ErrorCode::kInvalidArgument,
            "rules.no-such-rule: unknown rule id"},
        Bad{"rules: {quota-fit: loud}\n", ErrorCode::kInvalidArgument,
            "rules.quota-fit: expected enforce, warn or off"},
        Bad{"rules: {quota-fit: on}\n", ErrorCode::kInvalidArgument,
            "rules.quota-fit: true (YAML reads an unquoted on, yes, y or true so) is not an "
            "action; write enforce, warn or off"},
        Bad{"rules: {quota-fit: 1}\n", ErrorCode::kInvalidArgument,
            "rules.quota-fit: expected enforce, warn or off"},
        Bad{"images: {allow: \"*\"}\n", ErrorCode::kInvalidArgument,
            "images.allow: expected an array of strings"},
        Bad{"images: {deny: [{pattern: \"x:*\"}]}\n", ErrorCode::kInvalidArgument,
            "images.deny[0].reason: required"},
        Bad{"images: {deny: [{pattern: \"rayproject/ray:2.[0-9\", reason: old}]}\n",
            ErrorCode::kInvalidArgument,
            "images.deny[0].pattern: pattern \"rayproject/ray:2.[0-9\" can never match an image: "
            "the '[' at offset 17 is never closed"},
        Bad{"images: {deny: [{pattern: \"x:*\", reason: a}, {pattern: \"y:[!]\", reason: b}]}\n",
            ErrorCode::kInvalidArgument,
            "images.deny[1].pattern: pattern \"y:[!]\" can never match an image: the '[' at "
            "offset 2 is never closed"},
        Bad{"images: {allow: [\"ghcr.io/team/*\", \"ghcr.io/x:{2.1,2.2}\"]}\n",
            ErrorCode::kInvalidArgument,
            "images.allow[1]: pattern \"ghcr.io/x:{2.1,2.2}\" can never match an image: '{' at "
            "offset 10 cannot appear in an image reference"},
        Bad{"images: {allow: [\"ghcr.io/x: 1\"]}\n", ErrorCode::kInvalidArgument,
            "images.allow[0]: pattern \"ghcr.io/x: 1\" can never match an image: a space at "
            "offset 10"},
        Bad{"images: {allow: [\"ghcr.io/x\\\\\"]}\n", ErrorCode::kInvalidArgument,
            "images.allow[0]: pattern \"ghcr.io/x\\\" can never match an image: the pattern ends "
            "in a lone '\\'"},
        Bad{"images: {stock: {patterns: [\"rayproject/ray:2.[9-0]*\"]}}\n",
            ErrorCode::kInvalidArgument,
            "images.stock.patterns[0]: pattern \"rayproject/ray:2.[9-0]*\" can never match an "
            "image: the range '9'-'0' in the class at offset 17 is reversed"},
        Bad{"images: {deny: [{pattern: \"ghcr.io[/]x\", reason: r}]}\n",
            ErrorCode::kInvalidArgument,
            "images.deny[0].pattern: pattern \"ghcr.io[/]x\" can never match an image: the class "
            "at offset 7 holds '/'"},
        Bad{"images: {deny: [{pattern: \"x:[ %]\", reason: r}]}\n", ErrorCode::kInvalidArgument,
            "images.deny[0].pattern: pattern \"x:[ %]\" can never match an image: the class [ %] "
            "at offset 2 matches no character an image reference holds"},
        Bad{"images: {deny: [{pattern: \"x:[[:foo:]]\", reason: r}]}\n",
            ErrorCode::kInvalidArgument,
            "images.deny[0].pattern: pattern \"x:[[:foo:]]\" can never match an image: [:foo:] is "
            "not a character class"},
        Bad{"images: {stock: {botocoreMin: latest}}\n", ErrorCode::kInvalidArgument,
            "images.stock.botocoreMin: expected a version"},
        Bad{"kuberay: {version: \"2.0\"}\n", ErrorCode::kUnsupported,
            "kuberay.version: KubeRay 2.0"},
        Bad{"kuberay: {version: \"1.8\"}\n", ErrorCode::kUnsupported,
            "kuberay.version: KubeRay 1.8"},
        Bad{"kuberay: {version: 1.6}\n", ErrorCode::kInvalidArgument,
            "kuberay.version: expected a quoted string"},
        Bad{"kuberay: {version: \"one\"}\n", ErrorCode::kInvalidArgument,
            "kuberay.version: expected MAJOR.MINOR"},
        Bad{"kuberay: {featureGates: {Other: true}}\n", ErrorCode::kInvalidArgument,
            "kuberay.featureGates.Other: unknown key"},
        Bad{"kuberay: {version: \"1.4\"}\n", ErrorCode::kInvalidArgument,
            "lifecycle.mode: deletionRules needs KubeRay 1.5"},
        Bad{"kuberay: {version: \"1.5\"}\n", ErrorCode::kInvalidArgument,
            "lifecycle.mode: deletionRules needs KubeRay 1.5 or later with the "
            "RayJobDeletionPolicy "
            "feature gate on (kuberay.version is 1.5, gate off)"},
        Bad{"kuberay: {version: \"1.6\"}\nlifecycle: {mode: deletionPolicy}\n",
            ErrorCode::kInvalidArgument, "lifecycle.mode: deletionPolicy needs KubeRay 1.3 or 1.4"},
        Bad{"kuberay: {version: \"1.3\"}\nlifecycle: {mode: deletionPolicy}\n",
            ErrorCode::kInvalidArgument, "lifecycle.mode: deletionPolicy needs"},
        Bad{"kuberay: {version: \"1.1\"}\nlifecycle: {mode: operatorDeletesRayJob}\n",
            ErrorCode::kInvalidArgument, "lifecycle.mode: operatorDeletesRayJob needs KubeRay 1.2"},
        Bad{"kuberay: {version: \"1.2\", featureGates: {RayJobDeletionPolicy: true}}\n",
            ErrorCode::kInvalidArgument,
            "kuberay.featureGates.RayJobDeletionPolicy: the gate does not exist"}));

// Patterns that look unusual but can match an image load; each is matched by the image beside
// it, so that the validation refuses only patterns that match nothing.
TEST(PolicyFile, AcceptsEveryPatternThatCanMatch) {
  struct Good {
    const char* pattern;
    const char* image;
  };
  const std::vector<Good> good = {
      {"rayproject/ray:2.4[13]*", "rayproject/ray:2.41.0"},
      {"rayproject/ray:2.4[!0-9]", "rayproject/ray:2.4a"},
      {"rayproject/ray:2.4[^13]", "rayproject/ray:2.42"},
      {"ghcr.io/x:[[:digit:]]*", "ghcr.io/x:2.41"},
      {"x:[]a]", "x:]"},
      {"\\[::1\\]:5000/*", "[::1]:5000/ray"},
      {"ghcr.io/x:2\\.4?", "ghcr.io/x:2.41"},
      {"*", "ubuntu"},
      {"x@sha256:*", "x@sha256:0123"},
  };
  for (const Good& g : good) {
    EXPECT_TRUE(policy::glob_match(g.pattern, g.image)) << g.pattern;
    // Single-quoted YAML keeps every backslash as written.
    const std::string quoted = "'" + std::string(g.pattern) + "'";
    const std::string yaml = "apiVersion: rayjob-guard.io/v1\nkind: Policy\nimages:\n  allow: [" +
                             quoted + "]\n  deny: [{pattern: " + quoted +
                             ", reason: r}]\n  stock: {patterns: [" + quoted + "]}\n";
    const Result<LoadedPolicy> p = decode_policy(yaml);
    EXPECT_TRUE(p.ok()) << g.pattern << ": " << (p.ok() ? "" : p.error().message);
  }
}

TEST(PolicyFile, HeaderErrors) {
  Result<LoadedPolicy> p = decode_policy("apiVersion: v1\nkind: Policy\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message.rfind("apiVersion:", 0), 0u);
  p = decode_policy("apiVersion: rayjob-guard.io/v1\nkind: Config\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message.rfind("kind:", 0), 0u);
  p = decode_policy("a: [\n");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("line"), std::string::npos);
  p = decode_policy("");
  ASSERT_FALSE(p.ok());
}

TEST(PolicyFile, ValidModesPerVersion) {
  auto ok = [](const std::string& body) {
    Result<LoadedPolicy> p = decode_policy(std::string(kHeader) + body);
    EXPECT_TRUE(p.ok()) << body << ": " << (p.ok() ? "" : p.error().message);
    return p;
  };
  auto p13 =
      ok("kuberay: {version: \"1.3\", featureGates: {RayJobDeletionPolicy: true}}\n"
         "lifecycle: {mode: deletionPolicy}\n");
  auto p15 = ok("kuberay: {version: \"1.5\", featureGates: {RayJobDeletionPolicy: true}}\n"
                "lifecycle: {mode: reaper}\n");
  auto p16 = ok("kuberay: {version: \"1.6\"}\nlifecycle: {mode: deletionRules}\n");
  auto p10 = ok("kuberay: {version: \"1.0\"}\nlifecycle: {mode: reaper}\n");
  if (p10.ok()) {
    EXPECT_FALSE(p10.value().config.kuberay.ray_job_deletion_policy_gate);
  }
  auto p12 = ok("kuberay: {version: \"1.2\"}\nlifecycle: {mode: operatorDeletesRayJob}\n");
  auto p17 = ok("kuberay: {version: \"1.7\"}\n");
  if (p17.ok()) {
    EXPECT_TRUE(p17.value().config.kuberay.ray_job_deletion_policy_gate);
  }
}

// KubeRay 1.5's deletion rules match jobStatus only: a deployment that fails before the Ray job
// ends is never deleted, so the policy refuses deletionRules mode there and names what to use.
TEST(PolicyFile, DeletionRulesModeRefusedOnKubeRay15) {
  for (const char* body :
       {"kuberay: {version: \"1.5\", featureGates: {RayJobDeletionPolicy: true}}\n",
        "kuberay: {version: \"1.5\", featureGates: {RayJobDeletionPolicy: true}}\n"
        "lifecycle: {mode: deletionRules}\n"}) {
    Result<LoadedPolicy> p = decode_policy(std::string(kHeader) + body);
    ASSERT_FALSE(p.ok()) << body;
    EXPECT_EQ(p.error().code, ErrorCode::kInvalidArgument);
    const std::string& m = p.error().message;
    EXPECT_NE(m.find("lifecycle.mode: deletionRules is refused on KubeRay 1.5"), std::string::npos) << m;
    EXPECT_NE(m.find("lifecycle.mode reaper"), std::string::npos) << m;
    EXPECT_NE(m.find("operatorDeletesRayJob"), std::string::npos) << m;
    EXPECT_NE(m.find("KubeRay 1.6"), std::string::npos) << m;
  }
}

TEST(PolicyFile, HashIgnoresCommentsOrderAndSpelling) {
  Result<LoadedPolicy> a =
      decode_policy(std::string(kHeader) +
                    "# a comment\nquota: {default: {requests.cpu: \"16\", pods: 20}}\n"
                    "rules: {image-pinned: warn}\n");
  Result<LoadedPolicy> b = decode_policy(
      "rules:\n  image-pinned: warn   # trailing\n"
      "quota:\n  default:\n    pods: \"20\"\n    requests.cpu: 16000m\n"
      "kind: Policy\napiVersion: rayjob-guard.io/v1\n");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(a.value().hash, b.value().hash);
  Result<LoadedPolicy> c = decode_policy(std::string(kHeader) +
                                         "quota: {default: {requests.cpu: \"17\", pods: 20}}\n"
                                         "rules: {image-pinned: warn}\n");
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a.value().hash, c.value().hash);
}

TEST(PolicyFile, HashNamesMaxPreRunningDeadlineOnlyWhenItDiffersFromItsDefault) {
  // A policy written before the key existed keeps its hash; setting it to another value changes it.
  Result<LoadedPolicy> before = decode_policy(std::string(kHeader) + "lifecycle: {maxBackoffLimit: 1}\n");
  Result<LoadedPolicy> same = decode_policy(
      std::string(kHeader) + "lifecycle: {maxBackoffLimit: 1, maxPreRunningDeadlineSeconds: 3600}\n");
  Result<LoadedPolicy> other = decode_policy(
      std::string(kHeader) + "lifecycle: {maxBackoffLimit: 1, maxPreRunningDeadlineSeconds: 1800}\n");
  ASSERT_TRUE(before.ok() && same.ok() && other.ok());
  EXPECT_EQ(before.value().hash, same.value().hash);
  EXPECT_NE(before.value().hash, other.value().hash);
  EXPECT_EQ(other.value().config.lifecycle.max_pre_running_deadline_seconds, 1800);
}

TEST(PolicyFile, KueueLocalQueuesDecodeAndChangeTheHash) {
  Result<LoadedPolicy> plain = decode_policy(std::string(kHeader));
  Result<LoadedPolicy> queues = decode_policy(
      std::string(kHeader) +
      "kueue:\n  localQueues:\n    team-a/batch: {requests.cpu: \"32\", requests.nvidia.com/gpu: 4, "
      "pods: 40}\n");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  ASSERT_TRUE(queues.ok()) << queues.error().message;
  const auto& q = queues.value().config.kueue.local_queues;
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q.at("team-a/batch").at("requests.cpu").to_string(), "32");
  EXPECT_EQ(q.at("team-a/batch").at("requests.nvidia.com/gpu").to_string(), "4");
  EXPECT_NE(plain.value().hash, queues.value().hash);
}

TEST(PolicyFile, QuotaSourceDecodesAndNamesItInTheHashOnlyWhenCluster) {
  // A policy without the key keeps the hash it had before the key existed.
  Result<LoadedPolicy> plain =
      decode_policy(std::string(kHeader) + "quota: {unknownNamespace: deny}\n");
  Result<LoadedPolicy> policy = decode_policy(
      std::string(kHeader) + "quota: {source: policy, unknownNamespace: deny}\n");
  Result<LoadedPolicy> cluster = decode_policy(
      std::string(kHeader) + "quota:\n  source: cluster\n  unknownNamespace: useDefault\n"
                             "  namespaces: {tenant-a: {pods: 10}}\n");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  ASSERT_TRUE(cluster.ok()) << cluster.error().message;
  EXPECT_EQ(plain.value().config.quota.source, policy::QuotaConfig::Source::kPolicy);
  EXPECT_EQ(policy.value().config.quota.source, policy::QuotaConfig::Source::kPolicy);
  EXPECT_EQ(plain.value().hash, policy.value().hash);
  const policy::QuotaConfig& q = cluster.value().config.quota;
  EXPECT_EQ(q.source, policy::QuotaConfig::Source::kCluster);
  EXPECT_EQ(q.unknown_namespace, policy::QuotaConfig::UnknownNamespace::kUseDefault);
  EXPECT_EQ(q.namespaces.at("tenant-a").at("pods"), policy::Quantity::from_units(10));
  Result<LoadedPolicy> cluster_only =
      decode_policy(std::string(kHeader) + "quota: {source: cluster, unknownNamespace: deny}\n");
  ASSERT_TRUE(cluster_only.ok()) << cluster_only.error().message;
  EXPECT_NE(plain.value().hash, cluster_only.value().hash);
}

TEST(PolicyFile, HashOfDefaultIsStable) {
  Result<LoadedPolicy> a = decode_policy(default_policy_yaml());
  Result<LoadedPolicy> b = decode_policy(default_policy_yaml());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value().hash, b.value().hash);
}

TEST(PolicyFile, LoadMissingFileIsUnavailable) {
  Result<LoadedPolicy> p = load_policy_file("does-not-exist/policy.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::kUnavailable);
}

// `off` unquoted is YAML 1.1's boolean false (kubectl reads it so, and so does the policy
// reader): it is the action off, as the docs write it. Quoted, it is the string "off".
TEST(PolicyFile, UnquotedOffTurnsARuleOff) {
  for (const char* rules : {"rules: {image-pinned: off}\n", "rules:\n  image-pinned: off\n",
                            "rules: {image-pinned: \"off\"}\n", "rules: {image-pinned: false}\n"}) {
    Result<LoadedPolicy> p = decode_policy(std::string(kHeader) + rules);
    ASSERT_TRUE(p.ok()) << rules << p.error().message;
    EXPECT_EQ(p.value().config.action(RuleId::kImagePinned), RuleAction::kOff) << rules;
  }
}

// Issue 23: a multi-byte character (or a byte-order mark) before the last setting once made the
// reader cut the policy short by the number of extra bytes, so this policy was read with the
// allow pattern "registry.corp/*" (any image of the registry) instead of
// "registry.corp/*:2.52.0". Each variant must read exactly as its ASCII twin.
TEST(PolicyFile, MultiByteCommentsDoNotChangeThePolicy) {
  const std::string body =
      "lifecycle:\n  maxActiveDeadlineSeconds: 3600\nrules:\n  image-pinned: enforce\n"
      "images:\n  allow:\n    - registry.corp/*:2.52.0\n";
  Result<LoadedPolicy> ascii =
      decode_policy(std::string(kHeader) + "# -- platform team --\n" + body);
  ASSERT_TRUE(ascii.ok()) << ascii.error().message;
  ASSERT_EQ(ascii.value().config.images.allow, std::vector<std::string>{"registry.corp/*:2.52.0"});
  EXPECT_EQ(ascii.value().config.lifecycle.max_active_deadline_seconds, 3600);
  const std::string dash = "\xE2\x80\x94";
  for (const std::string& text : {
           std::string(kHeader) + "# " + dash + dash + " platform team " + dash + dash + "\n" +
               body,
           std::string(kHeader) + "# \xC3\xA9quipe \xF0\x9F\x98\x80\n" + body,
           "\xEF\xBB\xBF" + std::string(kHeader) + "# -- platform team --\n" + body,
           std::string(kHeader) + "# -- platform team --\r\n" + body,
       }) {
    Result<LoadedPolicy> p = decode_policy(text);
    ASSERT_TRUE(p.ok()) << text << "\n" << p.error().message;
    EXPECT_EQ(p.value().config.images.allow, ascii.value().config.images.allow) << text;
    EXPECT_EQ(p.value().config.lifecycle.max_active_deadline_seconds, 3600) << text;
    EXPECT_EQ(p.value().hash, ascii.value().hash) << text;
  }
}

}  // namespace
}  // namespace rjg::admission
