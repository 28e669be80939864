#!/usr/bin/env bash
# Builds the KubeRay conformance oracle (oracle/main.go, with the manifest reader it shares with the
# Kueue oracle, oracle/manifests.go) at one served KubeRay version and prints
# the binary's path on its last stdout line. The module oracle/<version>/ pins that version in its
# go.mod/go.sum and may add Go files of its own (v1.6.2: the apiserver's CRD handling and what the
# operator does after validation), built next to main.go with the ray-operator module's RayJob
# and RayCluster CRDs (config/crd/bases/) in crd/; the version must be listed in
# KUBERAY_ORACLE_VERSIONS (test/peers/versions.env).
# Everything comes from the Go module proxy; the binary is cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/kuberay-oracle/, keyed by its sources, so a warm run
# builds nothing. Go caches are the ones every Go peer shares.
#   usage: test/conformance/build-oracle.sh v1.5.0
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../peers/versions.env
. "$here/../peers/versions.env"
v=${1:?usage: build-oracle.sh VERSION (one of $KUBERAY_ORACLE_VERSIONS)}
case ",$KUBERAY_ORACLE_VERSIONS," in
  *",$v,"*) ;;
  *) echo "build-oracle.sh: $v is not in KUBERAY_ORACLE_VERSIONS ($KUBERAY_ORACLE_VERSIONS)" >&2; exit 2 ;;
esac
mod=$here/oracle/$v
if ! grep -qE "^[[:space:]]*github.com/ray-project/kuberay/ray-operator $v\$" "$mod/go.mod"; then
  echo "build-oracle.sh: $mod/go.mod does not require ray-operator $v" >&2
  exit 2
fi
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard
shopt -s nullglob
own=("$mod"/*.go)
key=$(cat "$here/oracle/main.go" "$here/oracle/manifests.go" "$here/build-oracle.sh" "$mod/go.mod" "$mod/go.sum" "${own[@]}" |
  sha256sum | cut -c1-16)
out=$cache/kuberay-oracle/$v-$key/kuberay-oracle
if [[ -x $out ]]; then
  echo "$out"
  exit 0
fi
# shellcheck source=../peers/go-env.sh
. "$here/../peers/go-env.sh"
rjg_go_env "$cache" mod || { echo "build-oracle.sh: cannot build the oracle" >&2; exit 1; }
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cp "$here/oracle/main.go" "$here/oracle/manifests.go" "$mod/go.mod" "$mod/go.sum" "${own[@]}" "$src/"
mkdir -p "$(dirname "$out")" "$src/crd"
start=$(date +%s)
(
  cd "$src"
  timeout 1200 "$go" mod download github.com/ray-project/kuberay/ray-operator
  operator=$("$go" list -m -f '{{.Dir}}' github.com/ray-project/kuberay/ray-operator)
  cp "$operator/config/crd/bases/ray.io_rayjobs.yaml" "$operator/config/crd/bases/ray.io_rayclusters.yaml" crd/
  timeout 1200 nice -n 10 "$go" build -trimpath -ldflags='-s -w' -o "$out.tmp.$$" .
)
mv "$out.tmp.$$" "$out"
echo "build-oracle.sh: built kuberay-oracle $v in $(( $(date +%s) - start )) s" >&2
echo "$out"
