#!/usr/bin/env bash
# harness_sh_test.sh: each function of harness.sh (the shell harness), its success and failure
# paths, in child shells under set -euo pipefail: the message prefixes and exit statuses of log,
# die and fail; need failing, naming the tool, for a missing one; free_ports 32 giving 32 distinct
# ports that can each be bound; wait_for returning once its command succeeds and failing with its
# description at the deadline; stop_pid stopping a child by TERM, one that ignores TERM by KILL
# after the grace, and saying nothing for a PID that is gone; stop_pidfile leaving alone a PID
# that runs another program.
# usage: harness_sh_test.sh
# shellcheck disable=SC2016 # the child scripts are single-quoted: they expand in the child
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
harness=$here/harness.sh
failures=0

# check DESCRIPTION COMMAND...: prints ok or FAIL for COMMAND's status (the script goes on).
check() {
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}

# child SCRIPT: runs SCRIPT in a new bash with the harness sourced; sets rc, out, err.
child() {
  local e
  e=$(mktemp)
  rc=0
  out=$(bash -c "set -euo pipefail; . '$harness'; $1" 2>"$e") || rc=$?
  err=$(<"$e")
  rm -f "$e"
}

child 'harness_init probe; log "made"; die "broken"; echo after'
check "log and die: [NAME] MSG, [NAME] error: MSG, exit 1 (got $rc: $err)" \
  test "$rc:$out:$err" = $'1::[probe] made\n[probe] error: broken'
child 'harness_init probe colon; log "made"; die "bad argument"'
check "colon: NAME: MSG, die exits 2 (got $rc: $err)" \
  test "$rc:$err" = $'2:probe: made\nprobe: bad argument'
child 'harness_init probe; fail "wrong answer"'
check "fail: [NAME] FAIL: MSG, exit 1 (got $rc: $err)" test "$rc:$err" = '1:[probe] FAIL: wrong answer'
child 'harness_init ""; fail "wrong answer"'
check "fail without a name: FAIL: MSG (got $rc: $err)" test "$rc:$err" = '1:FAIL: wrong answer'

child 'harness_init probe; need bash sh; echo found'
check "need returns when every tool is there (got $rc: $out $err)" test "$rc:$out:$err" = '0:found:'
child 'harness_init probe; need bash rjg-no-such-tool -- apt-get install -y it; echo after'
check "need fails naming the missing tool and why (got $rc: $out $err)" \
  test "$rc:$out:$err" = '1::[probe] FAIL: rjg-no-such-tool is not installed (apt-get install -y it)'
child 'harness_init probe; PATH=/nonexistent; need python3'
check "need fails for a tool PATH does not hold (got $rc: $err)" \
  test "$rc:$err" = '1:[probe] FAIL: python3 is not installed'

child 'free_ports 32'
read -r -a ports <<<"$out"
check "free_ports 32 prints 32 ports (got $rc: ${#ports[@]}: $err)" test "$rc:${#ports[@]}" = 0:32
distinct=$(printf '%s\n' "${ports[@]}" | sort -u | wc -l)
check "free_ports 32: all distinct ($distinct)" test "$distinct" = 32
bindable() {
  python3 -c 'import socket, sys
for p in sys.argv[1:]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", int(p)))' "$@"
}
check "free_ports 32: each can be bound on 127.0.0.1" bindable "${ports[@]}"
child 'free_ports 2 0.0.0.0'
check "free_ports N HOST binds HOST (got $rc: $out $err)" test "$rc:$(wc -w <<<"$out")" = 0:2

flag=$(mktemp -u)
child "(sleep 0.5; touch '$flag') & wait_for 10 'the flag file' test -e '$flag'; echo done"
check "wait_for returns once the command succeeds (got $rc: $out $err)" test "$rc:$out" = 0:done
rm -f "$flag"
start=$SECONDS
child 'harness_init probe; wait_for 1 "the flag file to appear" false; echo after'
check "wait_for fails naming what it waited for (got $rc: $out $err)" \
  test "$rc:$out:$err" = '1::[probe] FAIL: after 1 s: the flag file to appear'
check "wait_for gives up at its deadline ($((SECONDS - start)) s)" test $((SECONDS - start)) -le 3

child 'sleep 300 & p=$!; stop_pid $p 5; kill -0 $p 2>/dev/null && echo alive || echo gone'
check "stop_pid stops a sleep child quietly (got $rc: $out $err)" test "$rc:$out:$err" = 0:gone:
child 'sleep 0 & p=$!; wait $p; stop_pid $p; stop_pid 999999999 1; echo done'
check "stop_pid is quiet for a PID that is gone (got $rc: $out $err)" test "$rc:$out:$err" = 0:done:
# Ignored signals stay ignored across exec: this sleep ignores TERM.
child 'harness_init probe; bash -c "trap \"\" TERM; exec sleep 300" & p=$!; sleep 0.3
stop_pid $p 1; kill -0 $p 2>/dev/null && echo alive || echo gone'
check "stop_pid KILLs what ignores TERM after the grace, saying so (got $rc: $out $err)" \
  test "$rc:$out:${err/pid [0-9]*/pid N still}" = "0:gone:[probe] pid N still"
check "stop_pid's KILL line names the grace ($err)" grep -q 'still runs 1 s after TERM; KILL' <<<"$err"

pidfile=$(mktemp)
child "harness_init probe; sleep 300 & p=\$!; echo \$p >'$pidfile'
stop_pidfile other '$pidfile' no-such-command; kill -0 \$p && echo alive; kill \$p"
check "stop_pidfile leaves a PID running another program alone (got $rc: $out $err)" \
  test "$rc:$out:$err:$(test -e "$pidfile" && echo kept)" = 0:alive::
child "harness_init probe; sleep 300 & p=\$!; echo \$p >'$pidfile'
stop_pidfile sleeper '$pidfile' sleep; kill -0 \$p 2>/dev/null && echo alive || echo gone"
check "stop_pidfile stops the program it names and says so (got $rc: $out $err)" \
  test "$rc:$out:${err//[0-9]/}" = "0:gone:[probe] stopped sleeper (pid )"

if ((failures)); then
  echo "harness_sh_test: $failures check(s) failed"
  exit 1
fi
echo "harness_sh_test: all checks passed"
