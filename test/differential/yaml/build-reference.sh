#!/usr/bin/env bash
# Builds the YAML differential test's reference (main.go: kubectl's YAML reading, from
# k8s.io/apimachinery and sigs.k8s.io/yaml at the versions of go.mod, which must match
# test/peers/versions.env) with -mod=readonly against the committed go.sum, and prints the
# binary's path on its last stdout line. Cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/yaml-reference/, keyed by its sources, so a warm run
# builds nothing. Go caches are the ones every Go peer shares (test/peers/go-env.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../peers/versions.env
. "$here/../../peers/versions.env"
for pin in "k8s.io/apimachinery $YAML_DIFF_APIMACHINERY_VERSION" "sigs.k8s.io/yaml $YAML_DIFF_SIGS_YAML_VERSION"; do
  if ! grep -qE "^[[:space:]]*$pin\$" "$here/go.mod"; then
    echo "build-reference.sh: go.mod does not require $pin (test/peers/versions.env)" >&2
    exit 2
  fi
done
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard
key=$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-16)
out=$cache/yaml-reference/$key/yaml-reference
if [[ -x $out ]]; then
  echo "$out"
  exit 0
fi
# shellcheck source=../../peers/go-env.sh
. "$here/../../peers/go-env.sh"
rjg_go_env "$cache" readonly || { echo "build-reference.sh: cannot build the reference" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
start=$(date +%s)
(cd "$here" && timeout 1200 nice -n 10 "$go" build -trimpath -ldflags='-s -w' -o "$out.tmp.$$" .)
mv "$out.tmp.$$" "$out"
echo "build-reference.sh: built yaml-reference in $(( $(date +%s) - start )) s" >&2
echo "$out"
