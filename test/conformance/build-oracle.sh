#!/usr/bin/env bash
# Builds the KubeRay conformance oracle (oracle/main.go, with the manifest reader it shares with the
# Kueue oracle, oracle/manifests.go) at one served KubeRay version and prints
# the binary's path on its last stdout line. The module oracle/<version>/ pins that version in its
# go.mod/go.sum and may add Go files of its own (v1.6.2: the apiserver's CRD handling and what the
# operator does after validation), built next to main.go with the ray-operator module's RayJob
# and RayCluster CRDs (config/crd/bases/) in crd/; the version must be listed in
# KUBERAY_ORACLE_VERSIONS (test/peers/versions.env).
# Everything comes from the Go module proxy; the build and its cache under
# ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/kuberay-oracle/ are oracle-build.sh's.
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
# The RayJob and RayCluster CRDs of the pinned ray-operator module.
copy_crds() {
  timeout 1200 "$go" mod download github.com/ray-project/kuberay/ray-operator
  local operator
  operator=$("$go" list -m -f '{{.Dir}}' github.com/ray-project/kuberay/ray-operator)
  cp "$operator/config/crd/bases/ray.io_rayjobs.yaml" "$operator/config/crd/bases/ray.io_rayclusters.yaml" crd/
}
shopt -s nullglob
# shellcheck source=oracle-build.sh
. "$here/oracle-build.sh"
rjg_build_oracle kuberay-oracle "$v" 1200 copy_crds \
  "$here/oracle/main.go" "$here/oracle/manifests.go" "$mod/go.mod" "$mod/go.sum" "$mod"/*.go
