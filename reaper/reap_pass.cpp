// One sweep: list -> decide -> delete -> log.
#include "reaper/reap_pass.hpp"

#include <vector>

#include "logging/log.hpp"
#include "policy/reap_decision.hpp"

namespace rjg::reaper {
namespace {

std::string opt(const std::optional<std::string>& s) { return s.value_or(""); }

using logging::Field;
using logging::Level;
using logging::log_event;

std::string seconds(std::int64_t s) { return std::to_string(s) + "s"; }

// The fields every line about one RayJob starts with.
std::vector<Field> about(std::string action, const policy::ReapCandidate& c) {
  return {{"action", std::move(action)}, {"namespace", c.namespace_}, {"name", c.name},
          {"uid", c.uid}};
}

void handle(kube::KubeApi& api, const ReapOptions& options, const policy::ReapCandidate& c,
            std::int64_t now, ReapStats& stats) {
  const policy::ReapDecision d = policy::decide_reap(c, options.lifecycle, now);
  switch (d.action) {
    case policy::ReapAction::kKeep:
      ++stats.kept;
      log_event(Level::kDebug, "reap",
                {{"action", std::string("keep")}, {"namespace", c.namespace_}, {"name", c.name},
                 {"reason", d.reason}});
      return;
    case policy::ReapAction::kSkip:
      ++stats.skipped;
      {
        std::vector<Field> f = about("skip", c);
        f.push_back({"jobStatus", opt(c.job_status)});
        f.push_back({"deploymentStatus", opt(c.job_deployment_status)});
        f.push_back({"reason", d.reason});
        log_event(Level::kInfo, "reap", f);
      }
      return;
    case policy::ReapAction::kDelete:
      break;
  }
  // The fields of a would-delete and a deleted line; status.message is only worth keeping for
  // failures (for successes it is noise).
  const auto deletion = [&](std::string action) {
    std::vector<Field> f = about(std::move(action), c);
    f.push_back({"jobStatus", opt(c.job_status)});
    f.push_back({"deploymentStatus", opt(c.job_deployment_status)});
    f.push_back({"age", seconds(d.age_seconds)});
    f.push_back({"ttl", seconds(d.ttl_seconds)});
    f.push_back({"ttlSource", std::string(policy::ttl_source_name(d.ttl_source))});
    if (d.outcome == policy::ReapOutcome::kFailed) {
      f.push_back({"message", opt(c.message)});
    }
    f.push_back({"reason", d.reason});
    return f;
  };
  if (options.dry_run) {
    ++stats.deleted;
    log_event(Level::kInfo, "reap", deletion("would-delete"));
    return;
  }
  const kube::CallResult r = api.delete_rayjob(c.namespace_, c.name, c.uid);
  switch (r.outcome) {
    case kube::ApiOutcome::kOk:
      ++stats.deleted;
      log_event(Level::kInfo, "reap", deletion("deleted"));
      return;
    case kube::ApiOutcome::kNotFound:
    case kube::ApiOutcome::kConflict: {
      // Someone else deleted it, or it was replaced by a new object of the same name: the uid
      // precondition protected the new one. Not an error.
      ++stats.already_gone;
      std::vector<Field> f = about("already-gone", c);
      f.push_back({"status", static_cast<long long>(r.status)});
      f.push_back({"reason", std::string(r.status == 404 ? "deleted meanwhile"
                                                         : "replaced meanwhile (uid changed)")});
      log_event(Level::kInfo, "reap", f);
      return;
    }
    case kube::ApiOutcome::kRetryable:
    case kube::ApiOutcome::kFatal: {
      ++stats.failed;
      std::vector<Field> f = about("delete-failed", c);
      f.push_back({"status", static_cast<long long>(r.status)});
      f.push_back({"attempts", static_cast<long long>(r.attempts)});
      f.push_back({"error", r.status == 0 ? r.error : r.body.substr(0, 300)});
      log_event(Level::kError, "reap", f);
      return;
    }
  }
}

}  // namespace

ReapStats run_reap_pass(kube::KubeApi& api, const ReapOptions& options, const Clock& now) {
  ReapStats stats;
  std::string token;
  do {
    Result<admission::RayJobListPage> page =
        api.list_page(options.namespace_, options.page_size, token);
    if (!page) {
      stats.list_failed = true;
      stats.list_error = page.error().message;
      log_event(Level::kError, "reap",
                {{"action", std::string("list-failed")},
                 {"namespace", options.namespace_.empty() ? std::string("*") : options.namespace_},
                 {"error", page.error().message}});
      break;
    }
    const std::int64_t t = now();
    for (const policy::ReapCandidate& c : page.value().items) {
      ++stats.listed;
      handle(api, options, c, t, stats);
    }
    token = std::move(page.value().continue_token);
  } while (!token.empty());
  const auto n = [](auto v) { return static_cast<long long>(v); };
  log_event(Level::kInfo, "reap pass",
            {{"listed", n(stats.listed)},
             {"deleted", n(stats.deleted)},
             {"kept", n(stats.kept)},
             {"skipped", n(stats.skipped)},
             {"already_gone", n(stats.already_gone)},
             {"failed", n(stats.failed)},
             {"list_failed", stats.list_failed},
             {"dry_run", options.dry_run}});
  return stats;
}

}  // namespace rjg::reaper
