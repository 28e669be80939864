#!/usr/bin/env bash
# The webhook's cost as the tenant sees it: dry-run RayJob creates through a real kube-apiserver
# (test/e2e/cluster.sh, v1.20.2 on loopback) with rayjob-guard registered (failurePolicy Fail)
# versus unregistered, interleaved.
#
# usage: bench/peers/apiserver-p99.sh [--count 300] [--rounds 2] [--payload typical]
# Env: RJG_BIN (default: the newest build*/rayjob-guard); the cluster scripts' own variables.
# Prints a markdown table: p50/p90/p99/mean per round and the median added latency.
set -euo pipefail
BL_NAME=apiserver-p99
. "$(dirname "$0")/bench-lib.sh"

count=300 rounds=2 payload=typical
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count="${2:?}"; shift 2 ;;
    --rounds) rounds="${2:?}"; shift 2 ;;
    --payload) payload="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) bl_die "unknown argument '$1'" ;;
  esac
done
repo=$(bl_repo)
bin=$(bl_find_rjg)
[ -x "$bin" ] || bl_die "no rayjob-guard executable (build it or set RJG_BIN)"
[ -x "$repo/test/e2e/cluster.sh" ] && [ -x "$repo/test/e2e/webhook.sh" ] || bl_die "test/e2e/cluster.sh and webhook.sh are needed"
work=$(mktemp -d "${TMPDIR:-/tmp}/apiserver-p99.XXXXXX")
cleanup() {
  RJG_BINARY="$bin" "$repo/test/e2e/webhook.sh" down "$work/cluster" >/dev/null 2>&1 || true
  "$repo/test/e2e/cluster.sh" down "$work/cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
python3 "$repo/bench/peers/make-reviews.py" "$work/payloads" >/dev/null
"$repo/test/e2e/cluster.sh" up "$work/cluster" >"$work/cluster.log" 2>&1 || { tail -20 "$work/cluster.log" >&2; bl_die "cluster.sh up failed"; }
RJG_BINARY="$bin" "$repo/test/e2e/webhook.sh" up "$work/cluster" >"$work/webhook.log" 2>&1 || { tail -20 "$work/webhook.log" >&2; bl_die "webhook.sh up failed"; }
kc="$work/cluster/admin.kubeconfig"
client="$repo/bench/peers/apiserver_client.py"

decisions() { awk '/"admission decision"/ {n++} END {print n + 0}' "$work/cluster/webhook/serve.log" 2>/dev/null || echo 0; }
echo "| round | webhook | requests | reviews the webhook answered | p50 ms | p90 ms | p99 ms | mean ms |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for r in $(seq "$rounds"); do
  for mode in registered unregistered; do
    if [ "$mode" = registered ]; then
      RJG_BINARY="$bin" "$repo/test/e2e/webhook.sh" register "$work/cluster" >/dev/null 2>&1
    else
      RJG_BINARY="$bin" "$repo/test/e2e/webhook.sh" unregister "$work/cluster" >/dev/null 2>&1
    fi
    sleep 2  # the apiserver picks webhook configuration changes up from its informer
    d0=$(decisions)
    read -r n ok p50 p90 p99 mean < <(python3 "$client" "$kc" "$work/payloads/$payload.json" "$count") ||
      bl_die "dry-run creates failed ($mode)"
    sleep 0.3  # decision lines reach the log within 100 ms (batched, server/log_sink.hpp)
    answered=$(( $(decisions) - d0 ))
    # Registered: every create must have reached the webhook; unregistered: none.
    if [ "$mode" = registered ] && [ "$answered" -lt "$n" ]; then bl_die "only $answered of $n creates reached the webhook"; fi
    if [ "$mode" = unregistered ] && [ "$answered" -ne 0 ]; then bl_die "$answered creates reached an unregistered webhook"; fi
    echo "| $r | $mode | $ok/$n | $answered | $p50 | $p90 | $p99 | $mean |"
    echo "$mode $p50 $p99" >>"$work/summary.txt"
  done
done
python3 - "$work/summary.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(mode, i): return statistics.median(float(r[i]) for r in rows if r[0] == mode)
print()
print(f"added by the webhook (medians over rounds): p50 {med('registered',1) - med('unregistered',1):+.2f} ms, "
      f"p99 {med('registered',2) - med('unregistered',2):+.2f} ms")
PY
