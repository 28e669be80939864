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
args=()
IFS=, read -r -a versions <<<"$KUBERAY_ORACLE_VERSIONS"
for v in "${versions[@]}"; do
  dir=$("$repo/test/peers/module-dir.sh" "github.com/ray-project/kuberay/ray-operator@$v")
  args+=(--samples "$dir/config/samples")
done
exec "${PYTHON:-python3}" "$here/fix_convergence_test.py" --rayjob-guard "$bin" --repo "$repo" "${args[@]}" "$@"
