# shellcheck shell=bash
# harness.sh: the shell twin of the Python harness in this directory, what the scripts of test/
# and bench/ share. Sourced (never run), by a path relative to the script:
#
#   # shellcheck source=test/harness/harness.sh
#   . "$(dirname "${BASH_SOURCE[0]}")/../harness/harness.sh"
#   harness_init NAME [colon]
#
# Messages go to stderr, prefixed by NAME: "[NAME] MSG" (the default), "NAME: MSG" with colon, no
# prefix when NAME is empty. die ends a script that cannot go on (exit 1; exit 2 with colon, the
# status the colon-style tools give for bad arguments), fail ends a test that failed (exit 1). A
# missing tool is a failure, never a skip: need has no way around it. Every function works under
# set -euo pipefail. The ship scripts (certs/, scripts/) do not source it: users run them without
# the test tree.

_harness_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HARNESS_NAME=""
HARNESS_STYLE=bracket

# harness_init NAME [colon]: sets the prefix of every message this script prints (see above).
harness_init() {
  HARNESS_NAME=$1
  HARNESS_STYLE=${2:-bracket}
}

# _harness_say MSG: prints MSG on stderr after this script's prefix.
_harness_say() {
  if [[ -z $HARNESS_NAME ]]; then
    printf '%s\n' "$*" >&2
  elif [[ $HARNESS_STYLE == colon ]]; then
    printf '%s: %s\n' "$HARNESS_NAME" "$*" >&2
  else
    printf '[%s] %s\n' "$HARNESS_NAME" "$*" >&2
  fi
}

# log MSG: prints a progress line on stderr ("[NAME] MSG").
log() { _harness_say "$*"; }

# die MSG: prints "[NAME] error: MSG" ("NAME: MSG" with colon) and exits 1 (2 with colon).
die() {
  if [[ $HARNESS_STYLE == colon ]]; then
    _harness_say "$*"
    exit 2
  fi
  _harness_say "error: $*"
  exit 1
}

# fail MSG: prints "[NAME] FAIL: MSG" and exits 1: the test failed.
fail() {
  _harness_say "FAIL: $*"
  exit 1
}

# need TOOL... [-- WHY]: returns when every TOOL is on PATH (or an executable path); else fails
# with "TOOL is not installed (WHY)".
need() {
  local tools=() tool
  while [[ $# -gt 0 && $1 != -- ]]; do
    tools+=("$1")
    shift
  done
  [[ ${1:-} != -- ]] || shift
  for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null || fail "$tool is not installed${*:+ ($*)}"
  done
}

# free_ports N [HOST]: prints N distinct free TCP ports of HOST (default 127.0.0.1) on one line:
# the Python harness's free_ports (test/harness/net.py), which binds them all at once so that no
# two are the same.
free_ports() {
  PYTHONPATH="$_harness_dir/..${PYTHONPATH:+:$PYTHONPATH}" python3 -c 'import sys
from harness.net import free_ports
print(*free_ports(int(sys.argv[1]), sys.argv[2]))' "$1" "${2:-127.0.0.1}"
}

# wait_for SECONDS DESCRIPTION COMMAND...: returns once COMMAND succeeds (its output hidden),
# polled every 0.2 s; fails with "after SECONDS s: DESCRIPTION" when it has not by then.
wait_for() {
  local secs=$1 what=$2 i
  shift 2
  for ((i = 0; i < secs * 5; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  fail "after ${secs} s: $what"
}

# _harness_running PID: whether PID runs (a zombie, exited but not yet reaped, does not).
_harness_running() {
  [[ -r /proc/$1/stat ]] && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]
}

# stop_pid PID [GRACE_SECONDS]: TERM, up to GRACE_SECONDS (whole, default 10) for PID to exit,
# then KILL (saying so); reaps PID when it is a child of this shell. Returns 0, quietly when PID
# is already gone.
stop_pid() {
  local pid=$1 grace=${2:-10} i
  if kill -TERM "$pid" 2>/dev/null; then
    for ((i = 0; i < grace * 10; i++)); do
      _harness_running "$pid" || break
      sleep 0.1
    done
    if _harness_running "$pid"; then
      log "pid $pid still runs ${grace} s after TERM; KILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
}

# stop_pidfile NAME PIDFILE COMM: stop_pid with a 30 s grace for the PID in PIDFILE, only when it
# still runs a command line holding COMM (a recycled PID is left alone); then removes PIDFILE.
stop_pidfile() {
  local name=$1 pidfile=$2 comm=$3 pid
  [[ -f $pidfile ]] || return 0
  pid=$(<"$pidfile")
  if [[ $pid =~ ^[0-9]+$ ]] && _harness_running "$pid" &&
    [[ $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) == *"$comm"* ]]; then
    stop_pid "$pid" 30
    log "stopped $name (pid $pid)"
  fi
  rm -f "$pidfile"
}
