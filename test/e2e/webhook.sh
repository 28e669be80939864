#!/usr/bin/env bash
# webhook.sh: run `rayjob-guard serve` on loopback and register it with the e2e cluster.
#
# Usage (DIR is a directory that `cluster.sh up DIR` prepared; state goes to DIR/webhook/):
#   webhook.sh up DIR [--no-register]  mint certificates, start serve on 127.0.0.1 port 0, wait for
#                                      /readyz, register the ValidatingWebhookConfiguration
#   webhook.sh stop DIR                stop serve by PID (the registration stays: failurePolicy Fail)
#   webhook.sh start DIR               start serve again on the same port as before, wait for /readyz
#   webhook.sh register DIR            (re)apply the ValidatingWebhookConfiguration
#   webhook.sh unregister DIR          delete it
#   webhook.sh rotate DIR              re-mint the serving pair with the same CA, into the files
#                                      serve watches (DIR/webhook/certs/tls.{crt,key})
#   webhook.sh down DIR                unregister (when the cluster still answers) and stop
#
# Environment: RJG_BINARY (the rayjob-guard executable; required), RJG_POLICY (a policy file
# for --policy; default: the built-in policy), RJG_KUBECTL via DIR/env.
# Leaves DIR/webhook/env (WEBHOOK_PORT, PROBE_PORT, WEBHOOK_PID, WEBHOOK_NAME) and
# DIR/webhook/serve.log (appended across restarts).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=test/harness/harness.sh
. "$here/../harness/harness.sh"
harness_init webhook

readonly CONFIG_NAME=rayjob-guard
readonly WEBHOOK_NAME=vrayjob.rayjob-guard.io

[[ $# -ge 2 ]] || die "usage: webhook.sh up|stop|start|register|unregister|rotate|down DIR"
cmd=$1
dir=$(cd "$2" 2>/dev/null && pwd) || die "no directory $2"
wdir=$dir/webhook
[[ -f $dir/env ]] || die "$dir/env missing: run cluster.sh up $dir first"
# shellcheck source=/dev/null
. "$dir/env"
kc() { "$KUBECTL" --kubeconfig "$dir/admin.kubeconfig" "$@"; }

# Reads a key from DIR/webhook/env (empty when absent).
wenv() { [[ -f $wdir/env ]] && sed -n "s/^$1=//p" "$wdir/env" | tail -n1 || true; }

is_ours() {  # PID runs rayjob-guard serve
  [[ $1 =~ ^[0-9]+$ ]] && kill -0 "$1" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q -- 'serve'
}

cmd_stop() {
  # serve drains for --shutdown-delay and exits within --shutdown-timeout (25 s by default).
  stop_pidfile serve "$wdir/serve.pid" serve
}

# start PORT: start serve listening on 127.0.0.1:PORT (0 = any free port); wait for /readyz.
start_serve() {
  local port=$1 bin=${RJG_BINARY:-}
  [[ -n $bin && -x $bin ]] || die "RJG_BINARY must name the rayjob-guard executable (got '${bin}')"
  if [[ -f $wdir/serve.pid ]] && is_ours "$(<"$wdir/serve.pid")"; then
    die "serve already runs (pid $(<"$wdir/serve.pid"))"
  fi
  local args=(serve --tls-cert "$wdir/certs/tls.crt" --tls-key "$wdir/certs/tls.key"
    --listen "127.0.0.1:$port" --probe-listen 127.0.0.1:0 --port-file "$wdir/ports.json")
  [[ -n ${RJG_POLICY:-} ]] && args+=(--policy "$RJG_POLICY")
  rm -f "$wdir/ports.json"
  echo "--- $(date -u +%FT%TZ) start: $bin ${args[*]}" >>"$wdir/serve.log"
  "$bin" "${args[@]}" >>"$wdir/serve.log" 2>&1 &
  local pid=$! i https="" probe=""
  echo "$pid" >"$wdir/serve.pid"
  for ((i = 0; i < 200; i++)); do
    kill -0 "$pid" 2>/dev/null || die "serve exited at start; tail of $wdir/serve.log:
$(tail -n 20 "$wdir/serve.log")"
    if [[ -s $wdir/ports.json ]]; then
      https=$(jq -r '.https // empty' "$wdir/ports.json" 2>/dev/null || true)
      probe=$(jq -r '.probe // empty' "$wdir/ports.json" 2>/dev/null || true)
      [[ -n $https && -n $probe ]] && break
    fi
    sleep 0.05
  done
  [[ -n $https && -n $probe ]] || die "no port file $wdir/ports.json after 10 s"
  for ((i = 0; i < 200; i++)); do
    # The probe listener may speak plain HTTP or HTTPS; accept either.
    if curl -sf --max-time 1 "http://127.0.0.1:$probe/readyz" >/dev/null 2>&1 ||
      curl -sfk --max-time 1 "https://127.0.0.1:$probe/readyz" >/dev/null 2>&1; then
      break
    fi
    sleep 0.05
  done
  ((i < 200)) || die "serve not ready on probe port $probe after 10 s"
  [[ $port == 0 || $port == "$https" ]] || die "serve listens on $https, asked for $port"
  printf 'WEBHOOK_PORT=%s\nPROBE_PORT=%s\nWEBHOOK_PID=%s\nWEBHOOK_NAME=%s\n' \
    "$https" "$probe" "$pid" "$WEBHOOK_NAME" >"$wdir/env"
  log "serve ready: https 127.0.0.1:$https, probe 127.0.0.1:$probe, pid $pid"
}

cmd_register() {
  local port ca
  port=$(wenv WEBHOOK_PORT)
  [[ -n $port ]] || die "serve has not been started (no WEBHOOK_PORT in $wdir/env)"
  ca=$(base64 -w0 <"$wdir/certs/ca.crt")
  # Same registration as manifests/base, except the URL form: on loopback the apiserver cannot
  # reach a Service (see docs/e2e.md).
  kc apply -f - >/dev/null <<EOF
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: $CONFIG_NAME
webhooks:
  - name: $WEBHOOK_NAME
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    matchPolicy: Equivalent
    timeoutSeconds: 5
    clientConfig:
      url: https://127.0.0.1:$port/validate
      caBundle: $ca
    rules:
      - apiGroups: ["ray.io"]
        apiVersions: ["v1"]
        resources: ["rayjobs"]
        operations: ["CREATE", "UPDATE"]
        scope: Namespaced
    namespaceSelector:
      matchExpressions:
        - key: kubernetes.io/metadata.name
          operator: NotIn
          values: ["kube-system"]
EOF
  log "registered $CONFIG_NAME -> https://127.0.0.1:$port/validate"
}

cmd_unregister() {
  kc delete validatingwebhookconfiguration "$CONFIG_NAME" --ignore-not-found >/dev/null
  log "unregistered $CONFIG_NAME"
}

case "$cmd" in
  up)
    mkdir -p "$wdir"
    "$repo/certs/mint-certs.sh" --out "$wdir/certs" --san IP:127.0.0.1 --san DNS:localhost >/dev/null
    start_serve 0
    [[ ${3:-} == --no-register ]] || cmd_register
    ;;
  stop) cmd_stop ;;
  start)
    port=$(wenv WEBHOOK_PORT)
    start_serve "${port:-0}"
    ;;
  register) cmd_register ;;
  unregister) cmd_unregister ;;
  rotate)
    "$repo/certs/mint-certs.sh" --out "$wdir/certs" --ca-dir "$wdir/certs" \
      --san IP:127.0.0.1 --san DNS:localhost >/dev/null
    log "rotated: new $(openssl x509 -in "$wdir/certs/tls.crt" -noout -serial)"
    ;;
  down)
    if [[ -f $dir/apiserver.pid ]] && kill -0 "$(<"$dir/apiserver.pid")" 2>/dev/null; then
      cmd_unregister || true
    fi
    cmd_stop
    ;;
  *) die "unknown command $cmd" ;;
esac
