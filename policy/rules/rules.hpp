// The check function of every rule. One rule per file under policy/rules/, named after its id;
// each check_<id> appends what it finds to `out` and reads nothing but its arguments.
// Their context is policy/rule_context.hpp; the fixes two rules both ask for are declared in
// policy/shared_fixes.hpp, so that policy/kuberay/ uses them without including rules/.
#pragma once

#include "policy/finding.hpp"
#include "policy/rule_context.hpp"
#include "policy/shared_fixes.hpp"

namespace rjg::policy {

void check_kuberay_schema(const RuleContext& ctx, Findings& out);      // kuberay_schema.cpp
void check_submission_mode(const RuleContext& ctx, Findings& out);     // submission_mode.cpp
void check_reap_self(const RuleContext& ctx, Findings& out);           // reap_self.cpp
void check_reap_ttl(const RuleContext& ctx, Findings& out);            // reap_ttl.cpp
void check_active_deadline(const RuleContext& ctx, Findings& out);     // active_deadline.cpp
void check_backoff_limit(const RuleContext& ctx, Findings& out);       // backoff_limit.cpp
void check_cluster_selector(const RuleContext& ctx, Findings& out);    // cluster_selector.cpp
void check_resources_declared(const RuleContext& ctx, Findings& out);  // resources_declared.cpp
void check_quota_fit(const RuleContext& ctx, Findings& out);           // quota_fit.cpp
void check_image_contract(const RuleContext& ctx, Findings& out);      // image_contract.cpp
void check_image_pinned(const RuleContext& ctx, Findings& out);        // image_pinned.cpp
void check_kueue_webhook(const RuleContext& ctx, Findings& out);       // kueue_webhook.cpp

}  // namespace rjg::policy
