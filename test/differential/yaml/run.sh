#!/usr/bin/env bash
# Builds the reference (build-reference.sh; cached) and runs the differential test.
#   usage: run.sh YAML_JSON [run.py options: --seed N --count M --keep DIR]
# A missing Go toolchain fails the test (build-reference.sh says why).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ours=${1:?usage: run.sh YAML_JSON [--seed N] [--count M]}
shift
ref=$("$here/build-reference.sh" | tail -n 1)
exec "${PYTHON:-python3}" "$here/run.py" --ours "$ours" --reference "$ref" "$@"
