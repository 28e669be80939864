#!/usr/bin/env bash
# ctest's conformance.kuberay: builds (or finds cached) the oracle at every served KubeRay version
# and runs conformance_test.py over the repository's manifests plus the generated variants.
#   usage: test/conformance/run.sh RAYJOB_GUARD_BINARY [conformance_test.py options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${1:?usage: run.sh RAYJOB_GUARD_BINARY}
shift
# shellcheck source=../peers/versions.env
. "$repo/test/peers/versions.env"
args=()
IFS=, read -r -a versions <<<"$KUBERAY_ORACLE_VERSIONS"
for v in "${versions[@]}"; do
  oracle=$("$here/build-oracle.sh" "$v" | tail -n 1)
  minor=${v#v}; minor=${minor%.*}
  args+=(--oracle "$minor=$oracle")
done
exec "${PYTHON:-python3}" "$here/conformance_test.py" --rayjob-guard "$bin" --repo "$repo" "${args[@]}" "$@"
