#!/usr/bin/env bash
# Lints both Dockerfiles (the webhook's and the tenant Ray image's) with npm dockerfilelint,
# installed once into the user cache. Exit code of dockerfilelint = number of issues.
# usage: dockerfile_lint_test.sh REPO_DIR
set -euo pipefail
repo="$(cd "${1:?usage: dockerfile_lint_test.sh REPO_DIR}" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
dir="$("$here/npm_tool.sh" dockerfilelint@1 dockerfilelint)" || { echo "FAIL: cannot install dockerfilelint from npm" >&2; exit 1; }
lint="$dir/node_modules/.bin/dockerfilelint"
status=0
for f in Dockerfile images/ray/Dockerfile; do
  if out="$("$lint" "$repo/$f" 2>&1)"; then
    echo "ok: dockerfilelint $f: no issues"
  else
    echo "FAIL: dockerfilelint $f:"; echo "$out"; status=1
  fi
done
[ "$status" = 0 ] && echo "PASS: both Dockerfiles lint clean"
exit "$status"
