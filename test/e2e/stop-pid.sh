# stop_pid, shared by cluster.sh and webhook.sh (sourced; uses the caller's log function).
# stop_pid NAME PIDFILE EXPECTED_COMM: TERM, wait up to 30 s, then KILL; only when the PID still
# runs the program we started (a recycled PID is left alone).
stop_pid() {
  local name=$1 pidfile=$2 comm=$3 pid i
  [[ -f $pidfile ]] || return 0
  pid=$(<"$pidfile")
  if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null \
      && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$comm"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 300; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "$name (pid $pid) still runs 30 s after TERM; KILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    log "stopped $name (pid $pid)"
  fi
  rm -f "$pidfile"
}
