-- wrk script: POST the file named by $BODY (an AdmissionReview) as application/json.
-- usage: BODY=review.json wrk -t1 -c8 -d5s --latency -s bench/post.lua https://127.0.0.1:PORT/validate
local f = assert(io.open(os.getenv("BODY") or "review.json", "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
