// Tests policy/kuberay/catalogue: the shape every table keeps (one row per fact, ends that are
// open or older than the newest version), that a version after the newest inherits every open
// fact with no edit, and the facts the rules rely on, each at the versions around its edges.
#include "policy/kuberay/catalogue.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace rjg::policy::kuberay {
namespace {

constexpr KubeRayVersion kNext{1, kNewestMinor + 1};

// Every span of every table, named for the failure message.
std::vector<std::pair<std::string, Span>> all_spans() {
  std::vector<std::pair<std::string, Span>> out;
  for (const OpRow& r : operator_checks()) {
    out.emplace_back("op " + std::to_string(static_cast<int>(r.key)), r.span);
  }
  for (const FieldRow& r : fields()) {
    out.emplace_back("field " + std::to_string(static_cast<int>(r.field)), r.span);
  }
  for (const CrdRow& r : crd_rules()) {
    out.emplace_back("crd " + std::to_string(static_cast<int>(r.key)), r.span);
  }
  for (const CrdDefaultRow& r : crd_defaults()) {
    out.emplace_back("default " + std::to_string(static_cast<int>(r.key)), r.span);
  }
  for (const BehaviorRow& r : behaviors()) {
    out.emplace_back("behavior " + std::to_string(static_cast<int>(r.key)), r.span);
  }
  for (const SubmissionModeRow& r : submission_modes()) {
    out.emplace_back("mode " + std::string(r.name), r.span);
  }
  for (const GateRow& r : feature_gates()) {
    out.emplace_back("gate " + std::string(r.name), r.span);
  }
  return out;
}

TEST(KubeRayCatalogue, EveryEndIsOpenOrOlderThanTheNewest) {
  for (const auto& [name, span] : all_spans()) {
    SCOPED_TRACE(name);
    EXPECT_GE(span.from, 0);
    EXPECT_LE(span.from, kNewestMinor) << "a fact of a version the catalogue does not support";
    EXPECT_TRUE(span.until == kOpen || (span.until >= span.from && span.until < kNewestMinor))
        << "until " << span.until << ": a fact that holds in the newest version stays open";
  }
}

TEST(KubeRayCatalogue, TheNextVersionInheritsEveryOpenFact) {
  // Adding a version is "bump kNewestMinor, add rows": what is open holds for it with no edit,
  // and what was closed stays closed.
  for (const auto& [name, span] : all_spans()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(holds(span, kNext), span.until == kOpen);
    EXPECT_EQ(holds(span, kNewest), span.until == kOpen);
  }
  EXPECT_TRUE(supported(kNewest));
  EXPECT_FALSE(supported(kNext));
  EXPECT_FALSE(supported({2, 0}));
  EXPECT_TRUE(supported({1, 0}));
}

TEST(KubeRayCatalogue, OneRowPerFact) {
  std::set<int> ops, fields_seen, crd, defaults, behavior;
  for (const OpRow& r : operator_checks()) {
    EXPECT_TRUE(ops.insert(static_cast<int>(r.key)).second);
  }
  for (const FieldRow& r : fields()) {
    EXPECT_TRUE(fields_seen.insert(static_cast<int>(r.field)).second);
  }
  for (const CrdRow& r : crd_rules()) {
    EXPECT_TRUE(crd.insert(static_cast<int>(r.key)).second);
  }
  for (const CrdDefaultRow& r : crd_defaults()) {
    EXPECT_TRUE(defaults.insert(static_cast<int>(r.key)).second);
  }
  for (const BehaviorRow& r : behaviors()) {
    EXPECT_TRUE(behavior.insert(static_cast<int>(r.key)).second);
  }
  // The enums are dense from 0: every value up to the last has its row.
  EXPECT_EQ(ops.size(), static_cast<std::size_t>(Op::kCollectorOptions) + 1);
  EXPECT_EQ(fields_seen.size(), static_cast<std::size_t>(Field::kWorkerPriority) + 1);
  EXPECT_EQ(crd.size(), static_cast<std::size_t>(Crd::kClusterOptionEnums) + 1);
  EXPECT_EQ(defaults.size(), static_cast<std::size_t>(CrdDefault::kDeletionRuleTtlSeconds) + 1);
  EXPECT_EQ(behavior.size(), static_cast<std::size_t>(Behavior::kDeletesRayJobAfterFinish) + 1);
  // A gate's spans never overlap: one compiled default per version.
  std::map<std::string, std::vector<Span>> gates;
  for (const GateRow& g : feature_gates()) {
    for (const Span& other : gates[std::string(g.name)]) {
      EXPECT_TRUE(g.span.until < other.from || other.until < g.span.from) << g.name;
    }
    gates[std::string(g.name)].push_back(g.span);
  }
}

TEST(KubeRayCatalogue, FactsAtTheirEdges) {
  struct Row {
    std::string fact;
    bool (*at)(KubeRayVersion);
    int first;  // the first minor version it holds for
    int last;   // the last, or kOpen
  };
  const std::vector<Row> rows = {
      {"parks refused RayJobs in ValidationFailed",
       [](KubeRayVersion v) { return does(Behavior::kParksRefused, v); }, 5, kOpen},
      {"rules match jobDeploymentStatus",
       [](KubeRayVersion v) { return runs(Op::kDeploymentCondition, v); }, 6, kOpen},
      {"DELETE_RAYJOB_CR_AFTER_JOB_FINISHES",
       [](KubeRayVersion v) { return does(Behavior::kDeletesRayJobAfterFinish, v); }, 2, kOpen},
      {"deletionPolicy", [](KubeRayVersion v) { return knows(Field::kDeletionPolicy, v); }, 3, 4},
      {"deletionStrategy", [](KubeRayVersion v) { return knows(Field::kDeletionStrategy, v); }, 5,
       kOpen},
      {"backoffLimit", [](KubeRayVersion v) { return knows(Field::kBackoffLimit, v); }, 2, kOpen},
      {"submissionMode", [](KubeRayVersion v) { return knows(Field::kSubmissionMode, v); }, 1,
       kOpen},
      {"InteractiveMode",
       [](KubeRayVersion v) { return knows_submission_mode("InteractiveMode", v); }, 3, kOpen},
      {"SidecarMode", [](KubeRayVersion v) { return knows_submission_mode("SidecarMode", v); }, 5,
       kOpen},
      {"metadata name check", [](KubeRayVersion v) { return runs(Op::kMetadataName, v); }, 4,
       kOpen},
      {"entrypoint required", [](KubeRayVersion v) { return crd_has(Crd::kEntrypointRequired, v); },
       0, 2},
      {"RayJobDeletionPolicy exists",
       [](KubeRayVersion v) { return feature_gate_default("RayJobDeletionPolicy", v).has_value(); },
       3, kOpen},
      {"RayJobDeletionPolicy on by default",
       [](KubeRayVersion v) { return feature_gate_default("RayJobDeletionPolicy", v) == true; }, 6,
       kOpen},
      {"AsyncJobInfoQuery exists",
       [](KubeRayVersion v) { return feature_gate_default("AsyncJobInfoQuery", v).has_value(); },
       6, 6},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.fact);
    if (r.first > 0) {
      EXPECT_FALSE(r.at({1, r.first - 1}));
    }
    EXPECT_TRUE(r.at({1, r.first}));
    if (r.last == kOpen) {
      EXPECT_TRUE(r.at(kNewest));
      EXPECT_TRUE(r.at(kNext));
    } else {
      EXPECT_TRUE(r.at({1, r.last}));
      EXPECT_FALSE(r.at({1, r.last + 1}));
    }
  }
}

TEST(KubeRayCatalogue, GateNamesAndVersionText) {
  EXPECT_EQ(feature_gate_names({1, 1}), "");
  EXPECT_EQ(feature_gate_names({1, 2}), "RayClusterStatusConditions");
  EXPECT_EQ(feature_gate_names({1, 4}), "RayClusterStatusConditions, RayJobDeletionPolicy");
  EXPECT_EQ(version_text({1, 6}), "1.6");
  EXPECT_EQ(span_text({5}), "1.5 or later");
  EXPECT_EQ(span_text({3, 4}), "1.3 or 1.4");
  EXPECT_EQ(span_text({2, 4}), "1.2 to 1.4");
  EXPECT_EQ(span_text({5, 5}), "1.5");
  // The lifecycle-mode messages of validate() take their versions from these spans.
  EXPECT_EQ(span_text(field_row(Field::kDeletionPolicy).span), "1.3 or 1.4");
  EXPECT_EQ(span_text(span_of(Behavior::kDeletesRayJobAfterFinish)), "1.2 or later");
  KubeRayConfig k;
  k.version = {1, 7};
  EXPECT_FALSE(feature_gate_on(k, "RayClusterMTLS"));
  k.feature_gates["RayClusterMTLS"] = true;
  EXPECT_TRUE(feature_gate_on(k, "RayClusterMTLS"));
  EXPECT_FALSE(feature_gate_on(k, "NoSuchGate"));
}

}  // namespace
}  // namespace rjg::policy::kuberay
