#!/usr/bin/env bash
# crds.sh [SOURCE]: say which KubeRay CRD files the e2e cluster installs. Nothing is edited or
# copied: the files are installed verbatim from where they are.
#
# SOURCE (default: $RJG_E2E_CRD, else auto):
#   shared    the v1.7 RayJob CRD at <repo>/../shared/kuberay/ray.io_rayjobs.yaml (RJG_KUBERAY_CRD
#             overrides the path), plus the RayCluster CRD of the operator module below
#   operator  every CRD of the ray-operator module (RayJob first) at RJG_E2E_OPERATOR_VERSION,
#             default KUBERAY_OPERATOR_VERSION (test/peers/versions.env), from the Go module proxy:
#             config/crd/bases/ in the module cache (downloaded once into
#             ${XDG_CACHE_HOME:-~/.cache}/rayjob-guard/go/mod)
#   minimal   test/e2e/crd/rayjob-minimal-crd.yaml, our own small structural RayJob CRD
#   auto      shared when that file exists, else minimal (saying why on stderr): the operator
#             module's 1.5 CRDs refuse the 1.6 fields of the RayJobs the suites store
# RJG_E2E_MINIMAL_CRD=1 is the same as SOURCE minimal.
#
# Prints `CRD_KIND=<shared-v1.7|operator-vX.Y.Z|minimal>` on its first line of stdout, then one CRD
# file per line, RayJob first. Exit 1 with a message on stderr when an asked-for source is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=test/peers/versions.env
. "$repo/test/peers/versions.env"
# shellcheck source=test/harness/harness.sh
. "$here/../harness/harness.sh"
harness_init crds

source=${1:-${RJG_E2E_CRD:-auto}}
[[ ${RJG_E2E_MINIMAL_CRD:-0} == 1 ]] && source=minimal
shared=$(realpath -m "${RJG_KUBERAY_CRD:-$repo/../shared/kuberay/ray.io_rayjobs.yaml}")
cache=${RJG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard}
operator=${RJG_E2E_OPERATOR_VERSION:-$KUBERAY_OPERATOR_VERSION}

# operator_dir: the module's config/crd/bases, downloaded on first use; empty when unavailable.
operator_dir() {
  local dir
  dir=$(RJG_CACHE=$cache "$repo/test/peers/module-dir.sh" \
    "github.com/ray-project/kuberay/ray-operator@$operator" 2>/dev/null || true)
  [[ -n $dir && -f $dir/config/crd/bases/ray.io_rayjobs.yaml ]] && echo "$dir/config/crd/bases"
  return 0
}

case $source in
  shared)
    [[ -f $shared ]] || die "no shared CRD at $shared"
    bases=$(operator_dir)
    echo "CRD_KIND=shared-v1.7"
    echo "$shared"
    if [[ -n $bases ]]; then
      echo "$bases/ray.io_rayclusters.yaml"
    else
      log "the ray-operator module $operator is not at hand: no RayCluster CRD"
    fi
    ;;
  operator)
    bases=$(operator_dir)
    [[ -n $bases ]] || die "cannot download github.com/ray-project/kuberay/ray-operator@$operator"
    echo "CRD_KIND=operator-$operator"
    echo "$bases/ray.io_rayjobs.yaml"
    find "$bases" -maxdepth 1 -name '*.yaml' ! -name ray.io_rayjobs.yaml | sort
    ;;
  minimal)
    echo "CRD_KIND=minimal"
    echo "$here/crd/rayjob-minimal-crd.yaml"
    ;;
  auto)
    if [[ -f $shared ]]; then
      exec "$0" shared
    fi
    # The suites on this cluster store RayJobs of the default policy's KubeRay version (1.6:
    # deletion rules on jobDeploymentStatus), which the operator module's 1.5 CRD refuses as
    # unknown fields; so without the shared v1.7 CRD they run on our minimal one. The operator
    # module's CRDs are tested on their own (e2e.crd-operator) and run under its operator
    # (test/lifecycle).
    log "no shared CRD at $shared; the ray-operator $operator CRDs predate the 1.6 fields the suites' RayJobs use: our minimal CRD"
    exec "$0" minimal
    ;;
  *) die "unknown CRD source '$source' (shared, operator, minimal, auto)" ;;
esac
