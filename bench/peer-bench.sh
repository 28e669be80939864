#!/usr/bin/env bash
# Benchmarks `rayjob-guard serve` against its peers on the same machine, same payloads, same pins:
#   go     bench/peers/go-webhook: Go net/http + encoding/json (the controller-runtime /
#          Gatekeeper / Kyverno serving stack) doing comparable checks
#   nginx  a fixed-answer floor: TLS + HTTP/1.1 + a canned AdmissionReview, no work at all
#
# usage: bench/peer-bench.sh [--seconds 10] [--rounds 3] [--connections 16]
#                            [--servers rjg,go,nginx] [--out FILE.md]
# Env: RJG_BIN (default: the newest build*/rayjob-guard).
#
# Servers run on core 0 (taskset -c 0), wrk on core 1 (-t1). Runs are interleaved
# (round 1: small rjg, small go, small nginx, typical rjg, ...), and each figure is the median over
# rounds. Keep-alive runs use the small (~3 KB), typical (~8 KB) and large (~55 KB) reviews from
# bench/peers/make-reviews.py; the handshake run sends `Connection: close`, so every request is a
# new TCP connection with a full TLS handshake: wrk offers its previous session on reconnect, so
# all three servers run without session tickets/cache (the apiserver never resumes webhook
# sessions), and the script checks that no session is resumed. Prints a markdown table and
# the ratios against the goals (>= 3x Go's req/s, <= 1/3 of Go's p99, >= 70% of nginx's req/s).
# "run-queue wait" is the share of a run's wall time the server was runnable but waiting for core 0
# (other processes on it, /proc/PID/task/*/schedstat): on a shared machine it tells a row that
# measured the machine from one that measured the server.
set -euo pipefail
# shellcheck source=bench/peers/bench-lib.sh
. "$(dirname "$0")/peers/bench-lib.sh"
harness_init peer-bench colon

seconds=10 rounds=3 conns=16 servers="rjg,go,nginx" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="${2:?}"; shift 2 ;;
    --rounds) rounds="${2:?}"; shift 2 ;;
    --connections) conns="${2:?}"; shift 2 ;;
    --servers) servers="${2:?}"; shift 2 ;;
    --out) out="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
need wrk taskset python3 curl openssl
repo=$(bl_repo)
work=$(mktemp -d "${TMPDIR:-/tmp}/peer-bench.XXXXXX")
trap 'bl_cleanup; rm -rf "$work/gocache"' EXIT
"$repo/certs/mint-certs.sh" --out "$work/certs" --san IP:127.0.0.1 --san DNS:localhost >/dev/null
python3 "$repo/bench/peers/make-reviews.py" "$work/payloads" >/dev/null
bl_write_lua "$work"

IFS=, read -r -a want <<<"$servers"
declare -A port pid
for s in "${want[@]}"; do
  case "$s" in
    rjg)
      bin=$(bl_find_rjg)
      [ -x "$bin" ] || die "no rayjob-guard executable (build it or set RJG_BIN)"
      # One core (taskset -c 0), one I/O thread: as Go derives GOMAXPROCS=1 from the affinity mask.
      bl_start_rjg "$work" "$bin" --threads 1; port[rjg]=$RJG_PORT; pid[rjg]=$RJG_PID ;;
    go)
      need go
      bl_build_go "$work"; bl_start_go "$work"; port[go]=$GO_PORT; pid[go]=$GO_PID ;;
    nginx)
      need nginx
      # The floor answers what a real server answers for the small review.
      curl -sk -o "$work/canned.json" -H 'Content-Type: application/json' \
        --data-binary @"$work/payloads/small.json" "https://127.0.0.1:${port[rjg]:-${port[go]:-0}}/validate" 2>/dev/null ||
        printf '%s' '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true}}' >"$work/canned.json"
      [ -s "$work/canned.json" ] || printf '%s' '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true}}' >"$work/canned.json"
      bl_start_nginx "$work" "$work/canned.json"; port[nginx]=$NGX_PORT; pid[nginx]=$NGX_PID ;;
    *) die "unknown server '$s' (rjg, go, nginx)" ;;
  esac
done

# Every server must give a 200 with the uid echoed before it is measured.
for s in "${want[@]}"; do
  got=$(curl -sk -H 'Content-Type: application/json' --data-binary @"$work/payloads/typical.json" \
    "https://127.0.0.1:${port[$s]}/validate")
  echo "$got" | grep -q '"uid":"705ab4f5-6393-11e8-b7cc-42010a800002"' || die "$s answered '$got'"
  [ "$s" = nginx ] || echo "$got" | grep -q '"allowed":true' || die "$s did not allow the benchmark RayJob: $got"
done

# The handshake row measures full handshakes, as the apiserver makes them: no server may let a
# client resume (wrk offers its previous session when it reconnects).
for s in "${want[@]}"; do
  [ "$(bl_resumes "${port[$s]}")" = no ] || die "$s resumes TLS sessions: the handshake row would not measure full handshakes"
done

results="$work/results.txt"
: >"$results"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; ${seconds}s x ${rounds} rounds, ${conns} connections" >&2
for r in $(seq "$rounds"); do
  for payload in small typical large handshake; do
    for s in "${want[@]}"; do
      f="$work/wrk-$s-$payload-$r.txt"
      cpu0=$(bl_cpu_ticks "${pid[$s]}")
      runq0=$(bl_runq_ns "${pid[$s]}")
      if [ "$payload" = handshake ]; then
        bl_wrk "$f" "$work/payloads/small.json" "https://127.0.0.1:${port[$s]}/validate" "$seconds" "$conns" post-close.lua
      else
        bl_wrk "$f" "$work/payloads/$payload.json" "https://127.0.0.1:${port[$s]}/validate" "$seconds" "$conns" post.lua
      fi
      read -r rps p50 p99 n errs < <(bl_parse_wrk "$f")
      cpu=$(( $(bl_cpu_ticks "${pid[$s]}") - cpu0 ))
      # Share of the run the server waited for core 0 (other processes on it): high values mean
      # the row measured the machine, not the server.
      runq=$(python3 -c "print('%.0f' % (100 * ($(bl_runq_ns "${pid[$s]}") - $runq0) / 1e9 / $seconds))")
      # Server CPU per request (us): independent of how busy the shared machine is.
      cpu_us=$(python3 -c "print('%.0f' % ($cpu * 10000 / max(1, $n)))")
      rss=$(bl_rss_kb "${pid[$s]}")
      echo "$s $payload $r $rps $p50 $p99 $n $errs $rss $cpu_us $runq" >>"$results"
      printf '  round %s %-9s %-5s %9s req/s  p50 %7s ms  p99 %7s ms  errors %s  rss %s KiB  cpu %s us/req  run-queue wait %s%%\n' \
        "$r" "$payload" "$s" "$rps" "$p50" "$p99" "$errs" "$rss" "$cpu_us" "$runq" >&2
      kill -0 "${pid[$s]}" 2>/dev/null || die "$s died during the $payload run"
    done
  done
done

python3 - "$results" "$seconds" "$rounds" "$conns" >"$work/table.md" <<'EOF'
import statistics, sys, collections, subprocess, datetime
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    s, p, r, rps, p50, p99, n, errs, rss, cpu, runq = line.split()
    rows[(s, p)].append((float(rps), float(p50), float(p99), int(errs), int(rss), float(cpu),
                         float(runq)))
servers = [s for s in ("rjg", "go", "nginx") if any(k[0] == s for k in rows)]
names = {"rjg": "rayjob-guard", "go": "Go net/http", "nginx": "nginx floor"}
def med(s, p, i):
    v = [x[i] for x in rows.get((s, p), [])]
    return statistics.median(v) if v else None
print("| payload | server | req/s | p50 ms | p99 ms | server CPU us/req | run-queue wait | errors | RSS MiB (max) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for p in ("small", "typical", "large", "handshake"):
    for s in servers:
        if (s, p) not in rows:
            continue
        errs = sum(x[3] for x in rows[(s, p)])
        rss = max(x[4] for x in rows[(s, p)]) / 1024
        label = p if p != "handshake" else "new TLS connection per request (small)"
        print(f"| {label} | {names[s]} | {med(s,p,0):.0f} | {med(s,p,1):.2f} | {med(s,p,2):.2f} | {med(s,p,5):.0f} | {med(s,p,6):.0f}% | {errs} | {rss:.1f} |")
print()
if "rjg" in servers:
    print("| payload | rjg/Go req/s (goal >= 3) | rjg/Go p99 (goal <= 0.33) | rjg/nginx req/s (goal >= 0.70) | Go/rjg CPU per request |")
    print("|---|---:|---:|---:|---:|")
    for p in ("small", "typical", "large", "handshake"):
        cells = []
        for other, i, fmt in (("go", 0, "{:.2f}x"), ("go", 2, "{:.2f}"), ("nginx", 0, "{:.0%}")):
            a, b = med("rjg", p, i), med(other, p, i)
            if i == 0 and a is not None and b:
                cells.append(fmt.format(a / b))
            elif i == 2 and a is not None and b:
                cells.append(fmt.format(a / b))
            else:
                cells.append("-")
        a, b = med("rjg", p, 5), med("go", p, 5)
        cells.append(f"{b / a:.2f}x" if a and b else "-")
        print(f"| {p} | " + " | ".join(cells) + " |")
EOF
cat "$work/table.md"
# How contended the machine was: the kernel's CPU pressure (share of time some runnable task
# waited for a CPU, averaged over 60 s) and the load average, as the run ended.
echo "machine at the end: CPU pressure some avg60 $(sed -n 's/^some avg10=[^ ]* avg60=\([^ ]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null || echo '?')%, load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "$out" ] || cp "$work/table.md" "$out"
# Any error (non-2xx, socket error) in a keep-alive run makes the benchmark fail.
if awk '$2 != "handshake" && $8 > 0 {bad=1} END {exit !bad}' "$results"; then
  echo "peer-bench: errors during keep-alive runs (see above)" >&2
  exit 1
fi
