#!/usr/bin/env bash
# Puts a CA certificate (PEM, base64-encoded) into clientConfig.caBundle of every webhook of a
# ValidatingWebhookConfiguration, either in manifest files or in the live object.
#
# usage: certs/inject-cabundle.sh --ca CA.crt -f FILE|- [-o OUT] [--name rayjob-guard]
#            rewrite the YAML/JSON manifest stream FILE (or stdin); every other document passes
#            through unchanged (comments are not kept). Output to OUT or stdout.
#        certs/inject-cabundle.sh --ca CA.crt --live [--name rayjob-guard] [--kubectl PATH]
#            patch the live object with `kubectl patch --type=json` (needs a working kubeconfig).
#
# The CA must be a PEM certificate with CA:TRUE (e.g. ca.crt from certs/mint-certs.sh). Exit 0
# when at least one webhook was filled, 2 on bad arguments, a bad CA, or no such configuration.
set -euo pipefail

ca="" file="" out="" name="rayjob-guard" live=0 kubectl="kubectl"
die() { echo "inject-cabundle: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --ca) ca="${2:?}"; shift 2 ;;
    -f|--filename) file="${2:?}"; shift 2 ;;
    -o|--output) out="${2:?}"; shift 2 ;;
    --name) name="${2:?}"; shift 2 ;;
    --live) live=1; shift ;;
    --kubectl) kubectl="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ -n "$ca" ] || die "--ca FILE is required"
[ -r "$ca" ] || die "cannot read CA file '$ca'"
[ "$live" = 1 ] || [ -n "$file" ] || die "give -f FILE (or - for stdin), or --live"
[ "$live" = 0 ] || [ -z "$file" ] || die "-f and --live exclude each other"
command -v openssl >/dev/null || die "openssl is not installed"

# Only a parseable certificate that may sign others; a leaf or a key here would make the apiserver
# reject every call with an x509 error, i.e. a RayJob outage under failurePolicy Fail.
openssl x509 -in "$ca" -noout 2>/dev/null || die "'$ca' is not a PEM certificate"
openssl x509 -in "$ca" -noout -ext basicConstraints 2>/dev/null | grep -q 'CA:TRUE' \
  || die "'$ca' is not a CA certificate (basicConstraints CA:TRUE missing)"
if ! openssl x509 -in "$ca" -noout -checkend 0 >/dev/null 2>&1; then
  die "'$ca' has expired"
fi
bundle="$(openssl x509 -in "$ca" | base64 -w0)"

if [ "$live" = 1 ]; then
  count="$("$kubectl" get validatingwebhookconfiguration "$name" -o 'jsonpath={range .webhooks[*]}{.name}{"\n"}{end}' | grep -c . || true)"
  [ "$count" -gt 0 ] || die "validatingwebhookconfiguration/$name has no webhooks (or was not found)"
  patch="["
  for ((i = 0; i < count; i++)); do
    [ "$i" = 0 ] || patch+=","
    patch+="{\"op\":\"add\",\"path\":\"/webhooks/$i/clientConfig/caBundle\",\"value\":\"$bundle\"}"
  done
  patch+="]"
  "$kubectl" patch validatingwebhookconfiguration "$name" --type=json -p "$patch"
  echo "inject-cabundle: set caBundle of $count webhook(s) in validatingwebhookconfiguration/$name" >&2
  exit 0
fi

command -v python3 >/dev/null || die "python3 (with python3-yaml) is required for -f"
if [ "$file" != "-" ]; then
  [ -r "$file" ] || die "cannot read '$file'"
fi
# The program comes from a variable, not a heredoc on python's stdin: stdin may be the manifest.
inject_py="$(cat <<'PY'
import os, sys
try:
    import yaml
except ImportError:
    sys.exit("inject-cabundle: python3-yaml is not installed")
src, out = sys.argv[1], sys.argv[2]
text = sys.stdin.read() if src == "-" else open(src, encoding="utf-8").read()
try:
    docs = list(yaml.safe_load_all(text))
except yaml.YAMLError as e:
    print(f"inject-cabundle: {src}: not valid YAML: {e}", file=sys.stderr)
    sys.exit(2)
filled = 0
for doc in docs:
    if not isinstance(doc, dict) or doc.get("kind") != "ValidatingWebhookConfiguration":
        continue
    if (doc.get("metadata") or {}).get("name") != os.environ["NAME"]:
        continue
    hooks = doc.get("webhooks")
    if not isinstance(hooks, list) or not hooks:
        print(f"inject-cabundle: validatingwebhookconfiguration/{os.environ['NAME']} has no webhooks", file=sys.stderr)
        sys.exit(2)
    for hook in hooks:
        if not isinstance(hook, dict) or not isinstance(hook.get("clientConfig"), dict):
            print(f"inject-cabundle: webhook {hook!r:.60} has no clientConfig", file=sys.stderr)
            sys.exit(2)
        hook["clientConfig"]["caBundle"] = os.environ["BUNDLE"]
        filled += 1
if filled == 0:
    print(f"inject-cabundle: no ValidatingWebhookConfiguration named {os.environ['NAME']} in {src}", file=sys.stderr)
    sys.exit(2)
rendered = yaml.safe_dump_all([d for d in docs if d is not None], sort_keys=False, default_flow_style=False)
if out:
    with open(out, "w", encoding="utf-8") as f:
        f.write(rendered)
else:
    sys.stdout.write(rendered)
print(f"inject-cabundle: set caBundle of {filled} webhook(s) in validatingwebhookconfiguration/{os.environ['NAME']}", file=sys.stderr)
PY
)"
BUNDLE="$bundle" NAME="$name" python3 -c "$inject_py" "$file" "${out:-}"
