#!/usr/bin/env bash
# ctest's conformance.fixes: fix_convergence_test.py over the repository's manifests and the
# RayJob samples of every KubeRay operator module under test (config/samples of the modules in
# KUBERAY_ORACLE_VERSIONS, test/peers/versions.env; downloaded once into the module cache).
#   usage: test/conformance/fixes.sh RAYJOB_GUARD_BINARY [fix_convergence_test.py options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${1:?usage: fixes.sh RAYJOB_GUARD_BINARY}
shift
# shellcheck source=../peers/versions.env
. "$repo/test/peers/versions.env"
cache=${RJG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard}
go=${GO:-go}
args=()
IFS=, read -r -a versions <<<"$KUBERAY_ORACLE_VERSIONS"
for v in "${versions[@]}"; do
  dir=$(GOMODCACHE=$cache/go/mod GOFLAGS=-mod=mod GOTOOLCHAIN=local "$go" mod download -json \
    "github.com/ray-project/kuberay/ray-operator@$v" |
    "${PYTHON:-python3}" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  args+=(--samples "$dir/config/samples")
done
exec "${PYTHON:-python3}" "$here/fix_convergence_test.py" --rayjob-guard "$bin" --repo "$repo" "${args[@]}" "$@"
