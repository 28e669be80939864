#!/usr/bin/env bash
# run.sh MODE OURS [-seed N] [-cases N] [-v]: one differential test. MODE is quantity or
# imageref, OURS the rjg-differential-ours binary. Builds the Go side (build.sh, cached) and runs
# it on the fixed seed unless -seed/-cases say otherwise. Fails when Go or a module is missing.
#   longer seeded run:  run.sh quantity build/test/differential/k8sref/rjg-differential-ours \
#                         -seed "$(date +%s)" -cases 5000000
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:?usage: run.sh quantity|imageref OURS [-seed N] [-cases N] [-v]}
ours=${2:?usage: run.sh quantity|imageref OURS [-seed N] [-cases N] [-v]}
shift 2
bin=$("$here/build.sh" | tail -n 1)
exec "$bin/$mode" -ours "$ours" "$@"
