#!/usr/bin/env bash
# run.sh GROUP --binary PATH [--table FILE] [--keep]: lifecycle_test.py under the Ray venv's Python
# (made by build-peers.sh ray when cold), which has PyYAML.
# run.sh acceptance --binary PATH [--keep]: acceptance_test.py (issue 16) under the identity-tools venv.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ ${1:-} == acceptance ]]; then
  # acceptance_test.py also runs test/identity's Pod Identity environment (MinIO's admin client):
  # the identity-tools venv's Python, as test/identity/run.sh. The pod runner keeps the Ray venv.
  shift
  # shellcheck source=test/peers/versions.env
  . "$here/../peers/versions.env"
  # shellcheck disable=SC2086 # IDENTITY_TOOLS is a list of pins
  venv=$("$here/../peers/venv.sh" identity-tools ${IDENTITY_TOOLS//,/ } | tail -n1)
  exec "$venv/bin/python" -u "$here/acceptance_test.py" "$@"
fi
venv=$("$here/build-peers.sh" ray | tail -n1)
exec "$venv/bin/python" "$here/lifecycle_test.py" "$@"
