-- wrk script: like post.lua, but each connection sends at a fixed rate, so that latency can be
-- measured at a given load (wrk2 is not in Debian). $RATE is the total requests/s, spread over
-- the connections; a request is never sent before the previous answer arrived (closed loop with
-- a pacing delay), so when the server keeps up the offered rate is RATE.
local f = assert(io.open(os.getenv("BODY") or "review.json", "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"

local rate = tonumber(os.getenv("RATE") or "1000")
local conns = tonumber(os.getenv("CONNS") or "1")
local interval_ms = 1000.0 * conns / rate

function delay()
  return interval_ms
end
