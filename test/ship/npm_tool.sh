#!/usr/bin/env bash
# Installs an npm package once into ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/npm/NAME and prints
# that directory (its node_modules/ holds the package). Uses npm's configured registry; npm's own
# download cache and logs go to .../rayjob-guard/npm/.npm-cache, not ~/.npm.
# usage: npm_tool.sh PACKAGE_SPEC DIR_NAME
set -euo pipefail
# shellcheck source=test/harness/harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/../harness/harness.sh"
harness_init npm_tool colon
spec="${1:?usage: npm_tool.sh PACKAGE_SPEC DIR_NAME}" name="${2:?}"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/npm/$name"
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ ! -f "$dir/.installed" ]; then
  need npm
  (cd "$dir" && [ -f package.json ] || echo '{"name":"rjg-test-tool","private":true}' > "$dir/package.json")
  npm install --prefix "$dir" --cache "$(dirname "$dir")/.npm-cache" --no-update-notifier --no-audit --no-fund --loglevel=error "$spec" >&2
  touch "$dir/.installed"
fi
echo "$dir"
