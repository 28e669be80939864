#!/usr/bin/env bash
# module-dir.sh MODULE@VERSION: prints the directory of that Go module in the project's module
# cache (${RJG_CACHE:-${XDG_CACHE_HOME:-~/.cache}/rayjob-guard}/go/mod), downloading it from the
# module proxy on first use. Exit 1 with go's message on stderr when it cannot be had.
# $GO names the go binary (default /usr/local/go/bin/go, else go on PATH).
set -euo pipefail
module=${1:?usage: module-dir.sh MODULE@VERSION}
go=${GO:-/usr/local/go/bin/go}
[[ -x $go ]] || go=$(command -v go) || { echo "module-dir.sh: no go binary" >&2; exit 1; }
cache=${RJG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard}
GOMODCACHE=$cache/go/mod GOFLAGS=-mod=mod GOTOOLCHAIN=local "$go" mod download -json "$module" |
  "${PYTHON:-python3}" -c '
import json, sys
info = json.load(sys.stdin)
if not info.get("Dir"):
    sys.exit("module-dir.sh: " + info.get("Error", "no directory for " + sys.argv[1]))
print(info["Dir"])' "$module"
