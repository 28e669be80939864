#!/usr/bin/env bash
# The webhook's cost as the tenant sees it: dry-run RayJob creates through a real, current
# kube-apiserver (test/e2e/cluster.sh: the pinned Kubernetes on loopback) with, in turn, no webhook,
# rayjob-guard, and the Go net/http peer (bench/peers/go-webhook) registered the same way
# (failurePolicy Fail, one ValidatingWebhookConfiguration at a time), interleaved round by round.
#
# usage: bench/peers/apiserver-p99.sh [--count 300] [--rounds 3] [--payload typical]
# Env: RJG_BIN (default: the newest build*/rayjob-guard); the cluster scripts' own variables.
# Prints a markdown table (p50/p90/p99/mean per round and webhook) and, per webhook, the median
# over rounds of its added p50 and p99 over no webhook. Every create is counted at the apiserver
# (apiserver_admission_webhook_admission_duration_seconds_count per webhook name): all of a
# round's creates must have reached the registered webhook, and none another one.
set -euo pipefail
# shellcheck source=bench/peers/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
harness_init apiserver-p99 colon

count=300 rounds=3 payload=typical
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count="${2:?}"; shift 2 ;;
    --rounds) rounds="${2:?}"; shift 2 ;;
    --payload) payload="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
repo=$(bl_repo)
bin=$(bl_find_rjg)
[ -x "$bin" ] || die "no rayjob-guard executable (build it or set RJG_BIN)"
work=$(mktemp -d "${TMPDIR:-/tmp}/apiserver-p99.XXXXXX")
cleanup() {
  bl_cleanup
  RJG_BINARY="$bin" "$repo/test/e2e/webhook.sh" down "$work/cluster" >/dev/null 2>&1 || true
  "$repo/test/e2e/cluster.sh" down "$work/cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
python3 "$repo/bench/peers/make-reviews.py" "$work/payloads" >/dev/null
"$repo/test/e2e/cluster.sh" up "$work/cluster" >"$work/cluster.log" 2>&1 || { tail -20 "$work/cluster.log" >&2; die "cluster.sh up failed"; }
. "$work/cluster/env"
RJG_BINARY="$bin" "$repo/test/e2e/webhook.sh" up "$work/cluster" --no-register >"$work/webhook.log" 2>&1 || { tail -20 "$work/webhook.log" >&2; die "webhook.sh up failed"; }
. "$work/cluster/webhook/env"
certs=$work/cluster/webhook/certs
# The Go peer serves with the same certificate (its SANs are 127.0.0.1 and localhost).
mkdir -p "$work/go/certs"
cp "$certs/tls.crt" "$certs/tls.key" "$work/go/certs/"
GOCACHE=${GOCACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/go/build} bl_build_go "$work/go"
bl_start_go "$work/go"
kc=$work/cluster/admin.kubeconfig
client=$repo/bench/peers/apiserver_client.py
kubectl=$KUBECTL

# register NAME PORT: the one registration (ValidatingWebhookConfiguration bench-webhook) points
# at the webhook on PORT, named NAME; `register none` removes it.
register() {
  "$kubectl" --kubeconfig "$kc" delete validatingwebhookconfiguration bench-webhook --ignore-not-found >/dev/null
  [ "$1" = none ] && return 0
  "$kubectl" --kubeconfig "$kc" create -f - >/dev/null <<EOF
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: bench-webhook}
webhooks:
  - name: $1.bench.rayjob-guard.io
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    timeoutSeconds: 5
    clientConfig:
      url: https://127.0.0.1:$2/validate
      caBundle: $(base64 -w0 <"$certs/ca.crt")
    rules:
      - {apiGroups: ["ray.io"], apiVersions: ["v1"], resources: ["rayjobs"], operations: ["CREATE", "UPDATE"], scope: Namespaced}
EOF
}
# calls NAME: admission calls the apiserver has made to the webhook NAME so far.
calls() {
  "$kubectl" --kubeconfig "$kc" get --raw /metrics |
    awk -v n="name=\"$1.bench.rayjob-guard.io\"" '/^apiserver_admission_webhook_admission_duration_seconds_count/ && index($0, n) {s += $NF} END {print s + 0}'
}

echo "server: Kubernetes $KUBE_VERSION, CRD $CRD_KIND; $count dry-run creates of the $payload RayJob per row"
echo
echo "| round | webhook | requests | calls the apiserver made to it | p50 ms | p90 ms | p99 ms | mean ms |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
order=(none rayjob-guard go-peer)
for r in $(seq "$rounds"); do
  # Rotate the order each round, so no webhook always runs right after another.
  for i in 0 1 2; do
    mode=${order[$(((i + r) % 3))]}
    case $mode in
      none) register none ;;
      rayjob-guard) register rayjob-guard "$WEBHOOK_PORT" ;;
      go-peer) register go-peer "$GO_PORT" ;;
    esac
    sleep 2  # the apiserver picks webhook configuration changes up from its informer
    r0=$(calls rayjob-guard) g0=$(calls go-peer)
    read -r n ok p50 p90 p99 mean < <(python3 "$client" "$kc" "$work/payloads/$payload.json" "$count") ||
      die "dry-run creates failed ($mode)"
    dr=$(($(calls rayjob-guard) - r0)) dg=$(($(calls go-peer) - g0))
    case $mode in
      none) [ "$dr" -eq 0 ] && [ "$dg" -eq 0 ] || die "with no webhook registered the apiserver called one ($dr, $dg)"; answered=0 ;;
      rayjob-guard) [ "$dr" -ge "$n" ] && [ "$dg" -eq 0 ] || die "rayjob-guard row: $dr of $n creates reached it, $dg the Go peer"; answered=$dr ;;
      go-peer) [ "$dg" -ge "$n" ] && [ "$dr" -eq 0 ] || die "Go peer row: $dg of $n creates reached it, $dr rayjob-guard"; answered=$dg ;;
    esac
    echo "| $r | $mode | $ok/$n | $answered | $p50 | $p90 | $p99 | $mean |"
    echo "$r $mode $p50 $p99" >>"$work/summary.txt"
  done
done
register none
python3 - "$work/summary.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
base = {(r[0]): (float(r[2]), float(r[3])) for r in rows if r[1] == "none"}
print()
for mode, name in (("rayjob-guard", "rayjob-guard"), ("go-peer", "Go net/http peer")):
    d50 = [float(r[2]) - base[r[0]][0] for r in rows if r[1] == mode]
    d99 = [float(r[3]) - base[r[0]][1] for r in rows if r[1] == mode]
    print(f"added by {name} over no webhook (median of {len(d50)} rounds, each against the same "
          f"round's no-webhook row): p50 {statistics.median(d50):+.2f} ms, p99 {statistics.median(d99):+.2f} ms")
PY
