#!/usr/bin/env bash
# Builds the differential programs of this module (quantity, imageref) and prints the directory
# holding both binaries on its last stdout line. The module's go.mod/go.sum pin
# k8s.io/apimachinery and github.com/distribution/reference; both must equal the pins in
# test/peers/versions.env (checked here). Built with -mod=readonly from the Go module proxy into
# ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/differential-k8sref/, keyed by the sources, so a
# warm run builds nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../peers/versions.env
. "$here/../../peers/versions.env"
for pin in "k8s.io/apimachinery $K8S_APIMACHINERY_VERSION" \
           "github.com/distribution/reference $DISTRIBUTION_REFERENCE_VERSION"; do
  if ! grep -qE "^[[:space:]]*${pin}\$" "$here/go.mod"; then
    echo "build.sh: $here/go.mod does not require $pin (test/peers/versions.env)" >&2
    exit 2
  fi
done
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard
key=$(cd "$here" && find . -name '*.go' -o -name go.mod -o -name go.sum | LC_ALL=C sort |
  xargs cat | sha256sum | cut -c1-16)
out=$cache/differential-k8sref/$key
if [[ -x $out/quantity && -x $out/imageref ]]; then
  echo "$out"
  exit 0
fi
# shellcheck source=../../peers/go-env.sh
. "$here/../../peers/go-env.sh"
rjg_go_env "$cache" readonly || { echo "build.sh: cannot build the differential programs" >&2; exit 1; }
mkdir -p "$out"
start=$(date +%s)
for cmd in quantity imageref; do
  (cd "$here" && timeout 1200 nice -n 10 "$go" build -trimpath -o "$out/$cmd.tmp.$$" "./$cmd")
  mv "$out/$cmd.tmp.$$" "$out/$cmd"
done
echo "build.sh: built the differential programs in $(( $(date +%s) - start )) s" >&2
echo "$out"
