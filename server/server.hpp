// serve(): the whole `rayjob-guard serve` process: load the certificate and the policy, bind the
// HTTPS and probe listeners, run the event loop on config.threads threads, reload changed files,
// and shut down gracefully on SIGTERM/SIGINT. Owns the io_context, threads, signals and draining.
//
// Shutdown: on the first signal /readyz turns 503 at once while both ports keep serving for
// shutdown_delay; then the HTTPS listener closes, open connections answer their next request with
// Connection: close and idle ones are closed; when none is left (or shutdown_timeout after the
// signal) the loop stops and serve() returns ok. A second signal skips the rest of the delay.
#pragma once

#include <string>

#include "common/result.hpp"
#include "server/cluster_view.hpp"
#include "server/router.hpp"
#include "server/server_config.hpp"

namespace rjg::server {

// Runs the server until shutdown. Returns ok after a graceful shutdown; returns an Error before
// serving anything when startup fails: kUnavailable (unreadable file, port in use) or
// kInvalidArgument (bad certificate or key, key not matching, invalid policy). `version` is the
// build version for logs and rayjob_guard_build_info. `review` answers each decoded request body;
// empty (production) means rjg::admission::review. bench/transport_floor.cpp passes a stored
// answer to measure everything the server does around review(). `cluster` (kept alive by the
// caller until serve returns) gives the ResourceQuotas for a policy with quota.source: cluster,
// which needs one: /readyz then also waits for its first sync, /metrics shows its staleness, and
// a reload that changes quota.source is refused.
Status serve(const ServerConfig& config, const std::string& version, ReviewFn review = {},
             const ClusterView* cluster = nullptr);

}  // namespace rjg::server
