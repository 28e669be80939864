#!/usr/bin/env bash
# run.sh SCRIPT ARGS...: runs test/identity/SCRIPT with the identity-tools venv's Python (the
# IDENTITY_TOOLS pins of test/peers/versions.env: MinIO's admin client and boto3), made once by
# test/peers/venv.sh and reused.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -ge 1 ]] || { echo "usage: run.sh SCRIPT ARGS..." >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "run.sh: the identity tests need root (ip netns, setns)" >&2; exit 1; }
# shellcheck source=test/harness/harness.sh
. "$here/../harness/harness.sh"
harness_init run.sh colon
need ip curl -- the identity tests need it, scripts/install-deps.sh installs it
# shellcheck source=test/peers/versions.env
. "$here/../peers/versions.env"
: "${IDENTITY_TOOLS:?IDENTITY_TOOLS is not set in test/peers/versions.env}"
# shellcheck disable=SC2086 # IDENTITY_TOOLS is a list of pins
venv=$("$here/../peers/venv.sh" identity-tools ${IDENTITY_TOOLS//,/ } | tail -n1)
script=$1
shift
exec "$venv/bin/python" -u "$here/$script" "$@"
