#!/usr/bin/env bash
# Builds the Kueue conformance oracle (kueue-oracle/main.go) at KUEUE_VERSION
# (test/peers/versions.env) and prints the binary's path on its last stdout line. The module
# kueue-oracle/ pins that version in its go.mod/go.sum (checked here); next to main.go the build
# puts the manifest reader both oracles share (oracle/manifests.go), the apiserver's CRD handling
# of the KubeRay v1.6.2 oracle (oracle/v1.6.2/apiserver.go),
# the RayJob and RayCluster CRDs of the ray-operator module Kueue requires and Kueue's Workload
# CRD, all from the module cache, in crd/.
# Everything comes from the Go module proxy; the build and its cache under
# ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/kueue-oracle/ are oracle-build.sh's. Its Go caches
# and flags are those of Kueue's manager build (test/lifecycle/build-peers.sh kueue), and every
# module is at the version Kueue's go.mod selects, so the packages the two share are compiled once.
#   usage: test/conformance/build-kueue-oracle.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../peers/versions.env
. "$here/../peers/versions.env"
v=${KUEUE_VERSION:?KUEUE_VERSION is not set in test/peers/versions.env}
mod=$here/kueue-oracle
if ! grep -qE "^[[:space:]]*(require[[:space:]]+)?sigs.k8s.io/kueue $v\$" "$mod/go.mod"; then
  echo "build-kueue-oracle.sh: $mod/go.mod does not require sigs.k8s.io/kueue $v (KUEUE_VERSION)" >&2
  exit 2
fi
# Kueue's Workload CRD, and the RayJob and RayCluster CRDs of the ray-operator Kueue requires.
copy_crds() {
  timeout 1200 "$go" mod download sigs.k8s.io/kueue github.com/ray-project/kuberay/ray-operator
  local kueue operator
  kueue=$("$go" list -m -f '{{.Dir}}' sigs.k8s.io/kueue)
  operator=$("$go" list -m -f '{{.Dir}}' github.com/ray-project/kuberay/ray-operator)
  cp "$kueue/config/components/crd/bases/kueue.x-k8s.io_workloads.yaml" crd/
  cp "$operator/config/crd/bases/ray.io_rayjobs.yaml" "$operator/config/crd/bases/ray.io_rayclusters.yaml" crd/
}
# shellcheck source=oracle-build.sh
. "$here/oracle-build.sh"
rjg_build_oracle kueue-oracle "$v" 1800 copy_crds \
  "$mod/main.go" "$mod/go.mod" "$mod/go.sum" "$here/oracle/v1.6.2/apiserver.go" "$here/oracle/manifests.go"
