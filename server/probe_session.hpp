// ProbeSession: one plain-HTTP connection on the probe port (/healthz, /readyz, /metrics).
// Reads a request with a timeout, answers with route_probe(), keeps the connection alive.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include "server/shared_state.hpp"

namespace rjg::server {

// Starts a session on an accepted socket. `state` must outlive the session. Never throws.
void start_probe_session(boost::asio::ip::tcp::socket&& socket, SharedState& state);

}  // namespace rjg::server
