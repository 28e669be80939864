// Table-driven rule tests: a row mutates the compliant RayJob and/or the default policy, runs
// one rule (every other rule off) and lists exactly the findings it expects, in order. A failure
// prints the row's name and every finding the rule actually reported.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "policy/evaluate.hpp"
#include "test/policy/rayjob_builder.hpp"

namespace rjg::policy::testing {

// One expected finding: its field path exactly, and a fragment its message contains.
struct Expect {
  std::string field;
  std::string fragment;
  Finding::Kind kind = Finding::Kind::kViolation;
};

struct Row {
  std::string name;
  std::function<void(RayJob&, PolicyConfig&)> mutate;
  std::vector<Expect> expected;  // empty: the rule reports nothing
};

// Returns `policy` with every rule but `id` off.
inline PolicyConfig only_rule(RuleId id, PolicyConfig policy) {
  for (RuleId other : kAllRules) {
    policy.rule_actions[static_cast<std::size_t>(other)] =
        other == id ? RuleAction::kEnforce : RuleAction::kOff;
  }
  return policy;
}

inline std::string describe(const Findings& findings) {
  std::string text;
  for (const Finding& f : findings) {
    text += "  [" + std::string(rule_id_name(f.rule)) + "]" +
            (f.kind == Finding::Kind::kAdvisory ? " (advisory) " : " ") + f.field + ": " +
            f.message + "\n";
  }
  return text.empty() ? "  (none)\n" : text;
}

// Runs rule `id` on the mutated compliant RayJob and checks the findings against `row`.
inline void check_row(RuleId id, const Row& row) {
  RayJob job = compliant_rayjob();
  PolicyConfig policy = default_test_policy();
  if (row.mutate) {
    row.mutate(job, policy);
  }
  const Findings got = run_rules(job, job.metadata.namespace_, only_rule(id, policy));
  const std::string trace = "row: " + row.name + "\nfindings:\n" + describe(got);
  SCOPED_TRACE(trace);
  ASSERT_EQ(got.size(), row.expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].rule, id);
    EXPECT_EQ(got[i].field, row.expected[i].field) << "finding " << i;
    EXPECT_NE(got[i].message.find(row.expected[i].fragment), std::string::npos)
        << "finding " << i << " lacks \"" << row.expected[i].fragment << "\"";
    EXPECT_EQ(got[i].kind, row.expected[i].kind) << "finding " << i;
  }
}

inline void check_rows(RuleId id, const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    check_row(id, row);
  }
}

inline bool has_rule(const Findings& findings, RuleId id) {
  for (const Finding& f : findings) {
    if (f.rule == id) {
      return true;
    }
  }
  return false;
}

// Drives `mutate` (which must make rule `id` report a violation) through evaluate() on CREATE
// under each action of `id`: enforce denies, warn admits with a warning, off does not evaluate.
inline void check_actions(RuleId id, const std::function<void(RayJob&, PolicyConfig&)>& mutate) {
  for (RuleAction action : {RuleAction::kEnforce, RuleAction::kWarn, RuleAction::kOff}) {
    AdmissionRequest request;
    request.operation = Operation::kCreate;
    request.namespace_ = "tenant-a";
    RayJob job = compliant_rayjob();
    PolicyConfig policy = default_test_policy();
    mutate(job, policy);
    policy.rule_actions[static_cast<std::size_t>(id)] = action;
    request.object = job;
    const Verdict v = evaluate(request, policy);
    SCOPED_TRACE("action " + std::to_string(static_cast<int>(action)) + "\ndenials:\n" +
                 describe(v.denials) + "warnings:\n" + describe(v.warnings));
    switch (action) {
      case RuleAction::kEnforce:
        EXPECT_FALSE(v.allowed);
        EXPECT_TRUE(has_rule(v.denials, id));
        EXPECT_FALSE(has_rule(v.warnings, id));
        break;
      case RuleAction::kWarn:
        EXPECT_FALSE(has_rule(v.denials, id));
        EXPECT_TRUE(has_rule(v.warnings, id));
        break;
      case RuleAction::kOff:
        EXPECT_FALSE(has_rule(v.denials, id));
        EXPECT_FALSE(has_rule(v.warnings, id));
        break;
    }
  }
}

}  // namespace rjg::policy::testing
