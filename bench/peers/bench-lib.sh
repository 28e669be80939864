# Shared helpers for bench/peer-bench.sh, bench/soak.sh and bench/peers/apiserver-p99.sh. Source
# it; it defines functions only, and sources test/harness/harness.sh (die, need, free_ports,
# stop_pid: the caller runs `harness_init NAME colon` for its "NAME: MSG" lines, exit 2 on die).
# Every server started here binds 127.0.0.1 on a port chosen at run time and is recorded in
# BL_PIDS so bl_cleanup (install it with `trap bl_cleanup EXIT`) stops it by PID.

# shellcheck source=test/harness/harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../test/harness/harness.sh"

BL_PIDS=()

# bl_repo: prints the repository root (two levels above this file).
bl_repo() { (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); }

# bl_cleanup: stops every process in BL_PIDS (TERM to all at once, then up to 5 s each before a
# KILL) and forgets them.
bl_cleanup() {
  local pid
  for pid in "${BL_PIDS[@]+"${BL_PIDS[@]}"}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${BL_PIDS[@]+"${BL_PIDS[@]}"}"; do
    stop_pid "$pid" 5
  done
  BL_PIDS=()
}

# bl_wait_port_file FILE KEY: waits up to 10 s for FILE to hold JSON with KEY, prints the value.
bl_wait_port_file() {
  local file="$1" key="$2" v
  for _ in $(seq 100); do
    if [ -s "$file" ]; then
      v=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$file" "$key" 2>/dev/null) \
        && { echo "$v"; return 0; }
    fi
    sleep 0.1
  done
  return 1
}

# bl_wait_tls PORT: waits up to 10 s until a TLS handshake on 127.0.0.1:PORT succeeds.
bl_wait_tls() {
  for _ in $(seq 100); do
    if curl -sk -o /dev/null --max-time 1 "https://127.0.0.1:$1/healthz"; then return 0; fi
    sleep 0.1
  done
  return 1
}

# bl_rss_kb PID: resident set size in KiB (VmRSS), or 0 when the process is gone.
bl_rss_kb() { awk '/^VmRSS:/ {print $2; f=1} END {if (!f) print 0}' "/proc/$1/status" 2>/dev/null || echo 0; }

# bl_cpu_ticks PID: user + system CPU time of the process (all threads) in clock ticks (1/100 s).
bl_cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# bl_runq_ns PID: nanoseconds the process's threads spent runnable but waiting for a CPU
# (/proc/PID/task/*/schedstat, field 2), or 0 when the process is gone. Its growth over a run, as a
# share of the run's wall time, says how much the server was starved by other work on its core.
bl_runq_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $2} END {printf "%d\n", s}'; }

# bl_find_rjg: prints the rayjob-guard executable: $RJG_BIN, else the newest build*/rayjob-guard.
bl_find_rjg() {
  if [ -n "${RJG_BIN:-}" ]; then echo "$RJG_BIN"; return; fi
  ls -t "$(bl_repo)"/build*/rayjob-guard 2>/dev/null | head -1
}

# bl_start_rjg DIR BIN [extra serve args...]: starts `serve` pinned to core 0 with DIR/certs and
# sets RJG_PID, RJG_PORT, RJG_PROBE. Logs go to DIR/rjg.log.
bl_start_rjg() {
  local dir="$1" bin="$2"; shift 2
  rm -f "$dir/rjg-ports.json"
  taskset -c 0 "$bin" serve --tls-cert "$dir/certs/tls.crt" --tls-key "$dir/certs/tls.key" \
    --listen 127.0.0.1:0 --probe-listen 127.0.0.1:0 --port-file "$dir/rjg-ports.json" "$@" \
    >>"$dir/rjg.log" 2>&1 &
  RJG_PID=$!
  BL_PIDS+=("$RJG_PID")
  RJG_PORT=$(bl_wait_port_file "$dir/rjg-ports.json" https) || die "rayjob-guard serve did not start (see $dir/rjg.log)"
  RJG_PROBE=$(bl_wait_port_file "$dir/rjg-ports.json" probe) || die "no probe port in $dir/rjg-ports.json"
}

# bl_build_go DIR: builds the Go peer into DIR/go-webhook (offline: no module downloads).
bl_build_go() {
  (cd "$(bl_repo)/bench/peers/go-webhook" && GOFLAGS=-mod=mod GOPROXY=off GOCACHE="${GOCACHE:-$1/gocache}" \
    go build -o "$1/go-webhook" .) || die "building the Go peer failed"
}

# bl_start_go DIR: starts the Go peer pinned to core 0; sets GO_PID, GO_PORT.
bl_start_go() {
  local dir="$1"
  rm -f "$dir/go-ports.json"
  taskset -c 0 "$dir/go-webhook" --tls-cert "$dir/certs/tls.crt" --tls-key "$dir/certs/tls.key" \
    --listen 127.0.0.1:0 --port-file "$dir/go-ports.json" >>"$dir/go.log" 2>&1 &
  GO_PID=$!
  BL_PIDS+=("$GO_PID")
  GO_PORT=$(bl_wait_port_file "$dir/go-ports.json" https) || die "the Go peer did not start (see $dir/go.log)"
}

# bl_start_nginx DIR RESPONSE_FILE: starts nginx (one worker, pinned to core 0) answering every
# POST /validate with the fixed body in RESPONSE_FILE; sets NGX_PID, NGX_PORT.
bl_start_nginx() {
  local dir="$1" resp="$2" ngx="$1/nginx"
  mkdir -p "$ngx/logs" "$ngx/tmp"
  # A port that was free a moment ago: nginx cannot bind port 0 and report it.
  NGX_PORT=$(free_ports 1)
  # nginx `return` takes a literal: escape backslashes and quotes of the JSON body.
  local body
  body=$(python3 -c 'import sys; print(open(sys.argv[1]).read().replace("\\","\\\\").replace("\"","\\\""))' "$resp")
  cat >"$ngx/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
error_log $ngx/logs/error.log warn;
pid $ngx/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $ngx/tmp;
  proxy_temp_path $ngx/tmp;
  fastcgi_temp_path $ngx/tmp;
  uwsgi_temp_path $ngx/tmp;
  scgi_temp_path $ngx/tmp;
  keepalive_requests 1000000;
  keepalive_timeout 90s;
  client_max_body_size 8m;
  client_body_buffer_size 128k;
  server {
    listen 127.0.0.1:$NGX_PORT ssl;
    ssl_certificate $dir/certs/tls.crt;
    ssl_certificate_key $dir/certs/tls.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    # No resumption, like rayjob-guard and the Go peer (the apiserver never resumes webhook
    # sessions; wrk would, as it keeps its session across reconnects).
    ssl_session_tickets off;
    ssl_session_cache off;
    ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305;
    location = /validate {
      default_type application/json;
      return 200 "$body";
    }
    location = /healthz { return 200 "ok"; }
  }
}
EOF
  taskset -c 0 nginx -p "$ngx" -c "$ngx/nginx.conf" >>"$dir/nginx.log" 2>&1 &
  NGX_PID=$!
  BL_PIDS+=("$NGX_PID")
  bl_wait_tls "$NGX_PORT" || die "nginx did not start (see $ngx/logs/error.log)"
}

# bl_resumes PORT: prints "yes" when a second connection to 127.0.0.1:PORT resumes the TLS
# session of the first (after a request, so TLS 1.3 tickets have arrived), "no" otherwise.
bl_resumes() {
  python3 - "$1" <<'EOF'
import socket, ssl, sys
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
def connect(session=None):
    t = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5),
                        session=session)
    t.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    while t.recv(4096):
        pass
    return t
first = connect()
second = connect(first.session)
print("yes" if second.session_reused else "no")
EOF
}

# bl_write_lua DIR: writes DIR/post.lua (POST $BODY as JSON) and DIR/post-close.lua (the same
# with Connection: close, so every request pays a new TCP connection and a full TLS handshake:
# no server issues session tickets, so wrk's reconnects, which offer the previous session, fall
# back to full handshakes).
bl_write_lua() {
  cat >"$1/post.lua" <<'EOF'
local f = assert(io.open(os.getenv("BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
EOF
  sed 's/^wrk.method = "POST"$/wrk.method = "POST"\nwrk.headers["Connection"] = "close"/' "$1/post.lua" >"$1/post-close.lua"
}

# bl_wrk OUT BODY URL SECONDS CONNECTIONS [LUA] [extra wrk args]: runs wrk pinned to core 1 and
# leaves its output in OUT.
bl_wrk() {
  local out="$1" body="$2" url="$3" secs="$4" conns="$5" lua="${6:-post.lua}"
  shift 6 2>/dev/null || shift $#
  BODY="$body" taskset -c 1 wrk -t1 -c"$conns" -d"${secs}s" --latency -s "$(dirname "$out")/$lua" "$@" "$url" >"$out" 2>&1
}

# bl_parse_wrk OUT: prints "rps p50_ms p99_ms requests errors" from wrk output
# (errors = non-2xx responses + socket errors of every kind).
bl_parse_wrk() {
  python3 - "$1" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
def ms(v, unit):
    return float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]
rps = re.search(r"Requests/sec:\s+([\d.]+)", t)
p50 = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s|m)\s*$", t, re.M)
p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s|m)\s*$", t, re.M)
req = re.search(r"(\d+) requests in", t)
errs = 0
m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", t)
if m: errs += int(m.group(1))
m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
if m: errs += sum(int(x) for x in m.groups())
print("%.1f %.3f %.3f %d %d" % (float(rps.group(1)) if rps else 0.0,
      ms(*p50.groups()) if p50 else -1, ms(*p99.groups()) if p99 else -1,
      int(req.group(1)) if req else 0, errs))
EOF
}
