#!/usr/bin/env bash
# certs/inject-cabundle.sh: file mode on the rendered self-signed overlay (stdin and file), the
# caBundle decodes to the CA and verifies the serving certificate; refusals (leaf instead of CA,
# garbage, no webhook configuration); live mode through a recording kubectl stand-in.
# usage: inject_cabundle_test.sh REPO_DIR WORK_DIR [KUBECTL]
set -euo pipefail
repo="$(cd "${1:?usage: inject_cabundle_test.sh REPO_DIR WORK_DIR [KUBECTL]}" && pwd)"
work="${2:?}"; kubectl="${3:-kubectl}"
inject="$repo/certs/inject-cabundle.sh"
# shellcheck source=test/harness/harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/../harness/harness.sh"
need "$kubectl" -- scripts/test.sh builds the pinned one
rm -rf "$work" && mkdir -p "$work"

"$repo/certs/mint-certs.sh" --out "$work/certs" >/dev/null
KUBECONFIG=/dev/null "$kubectl" kustomize "$repo/manifests/overlays/self-signed" > "$work/rendered.yaml"

# 1. stdin -> stdout; every document survives, the caBundle is the CA and verifies tls.crt.
"$inject" --ca "$work/certs/ca.crt" -f - < "$work/rendered.yaml" > "$work/out.yaml" 2> "$work/err.txt"
grep -q "set caBundle of 1 webhook" "$work/err.txt" || fail "no summary on stderr"
/usr/bin/python3 - "$work/rendered.yaml" "$work/out.yaml" "$work/bundle.pem" <<'PY' || fail "stdin mode output wrong"
import base64, sys, yaml
before = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
after = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d]
assert len(before) == len(after), (len(before), len(after))
for b, a in zip(before, after):
    if a["kind"] != "ValidatingWebhookConfiguration":
        assert a == b, f"{a['kind']} changed"
vwc = [d for d in after if d["kind"] == "ValidatingWebhookConfiguration"][0]
bundle = base64.b64decode(vwc["webhooks"][0]["clientConfig"]["caBundle"], validate=True)
open(sys.argv[3], "wb").write(bundle)
print(f"ok: {len(after)} documents kept, caBundle is {len(bundle)} bytes of PEM")
PY
openssl verify -CAfile "$work/bundle.pem" "$work/certs/tls.crt" >/dev/null || fail "the injected CA does not verify tls.crt"
cmp -s <(openssl x509 -in "$work/bundle.pem" -outform DER) <(openssl x509 -in "$work/certs/ca.crt" -outform DER) \
  || fail "the injected bundle is not the CA"
echo "ok: injected caBundle is the CA and verifies the serving certificate"

# 2. file -> -o file gives the same result.
"$inject" --ca "$work/certs/ca.crt" -f "$work/rendered.yaml" -o "$work/out2.yaml" 2>/dev/null
cmp -s "$work/out.yaml" "$work/out2.yaml" || fail "-f FILE -o OUT differs from stdin mode"
echo "ok: -f FILE -o OUT equals the stdin result"

# 3. Refusals, each exit 2 with a message.
expect_refusal() {  # expect_refusal WHAT PATTERN ARGS...
  local what="$1" pattern="$2"; shift 2
  local rc=0 err
  err="$("$inject" "$@" 2>&1 >/dev/null < "$work/rendered.yaml")" || rc=$?
  [ "$rc" = 2 ] || fail "$what: exit $rc, want 2"
  echo "$err" | grep -q -- "$pattern" || fail "$what: message '$err' lacks '$pattern'"
  echo "ok: refused $what: $err"
}
expect_refusal "a leaf certificate as CA" "not a CA certificate" --ca "$work/certs/tls.crt" -f -
echo "not a certificate" > "$work/garbage.crt"
expect_refusal "a file that is no certificate" "not a PEM certificate" --ca "$work/garbage.crt" -f -
expect_refusal "a stream without the webhook configuration" "no ValidatingWebhookConfiguration named other" \
  --ca "$work/certs/ca.crt" -f - --name other
expect_refusal "a missing --ca" "--ca FILE is required" -f -

# 4. Live mode: a kubectl stand-in answers `get` and records the `patch`; the JSON patch must set
# caBundle on every webhook of the live object.
mkdir -p "$work/bin"
cat > "$work/bin/kubectl" <<'SH'
#!/bin/sh
echo "$@" >> "$FAKE_KUBECTL_LOG"
case "$1" in
  get) printf 'vrayjob.rayjob-guard.io\nsecond.rayjob-guard.io\n' ;;
  patch) shift; while [ $# -gt 0 ]; do [ "$1" = "-p" ] && printf '%s' "$2" > "$FAKE_KUBECTL_PATCH"; shift; done
         echo "validatingwebhookconfiguration.admissionregistration.k8s.io/rayjob-guard patched" ;;
esac
SH
chmod +x "$work/bin/kubectl"
FAKE_KUBECTL_LOG="$work/kubectl.log" FAKE_KUBECTL_PATCH="$work/patch.json" \
  "$inject" --ca "$work/certs/ca.crt" --live --kubectl "$work/bin/kubectl" > "$work/live.out" 2>&1 || fail "live mode failed: $(cat "$work/live.out")"
grep -q '^get validatingwebhookconfiguration rayjob-guard' "$work/kubectl.log" || fail "live mode did not read the object"
grep -q '^patch validatingwebhookconfiguration rayjob-guard --type=json' "$work/kubectl.log" || fail "live mode did not patch with --type=json"
openssl x509 -in "$work/certs/ca.crt" > "$work/ca.pem"
/usr/bin/python3 - "$work/patch.json" "$work/ca.pem" <<'PY' || fail "live patch wrong"
import base64, json, sys
ops = json.load(open(sys.argv[1]))
assert [o["path"] for o in ops] == ["/webhooks/0/clientConfig/caBundle", "/webhooks/1/clientConfig/caBundle"], ops
assert all(o["op"] == "add" for o in ops)
pem = base64.b64decode(ops[0]["value"]).decode()
assert pem == open(sys.argv[2]).read(), "the patched caBundle is not the CA"
print("ok: live mode patches caBundle of both webhooks with the CA (JSON patch, op add)")
PY
echo "PASS: inject-cabundle"
