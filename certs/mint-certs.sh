#!/usr/bin/env bash
# Mints a throwaway CA and an ECDSA P-256 serving certificate for the webhook Service, and writes
# them as files and as a kubernetes.io/tls Secret manifest. Private keys are written with mode
# 0600 into --out and must never be committed.
#
# usage: certs/mint-certs.sh --out DIR [--name rayjob-guard] [--namespace rayjob-guard]
#                            [--san DNS:extra.example] [--san IP:127.0.0.1] ... [--days 90]
#                            [--ca-dir DIR]   reuse the CA in DIR (ca.crt, ca.key) instead of minting one
#
# Writes into DIR: ca.crt ca.key (unless --ca-dir) tls.crt tls.key secret.yaml
# SANs always include NAME.NAMESPACE.svc (what the apiserver checks for a Service-configured
# webhook) and NAME.NAMESPACE.svc.cluster.local.
set -euo pipefail

out="" name="rayjob-guard" namespace="rayjob-guard" days=90 ca_dir=""
sans=()
die() { echo "mint-certs: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="${2:?}"; shift 2 ;;
    --name) name="${2:?}"; shift 2 ;;
    --namespace) namespace="${2:?}"; shift 2 ;;
    --san) sans+=("${2:?}"); shift 2 ;;
    --days) days="${2:?}"; shift 2 ;;
    --ca-dir) ca_dir="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ -n "$out" ] || die "--out DIR is required"
command -v openssl >/dev/null || die "openssl is not installed"
for s in "${sans[@]+"${sans[@]}"}"; do
  [[ "$s" =~ ^(DNS|IP):[^,[:space:]]+$ ]] || die "--san must look like DNS:name or IP:address, got '$s'"
done
[[ "$days" =~ ^[0-9]+$ ]] || die "--days must be a whole number"

mkdir -p "$out"
umask 077
if [ -n "$ca_dir" ]; then
  [ -r "$ca_dir/ca.crt" ] && [ -r "$ca_dir/ca.key" ] || die "no ca.crt/ca.key in $ca_dir"
  ca_crt="$ca_dir/ca.crt" ca_key="$ca_dir/ca.key"
else
  ca_crt="$out/ca.crt" ca_key="$out/ca.key"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$ca_key" -out "$ca_crt" -days $((days * 4)) -subj "/CN=${name}-ca" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    2>/dev/null || die "could not mint the CA"
fi

san_list="DNS:${name}.${namespace}.svc,DNS:${name}.${namespace}.svc.cluster.local"
for s in "${sans[@]+"${sans[@]}"}"; do san_list="${san_list},${s}"; done

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%s\n' 'basicConstraints=CA:FALSE' 'keyUsage=critical,digitalSignature' \
  'extendedKeyUsage=serverAuth' "subjectAltName=${san_list}" > "$tmp/ext.cnf"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$tmp/tls.key" \
  -out "$tmp/tls.csr" -subj "/CN=${name}.${namespace}.svc" 2>/dev/null || die "could not make the key"
openssl x509 -req -in "$tmp/tls.csr" -CA "$ca_crt" -CAkey "$ca_key" -CAcreateserial \
  -CAserial "$tmp/ca.srl" -out "$tmp/tls.crt" -days "$days" -sha256 -extfile "$tmp/ext.cnf" \
  2>/dev/null || die "could not sign the serving certificate"
openssl verify -CAfile "$ca_crt" "$tmp/tls.crt" >/dev/null || die "the new certificate does not verify"
# Replace the pair atomically (rename), so a server watching the files never reads half a pair.
mv "$tmp/tls.key" "$out/tls.key.new" && mv "$tmp/tls.crt" "$out/tls.crt.new"
mv "$out/tls.key.new" "$out/tls.key" && mv "$out/tls.crt.new" "$out/tls.crt"

b64() { base64 -w0 < "$1"; }
cat > "$out/secret.yaml" <<YAML
apiVersion: v1
kind: Secret
metadata:
  name: ${name}-tls
  namespace: ${namespace}
type: kubernetes.io/tls
data:
  ca.crt: $(b64 "$ca_crt")
  tls.crt: $(b64 "$out/tls.crt")
  tls.key: $(b64 "$out/tls.key")
YAML
chmod 0644 "$out/tls.crt" "$ca_crt" 2>/dev/null || true
echo "mint-certs: wrote $out/tls.crt (SANs ${san_list}) signed by ${ca_crt}"
