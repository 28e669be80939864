# e2e-lib.sh: what the end-to-end scripts that bring up a cluster of their own share
# (audit-test.sh, live-quota-test.sh, logins-test.sh, reaper-quota-test.sh): their arguments,
# their work directory, say, kubeconfigs (e2e_kubeconfig, e2e_sa_kubeconfig),
# test/harness/harness.sh (fail, need, wait_for, stop_pid, with the prefix [NAME] from
# e2e_setup), and one cleanup that stops what they started, by PID, also on failure. Sourced:
#
#   here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
#   . "$here/e2e-lib.sh"
#   e2e_setup NAME HELP_LINES "$@"   # --binary PATH, --keep, -h (prints lines HELP_LINES of $0)
#   e2e_on_exit() { ...; }           # optional: stop the script's own processes
#   e2e_on_failure() { ...; }        # optional: print what explains a failure
#   ...
#   passed=1                         # last: the work directory goes (unless --keep)
#
# e2e_setup sets binary (default build/rayjob-guard), keep, work (a new temporary directory
# rjg-NAME.XXXXXX), cluster ($work/cluster, for cluster.sh) and passed=0.

e2e_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/harness/harness.sh
. "$e2e_here/../harness/harness.sh"

e2e_on_exit() { :; }
e2e_on_failure() { :; }

say() { printf '\n[%s] %s\n' "$e2e_name" "$*"; }

# e2e_print_files DIR: every file in DIR, the last 4000 bytes of each, on stderr (for
# e2e_on_failure).
e2e_print_files() {
  local f
  for f in "$1"/*; do
    [[ -f $f ]] || continue
    echo "----- $(basename "$f") -----" >&2
    tail -c 4000 "$f" >&2 || true
    echo >&2
  done
}

# e2e_kubeconfig FILE USER [CONTEXT]: a kubeconfig in FILE for this cluster (APISERVER_URL,
# APISERVER_CA) whose one user (u-CONTEXT, context CONTEXT, default c) logs in as USER, a YAML
# flow mapping ("{token: ...}", "{tokenFile: ...}", "{exec: {...}}"); relative paths in USER are
# read from FILE's folder.
e2e_kubeconfig() {
  local file=$1 user=$2 context=${3:-c}
  cat >"$file" <<KC
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: "$APISERVER_URL", certificate-authority: "$APISERVER_CA"}
users:
- name: u-$context
  user: $user
contexts:
- name: $context
  context: {cluster: e2e, user: u-$context}
current-context: $context
KC
}

# e2e_sa_kubeconfig SA NAME: a TokenRequest token (1 h) for ServiceAccount SA of namespace
# rayjob-guard, as a projected token volume gives the pod, in $work/NAME.token, and a kubeconfig
# that reads it (tokenFile) in $work/NAME.kubeconfig. Uses the script's k (kubectl as admin).
e2e_sa_kubeconfig() {
  local sa=$1 name=$2
  (umask 077; k create token "$sa" -n rayjob-guard --duration=1h >"$work/$name.token")
  e2e_kubeconfig "$work/$name.kubeconfig" "{tokenFile: \"$work/$name.token\"}" "$name"
}

e2e_setup() {
  e2e_name=$1
  harness_init "$e2e_name"
  local help_lines=$2
  shift 2
  binary=""
  keep=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --binary) binary=${2:?--binary needs a path}; shift 2 ;;
      --keep) keep=1; shift ;;
      -h|--help) sed -n "${help_lines}p" "$0"; exit 0 ;;
      *) echo "[$e2e_name] unknown argument '$1'" >&2; exit 2 ;;
    esac
  done
  [[ -n $binary ]] || binary=$e2e_here/../../build/rayjob-guard
  [[ -x $binary ]] || { echo "[$e2e_name] no rayjob-guard binary at $binary (use --binary)" >&2; exit 1; }
  work=$(mktemp -d "${TMPDIR:-/tmp}/rjg-$e2e_name.XXXXXX")
  cluster=$work/cluster
  passed=0
  trap e2e_cleanup EXIT
  trap 'exit 130' INT TERM
}

e2e_cleanup() {
  local rc=$?
  e2e_on_exit || true
  ((passed == 1)) || e2e_on_failure || true
  "$e2e_here/cluster.sh" down "$cluster" || true
  if ((passed == 1 && keep == 0)); then
    rm -rf "$work"
  else
    echo "[$e2e_name] work directory kept: $work" >&2
  fi
  exit "$rc"
}
