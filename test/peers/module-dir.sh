#!/usr/bin/env bash
# module-dir.sh MODULE@VERSION: prints the directory of that Go module in the project's module
# cache (${RJG_CACHE:-${XDG_CACHE_HOME:-~/.cache}/rayjob-guard}/go/mod), downloading it from the
# module proxy on first use. Exit 1 with go's message on stderr when it cannot be had.
# The Go toolchain and environment are go-env.sh's ($RJG_GO names the go binary).
set -euo pipefail
module=${1:?usage: module-dir.sh MODULE@VERSION}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/peers/go-env.sh
. "$here/go-env.sh"
rjg_go_env "${RJG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard}" mod || exit 1
"$go" mod download -json "$module" |
  "${PYTHON:-python3}" -c '
import json, sys
info = json.load(sys.stdin)
if not info.get("Dir"):
    sys.exit("module-dir.sh: " + info.get("Error", "no directory for " + sys.argv[1]))
print(info["Dir"])' "$module"
