#!/usr/bin/env bash
# Benchmarks `rayjob-guard serve` against an nginx floor answering a fixed AdmissionReview.
#
# usage: bench/run-bench.sh [--binary PATH] [--floor PATH] [--duration SECONDS] [--connections N]
#                           [--log-level LEVEL]
#
# The server runs pinned to CPU 0 (taskset -c 0, one I/O thread) and wrk pinned to CPU 1, over TLS
# keep-alive, for small (~3 KB), typical (~8 KB) and large (~60 KB) RayJob reviews generated here
# from test/server/fixtures/review-allow.json. nginx (one worker on CPU 0, same certificate)
# answers a fixed body as the floor; server and nginx runs are interleaved. The transport floor
# (bench/transport_floor.cpp, built next to the binary in bench/) is the same server with review()
# replaced by the stored answer for the same payload: real server = transport floor + review().
# The server logs at --log-level (default info, i.e. one decision line per request, as deployed).
# Also measured:
# p99 at half the measured max rate (h2load --h1 --rps: each connection sends on its own timer
# with microsecond resolution, open loop while the server keeps up; wrk can only pace in whole
# milliseconds, which fires the paced connections in bursts and overshoots rates whose interval is
# under a few ms), peak RSS (VmHWM) and time to ready
# (process start -> /readyz 200). At half the max rate nginx runs at the same pacing and each
# server's run-queue wait (time runnable but not running, /proc/PID/task/*/schedstat) is shown,
# so a high p99 can be told apart: the server's own, or CPU 0 shared with other work. Prints
# markdown tables. Needs wrk, h2load, nginx, openssl, curl, python3, taskset. Everything binds
# 127.0.0.1; every process started is stopped by PID.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=test/harness/harness.sh
. "$here/../test/harness/harness.sh"
harness_init run-bench colon
binary="$repo/build/rayjob-guard"
floor=""
log_level=info
duration=5
conns=16
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="${2:?}"; shift 2 ;;
    --duration) duration="${2:?}"; shift 2 ;;
    --connections) conns="${2:?}"; shift 2 ;;
    --floor) floor="${2:?}"; shift 2 ;;
    --log-level) log_level="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
need wrk h2load nginx openssl curl python3 taskset
[ -x "$binary" ] || die "no binary at $binary (use --binary)"
[ -n "$floor" ] || floor="$(dirname "$binary")/bench/rjg_transport_floor"
[ -x "$floor" ] || die "no transport floor at $floor (build with -DRJG_BUILD_BENCHMARKS=ON, or use --floor)"

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]+"${pids[@]}"}"; do stop_pid "$p" 10; done
  rm -rf "$work"
}
trap cleanup EXIT

"$repo/certs/mint-certs.sh" --out "$work/certs" --san IP:127.0.0.1 >/dev/null

# Reviews of three sizes: the fixture, padded with worker groups and labels.
python3 - "$repo/test/server/fixtures/review-allow.json" "$work" <<'PY'
import copy, json, sys
src, out = sys.argv[1], sys.argv[2]
base = json.load(open(src))
def grow(target):
    r = copy.deepcopy(base)
    obj = r["request"]["object"]
    labels = obj["metadata"].setdefault("labels", {})
    i = 0
    while len(json.dumps(r, separators=(",", ":"))) < target:
        labels[f"bench.example.com/label-{i:04d}"] = "x" * 40
        i += 1
    return r
for name, size in (("small", 3000), ("typical", 8000), ("large", 60000)):
    text = json.dumps(grow(size), separators=(",", ":"))
    open(f"{out}/{name}.json", "w").write(text)
PY

# --- rayjob-guard ----------------------------------------------------------------------------
# The flags of `serve` that the server and the transport floor share (each adds --port-file).
serve_flags=(--tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key"
  --listen 127.0.0.1:0 --probe-listen 127.0.0.1:0 --threads 1 --log-level "$log_level"
  --shutdown-delay 0 --shutdown-timeout 2)
# port_of FILE KEY: waits for the port file a server writes once bound, prints its KEY port. Bash
# alone: two python3 start-ups here used to add 50-130 ms to the measured time to ready.
port_of() {
  until [ -s "$1" ]; do sleep 0.001; done
  local ports; ports=$(<"$1")
  [[ $ports =~ \"$2\":([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}

start_ms=$(date +%s%3N)
taskset -c 0 "$binary" serve "${serve_flags[@]}" --port-file "$work/ports.json" \
  2>"$work/server.log" &
server_pid=$!
pids+=("$server_pid")
https=$(port_of "$work/ports.json" https)
probe=$(port_of "$work/ports.json" probe)
until curl -fs "http://127.0.0.1:$probe/readyz" >/dev/null; do sleep 0.001; done
ready_ms=$(( $(date +%s%3N) - start_ms ))

# --- nginx floor -------------------------------------------------------------------------------
ngx="$work/nginx"
mkdir -p "$ngx"
nport=$(free_ports 1)
fixed=$(curl -s --cacert "$work/certs/ca.crt" -H 'Content-Type: application/json' \
  --data-binary @"$work/typical.json" "https://127.0.0.1:$https/validate")
python3 - "$here/nginx/nginx.conf.in" "$ngx/nginx.conf" "$ngx" "$nport" "$work/certs" "$fixed" <<'PY'
import sys
tpl, out, prefix, port, certs, body = sys.argv[1:7]
text = open(tpl).read()
for k, v in (("@PREFIX@", prefix), ("@PORT@", port), ("@CERT@", certs + "/tls.crt"),
             ("@KEY@", certs + "/tls.key"), ("@BODY@", body.replace("'", "\\'"))):
    text = text.replace(k, v)
open(out, "w").write(text)
PY
taskset -c 0 nginx -p "$ngx" -c "$ngx/nginx.conf" -e "$ngx/error.log" &
nginx_pid=$!
pids+=("$nginx_pid")
until curl -sk -o /dev/null "https://127.0.0.1:$nport/"; do sleep 0.01; done

# watch_client PID: waits for the load generator PID to exit and writes its run-queue wait (CPU 1
# shared), sampled every 0.2 s since it is gone at exit, to $work/client.runq.
watch_client() {
  local client_pid=$1 wait0 wait1
  wait0=$(runq_ns "$client_pid"); wait1=$wait0
  while kill -0 "$client_pid" 2>/dev/null; do
    local w; w=$(runq_ns "$client_pid"); [ -n "$w" ] && [ "$w" != 0 ] && wait1=$w
    sleep 0.2
  done
  wait "$client_pid" || true
  echo "$(( wait1 - wait0 ))" > "$work/client.runq"
}

# run_h2load URL BODY RATE -> "req/s p50_ms p99_ms errors": RATE requests/s over $conns
# connections, each on its own timer (h2load --rps), after a 1 s warm-up; percentiles from the
# per-request log.
run_h2load() {
  local url=$1 body=$2 rate=$3
  rm -f "$work/h2load.tsv"
  taskset -c 1 h2load --h1 -c"$conns" -m1 --rps="$(( (rate + conns - 1) / conns ))" \
    -D"$duration" --warm-up-time=1 -d "$body" -H 'Content-Type: application/json' \
    --log-file="$work/h2load.tsv" "$url" > "$work/h2load.out" 2>&1 &
  watch_client $!
  python3 - "$work/h2load.tsv" "$work/h2load.out" <<'PY'
import re, sys
rows = [l.split("\t") for l in open(sys.argv[1]) if l.strip()]
lat = sorted(int(r[2]) for r in rows)
starts = sorted(int(r[0]) for r in rows)
out = open(sys.argv[2]).read()
m = re.search(r"(\d+) failed, (\d+) errored, (\d+) timeout", out)
err = sum(int(x) for x in m.groups()) if m else 1
err += sum(1 for r in rows if not r[1].startswith("2"))
if not lat:
    print("0 0 0 1")
else:
    span = max(1, starts[-1] - starts[0]) / 1e6
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] / 1000.0
    print(f"{len(lat) / span:.0f} {pick(0.50):.3f} {pick(0.99):.3f} {err}")
PY
}

# run_wrk URL BODY -> "req/s p50_ms p99_ms errors": as fast as the server answers.
run_wrk() {
  local url=$1 body=$2
  BODY="$body" taskset -c 1 wrk -t1 -c"$conns" -d"${duration}s" \
    --latency -s "$here/post.lua" "$url" > "$work/wrk.out" 2>&1 &
  watch_client $!
  python3 - "$work/wrk.out" <<'PY'
import re, sys
out = open(sys.argv[1]).read()
def ms(v, unit):
    return float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
p = dict((q, ms(v, u)) for q, v, u in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M))
err = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
non2 = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
err += int(non2.group(1)) if non2 else 0
print(f"{rps:.0f} {p.get('50', 0):.3f} {p.get('99', 0):.3f} {err}")
PY
}

# utime + stime of a process, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# Nanoseconds the process's threads spent runnable but waiting for a CPU (schedstat field 2).
runq_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $2} END {printf "%d\n", s}'; }
# run_paced PID URL BODY RATE -> "req/s p50_ms p99_ms errors server%/h2load%": a paced run, and
# the share of its wall time the server (CPU 0) and h2load (CPU 1) spent runnable but waiting for
# their CPU, i.e. other processes on the core, not the server.
run_paced() {
  local pid=$1 url=$2 body=$3 rate=$4 w0 w1 out
  w0=$(runq_ns "$pid")
  out=$(run_h2load "$url" "$body" "$rate")
  w1=$(runq_ns "$pid")
  echo "$out $(python3 -c "print(f'{100*($w1-$w0)/1e9/($duration+1):.1f}% / {100*$(<"$work/client.runq")/1e9/($duration+1):.1f}%')")"
}

# start_floor SIZE: starts the transport floor answering SIZE's stored review; sets floor_pid and
# floor_port. stop_floor stops it.
start_floor() {
  rm -f "$work/floor-ports.json"
  taskset -c 0 "$floor" --answer-from "$work/$1.json" "${serve_flags[@]}" \
    --port-file "$work/floor-ports.json" 2>"$work/floor.log" &
  floor_pid=$!
  pids+=("$floor_pid")
  floor_port=$(port_of "$work/floor-ports.json" https)
}
stop_floor() { stop_pid "$floor_pid" 10; }

rows=()
declare -A max_rps cpu_row
for size in small typical large; do
  url="https://127.0.0.1:$https/validate"
  t0=$(cpu_ticks "$server_pid")
  read -r srps sp50 sp99 serr < <(run_wrk "$url" "$work/$size.json")
  t1=$(cpu_ticks "$server_pid")
  # CPU time the server spent per request: independent of how much of CPU 0 others left us.
  cpu_us=$(python3 -c "print(f'{($t1-$t0)*1e6/$(getconf CLK_TCK)/max(1,$srps*$duration):.0f}')")
  n0=$(cpu_ticks "$nginx_pid")
  read -r nrps np50 np99 nerr < <(run_wrk "https://127.0.0.1:$nport/validate" "$work/$size.json")
  n1=$(cpu_ticks "$nginx_pid")
  start_floor "$size"
  f0=$(cpu_ticks "$floor_pid")
  read -r frps fp50 fp99 ferr < <(run_wrk "https://127.0.0.1:$floor_port/validate" "$work/$size.json")
  f1=$(cpu_ticks "$floor_pid")
  stop_floor
  max_rps[$size]=$srps
  bytes=$(wc -c < "$work/$size.json")
  read -r pct fcpu fpct ncpu < <(python3 -c "
hz = $(getconf CLK_TCK)
per = lambda t0, t1, rps: f'{(t1-t0)*1e6/hz/max(1,rps*$duration):.1f}'
print(f'{100*$srps/$nrps:.0f}%', per($f0, $f1, $frps), f'{100*$frps/$nrps:.0f}%', per($n0, $n1, $nrps))")
  rows+=("| $size ($bytes B) | $srps | $sp50 | $sp99 | $serr | $cpu_us | $nrps | $np50 | $np99 | $ncpu | $pct | $frps | $fcpu | $ferr | $fpct |")
  cpu_row[$size]="$cpu_us $ncpu $fcpu"
done
# At half the max rate the server is idle half the time, so its p99 should be about one request's
# service time. Whatever the p99 shows beyond that comes from the server or the machine: nginx is
# run at the same pacing on the same core, and both servers' run-queue wait is shown, to tell
# which (a p99 of tens of ms with a run-queue wait of several % is CPU 0 being shared).
half_rows=()
for size in small typical large; do
  half=$(( ${max_rps[$size]} / 2 ))
  read -r hrps hp50 hp99 herr hwait < <(run_paced "$server_pid" "https://127.0.0.1:$https/validate" "$work/$size.json" "$half")
  read -r nhrps nhp50 nhp99 nherr nhwait < <(run_paced "$nginx_pid" "https://127.0.0.1:$nport/validate" "$work/$size.json" "$half")
  half_rows+=("| $size | $half | $hrps | $hp50 | $hp99 | $herr | $hwait | $nhrps | $nhp99 | $nhwait |")
done
rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")

# Where the server's CPU per request goes: the transport floor (above) plus review() of the same
# body, timed in process on CPU 0, next to what RapidJSON alone needs to tokenize it. With the
# server CPU-bound, 70 % of nginx's req/s allows nginx's CPU per request / 0.7.
bench_bin="$(dirname "$floor")/rjg_review_benchmark"
split_rows=()
if [ -x "$bench_bin" ]; then
  taskset -c 0 "$bench_bin" --benchmark_min_time=0.5 --benchmark_format=json \
    --benchmark_filter='^(review|tokenize)/' --review-file="$work/small.json" \
    --review-file="$work/typical.json" --review-file="$work/large.json" > "$work/review.json" 2>/dev/null
  for size in small typical large; do
    read -r cpu_us ncpu fcpu <<< "${cpu_row[$size]}"
    split_rows+=("$(python3 - "$work/review.json" "$size" "$cpu_us" "$ncpu" "$fcpu" <<'PY'
import json, sys
path, size, cpu, ncpu, fcpu = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:6])
t = {b["name"]: b["cpu_time"] / 1000.0 for b in json.load(open(path))["benchmarks"]}
review, tok = t[f"review/{size}.json"], t[f"tokenize/{size}.json"]
print(f"| {size} | {cpu:.0f} | {fcpu:.1f} | {review:.1f} | {tok:.1f} | {ncpu:.1f} | {ncpu / 0.7:.1f} |")
PY
)")
  done
fi

echo
echo "rayjob-guard serve (1 thread, CPU 0, --log-level $log_level) vs nginx fixed reply (1 worker, CPU 0) vs the transport floor (the same server, review() replaced by the stored answer); wrk -t1 -c$conns -d${duration}s on CPU 1, TLS keep-alive"
echo
echo "| review | rjg req/s | rjg p50 ms | rjg p99 ms | rjg errors | rjg CPU µs/req | nginx req/s | nginx p50 ms | nginx p99 ms | nginx CPU µs/req | rjg / nginx | floor req/s | floor CPU µs/req | floor errors | floor / nginx |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "p99 at half the max rate: h2load --h1 -c$conns --rps (per-connection timers, microsecond resolution) on CPU 1, ${duration}s after a 1 s warm-up"
echo
echo "| review | target req/s (half max) | rjg req/s | rjg p50 ms | rjg p99 ms | rjg errors | run-queue wait rjg / h2load | nginx req/s | nginx p99 ms | run-queue wait nginx / h2load |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${half_rows[@]}"
if [ ${#split_rows[@]} -gt 0 ]; then
  echo
  echo "Server CPU per request, split: transport floor (the server with review() replaced by a stored answer) + review() in process ($(basename "$bench_bin"), CPU 0); RapidJSON's tokenizer alone on the same body; the budget 70 % of nginx's req/s allows"
  echo
  echo "| review | rjg CPU µs/req | floor CPU µs/req | review() µs | RapidJSON tokenize µs | nginx CPU µs/req | budget at 70 % of nginx µs/req |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${split_rows[@]}"
fi
echo
echo "| measure | value | target |"
echo "|---|---|---|"
echo "| peak RSS (VmHWM) | $(( rss_kb / 1024 )) MiB ($rss_kb kB) | < 30 MiB |"
echo "| time to ready (start -> /readyz 200) | $ready_ms ms | < 100 ms |"
echo
echo "load average during the run: $(cut -d' ' -f1-3 /proc/loadavg) (req/s and latency are only comparable on an idle machine)"
