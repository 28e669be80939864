// One sweep: list -> decide -> delete -> log.
#include "reaper/reap_pass.hpp"

#include <spdlog/spdlog.h>

#include "policy/reap_decision.hpp"

namespace rjg::reaper {
namespace {

// Quotes a value for a key=value log line: the message of a failed RayJob can hold anything.
std::string q(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

std::string opt(const std::optional<std::string>& s) { return s.value_or(""); }

void handle(KubeApi& api, const ReapOptions& options, const policy::ReapCandidate& c,
            std::int64_t now, ReapStats& stats) {
  const policy::ReapDecision d = policy::decide_reap(c, options.lifecycle, now);
  switch (d.action) {
    case policy::ReapAction::kKeep:
      ++stats.kept;
      spdlog::debug("reap action=keep namespace={} name={} reason={}", c.namespace_, c.name,
                    q(d.reason));
      return;
    case policy::ReapAction::kSkip:
      ++stats.skipped;
      spdlog::info(
          "reap action=skip namespace={} name={} uid={} jobStatus={} deploymentStatus={} "
          "reason={}",
          c.namespace_, c.name, c.uid, opt(c.job_status), opt(c.job_deployment_status),
          q(d.reason));
      return;
    case policy::ReapAction::kDelete:
      break;
  }
  // status.message is only worth keeping for failures; for successes it is noise.
  const std::string message =
      d.outcome == policy::ReapOutcome::kFailed ? " message=" + q(opt(c.message)) : "";
  if (options.dry_run) {
    ++stats.deleted;
    spdlog::info(
        "reap action=would-delete namespace={} name={} uid={} jobStatus={} "
        "deploymentStatus={} age={}s ttl={}s ttlSource={}{} reason={}",
        c.namespace_, c.name, c.uid, opt(c.job_status), opt(c.job_deployment_status), d.age_seconds,
        d.ttl_seconds, policy::ttl_source_name(d.ttl_source), message, q(d.reason));
    return;
  }
  const CallResult r = api.delete_rayjob(c.namespace_, c.name, c.uid);
  switch (r.outcome) {
    case ApiOutcome::kOk:
      ++stats.deleted;
      spdlog::info(
          "reap action=deleted namespace={} name={} uid={} jobStatus={} "
          "deploymentStatus={} age={}s ttl={}s ttlSource={}{} reason={}",
          c.namespace_, c.name, c.uid, opt(c.job_status), opt(c.job_deployment_status),
          d.age_seconds, d.ttl_seconds, policy::ttl_source_name(d.ttl_source), message,
          q(d.reason));
      return;
    case ApiOutcome::kNotFound:
    case ApiOutcome::kConflict:
      // Someone else deleted it, or it was replaced by a new object of the same name: the uid
      // precondition protected the new one. Not an error.
      ++stats.already_gone;
      spdlog::info("reap action=already-gone namespace={} name={} uid={} status={} reason={}",
                   c.namespace_, c.name, c.uid, r.status,
                   q(r.status == 404 ? "deleted meanwhile" : "replaced meanwhile (uid changed)"));
      return;
    case ApiOutcome::kRetryable:
    case ApiOutcome::kFatal:
      ++stats.failed;
      spdlog::error(
          "reap action=delete-failed namespace={} name={} uid={} status={} attempts={} "
          "error={}",
          c.namespace_, c.name, c.uid, r.status, r.attempts,
          q(r.status == 0 ? r.error : r.body.substr(0, 300)));
      return;
  }
}

}  // namespace

ReapStats run_reap_pass(KubeApi& api, const ReapOptions& options, const Clock& now) {
  ReapStats stats;
  std::string token;
  do {
    Result<admission::RayJobListPage> page =
        api.list_page(options.namespace_, options.page_size, token);
    if (!page) {
      stats.list_failed = true;
      stats.list_error = page.error().message;
      spdlog::error("reap action=list-failed namespace={} error={}",
                    options.namespace_.empty() ? "*" : options.namespace_, q(page.error().message));
      break;
    }
    const std::int64_t t = now();
    for (const policy::ReapCandidate& c : page.value().items) {
      ++stats.listed;
      handle(api, options, c, t, stats);
    }
    token = std::move(page.value().continue_token);
  } while (!token.empty());
  spdlog::info(
      "reap pass listed={} deleted={} kept={} skipped={} already_gone={} failed={} "
      "list_failed={} dry_run={}",
      stats.listed, stats.deleted, stats.kept, stats.skipped, stats.already_gone, stats.failed,
      stats.list_failed, options.dry_run);
  return stats;
}

}  // namespace rjg::reaper
