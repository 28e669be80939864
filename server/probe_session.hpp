// ProbeSession: one plain-HTTP connection on the probe port (/healthz, /readyz, /metrics).
// Reads a request with a timeout, answers with route_probe(), keeps the connection alive.
#pragma once

#include "server/io_pool.hpp"
#include "server/shared_state.hpp"

namespace rjg::server {

// Starts a session on an accepted socket, whose context must be run by one thread (IoPool).
// `state` must outlive the session. Never throws.
void start_probe_session(Socket&& socket, SharedState& state);

}  // namespace rjg::server
