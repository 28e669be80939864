// TlsSession: one HTTPS connection on the admission port. Only I/O happens here: the TLS
// handshake, reading requests with per-step timeouts, and writing what route() returns. route()
// runs on the session's I/O thread for a body under config.large_review_bytes, else in the
// large-review lane (review_pool.hpp), whose answer comes back to the session's context.
// Sequence (Beast's do_x/on_x pairs): run -> on_handshake -> do_wait_idle -> on_idle_data ->
// do_read_header -> on_read_header -> [do_read_body -> on_read_body] -> send -> on_write ->
// do_wait_idle ... -> do_close -> on_shutdown.
// Timeouts: handshake and header (config.header_timeout, counted from the first byte of a
// request), body (config.body_timeout), idle keep-alive (config.idle_timeout, own timer).
#pragma once

#include <memory>

#include "server/io_pool.hpp"
#include "server/shared_state.hpp"

namespace rjg::server {

// Starts a session on an accepted socket with the TLS context current at accept time. `state`
// must outlive the session. The socket's context must be run by one thread (IoPool): the session
// relies on it to serialize its handlers. May be called from any thread. Never throws.
void start_tls_session(Socket&& socket, SharedState& state);

}  // namespace rjg::server
