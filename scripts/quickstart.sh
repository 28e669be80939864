#!/usr/bin/env bash
# Quick start on a fresh Debian 12 machine, as root: installs what is missing, builds
# rayjob-guard, mints development certificates and runs the webhook in the foreground on its
# built-in default policy (Ctrl-C stops it; SIGTERM drains it gracefully).
#   RJG_LISTEN (default 127.0.0.1:8443)  RJG_PROBE_LISTEN (default 127.0.0.1:8080)
#   RJG_POLICY (default: the embedded policy; see `rayjob-guard policy default`)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

scripts/install-deps.sh --build-only
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target rayjob-guard

certs=build/dev-certs
if [ ! -s "$certs/tls.crt" ]; then
  certs/mint-certs.sh --out "$certs" --san DNS:localhost --san IP:127.0.0.1
fi
listen=${RJG_LISTEN:-127.0.0.1:8443}
probe=${RJG_PROBE_LISTEN:-127.0.0.1:8080}
policy_args=()
[ -n "${RJG_POLICY:-}" ] && policy_args=(--policy "$RJG_POLICY")
cat <<MSG
rayjob-guard: serving https://${listen}/validate (CA: ${certs}/ca.crt), probes on http://${probe}
  try: build/rayjob-guard check test/corpus/*.yaml
       curl --cacert ${certs}/ca.crt -H 'Content-Type: application/json' \\
            --data @test/golden/cases/allow-compliant/request.json https://${listen}/validate
MSG
exec build/rayjob-guard serve --tls-cert "$certs/tls.crt" --tls-key "$certs/tls.key" \
  --listen "$listen" --probe-listen "$probe" --log-format text "${policy_args[@]+"${policy_args[@]}"}"
