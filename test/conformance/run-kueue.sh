#!/usr/bin/env bash
# ctest's conformance.kueue: builds (or finds cached) the Kueue oracle at KUEUE_VERSION and runs
# kueue_conformance_test.py over the repository's manifests, the generated variants and the UPDATE
# pairs. Without Go (>= 1.26) the build fails, saying so (test/peers/go-env.sh).
#   usage: test/conformance/run-kueue.sh RAYJOB_GUARD_BINARY [kueue_conformance_test.py options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${1:?usage: run-kueue.sh RAYJOB_GUARD_BINARY}
shift
oracle=$("$here/build-kueue-oracle.sh" | tail -n 1)
exec "${PYTHON:-python3}" "$here/kueue_conformance_test.py" --rayjob-guard "$bin" --repo "$repo" \
  --oracle "$oracle" "$@"
