#!/usr/bin/env bash
# venv.sh NAME REQUIREMENT...: a cached Python virtual environment holding exactly REQUIREMENTs
# (pip specifiers, pinned: 'ray[default]==2.41.0'), made once with the machine's python3 and kept
# under ${XDG_CACHE_HOME:-~/.cache}/rayjob-guard/venvs/NAME. Prints the venv's directory on its
# last line of stdout; progress goes to stderr.
# A warm call installs nothing: the venv is reused while the requirement list it was made with is
# unchanged (kept in NAME/.rjg-requirements). A different list, or a half-made venv (a run that
# was stopped mid-install), is made anew. One maker at a time per NAME (flock).
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: venv.sh NAME REQUIREMENT..." >&2; exit 2; }
name=$1
shift
[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || { echo "venv.sh: bad venv name '$name'" >&2; exit 2; }
root=${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/venvs
dir=$root/$name
want=$(printf '%s\n' "$@")
mkdir -p "$root"
exec 9>"$root/.$name.lock"
flock 9
if [[ -f $dir/.rjg-requirements && $(<"$dir/.rjg-requirements") == "$want" ]]; then
  echo "$dir"
  exit 0
fi
# shellcheck source=test/harness/harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/../harness/harness.sh"
harness_init "venv $name"
rm -rf "$dir"
t0=$(date +%s)
log "making: $*"
python3 -m venv "$dir"
"$dir/bin/python" -m pip install -q --disable-pip-version-check --no-input "$@" >&2
printf '%s\n' "$want" >"$dir/.rjg-requirements"
log "made in $(($(date +%s) - t0)) s ($(du -sh "$dir" | cut -f1))"
echo "$dir"
