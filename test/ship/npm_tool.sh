#!/usr/bin/env bash
# Installs an npm package once into ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/npm/NAME and prints
# that directory (its node_modules/ holds the package). Uses npm's configured registry; npm's own
# download cache and logs go to .../rayjob-guard/npm/.npm-cache, not ~/.npm.
# usage: npm_tool.sh PACKAGE_SPEC DIR_NAME
set -euo pipefail
spec="${1:?usage: npm_tool.sh PACKAGE_SPEC DIR_NAME}" name="${2:?}"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/npm/$name"
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ ! -f "$dir/.installed" ]; then
  command -v npm >/dev/null || { echo "npm_tool: npm is not installed" >&2; exit 1; }
  (cd "$dir" && [ -f package.json ] || echo '{"name":"rjg-test-tool","private":true}' > "$dir/package.json")
  npm install --prefix "$dir" --cache "$(dirname "$dir")/.npm-cache" --no-update-notifier --no-audit --no-fund --loglevel=error "$spec" >&2
  touch "$dir/.installed"
fi
echo "$dir"
