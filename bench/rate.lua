-- wrk script: like post.lua, but each connection sends at a fixed mean rate, so that latency can be
-- measured at a given load (wrk2 is not in Debian). $RATE is the total requests/s, spread over
-- the connections; a request is never sent before the previous answer arrived (closed loop with
-- a pacing delay), so when the server keeps up the offered rate is about RATE (a little less:
-- the answer's own latency adds to each interval).
-- The delay is drawn uniformly from 0.5-1.5x the mean interval: with a fixed delay the connections
-- lock into step (answered together, they wait the same delay and send together again), and wrk's
-- millisecond timers then fire them as one burst, so each request also waited for the others of
-- its burst (p50 at 3000 req/s, typical review: 0.6 ms fixed, 0.4 ms jittered; p99 unchanged).
local f = assert(io.open(os.getenv("BODY") or "review.json", "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"

local rate = tonumber(os.getenv("RATE") or "1000")
local conns = tonumber(os.getenv("CONNS") or "1")
local interval_ms = 1000.0 * conns / rate
math.randomseed(os.time())

function delay()
  return interval_ms * (0.5 + math.random())
end
