#!/usr/bin/env bash
# run.sh GROUP --binary PATH [--table FILE] [--keep]: lifecycle_test.py under the Ray venv's Python
# (made by build-peers.sh ray when cold), which has PyYAML.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
venv=$("$here/build-peers.sh" ray | tail -n1)
exec "$venv/bin/python" "$here/lifecycle_test.py" "$@"
