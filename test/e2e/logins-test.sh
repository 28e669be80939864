#!/usr/bin/env bash
# logins-test.sh: `reap` and `audit` log in to a real kube-apiserver (the pinned version,
# test/e2e/cluster.sh) every way kubectl does, and keep their credentials fresh.
#
# usage: test/e2e/logins-test.sh [--binary PATH/rayjob-guard] [--keep]
# Exit 0 pass, 1 fail.
#
# One ClusterRole (list RayJobs, RayClusters, Jobs, Pods; delete RayJobs) is bound to the user
# login-user, the group login-group and the ServiceAccount logins/rotator; nobody else may list.
# Each login is shown by `audit -n logins` and `reap --once --dry-run -n logins` exiting 0 (and a
# wrong one by exit 1 or 2 with the API's 401 or 403 in the message):
#   token           a kubeconfig with token:, and one with a wrong token (refused)
#   tokenFile       `reap --interval 1` running while its token file rotates: the ServiceAccount
#                   is deleted (its token dies: a pass fails with 401) and created again, and the
#                   new token is written to the file; the next passes succeed with no restart
#   client cert     files (relative paths) and -data, signed by the cluster's client CA for
#                   CN=login-user; a certificate of an unbound user is refused (403)
#   exec plugin     a script printing an ExecCredential and counting its runs: with an expiry
#                   2 s ahead it runs again as passes cross each expiry, with none it runs once
#                   for every pass of a reap --interval; a plugin giving a client certificate
#   merged          $KUBECONFIG=a:b where a's current context is a refused user and b holds the
#                   good one: refused without --context, allowed with --context good
#   home            ~/.kube/config when $KUBECONFIG is unset
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/e2e/e2e-lib.sh
. "$here/e2e-lib.sh"
e2e_setup logins-e2e 2,27 "$@"
need openssl
reaper_pid=""

e2e_on_exit() {
  [[ -z $reaper_pid ]] || stop_pid "$reaper_pid"
}
e2e_on_failure() { e2e_print_files "$work/out"; }
mkdir -p "$work/out" "$work/kc"

say "cluster: etcd + kube-apiserver with a client CA"
"$here/cluster.sh" up "$cluster"
# shellcheck source=/dev/null
. "$cluster/env"
k() { "$KUBECTL" --kubeconfig "$cluster/admin.kubeconfig" "$@"; }

k create namespace logins >/dev/null
k create serviceaccount rotator -n logins >/dev/null
k create clusterrole rjg-login --verb=get,list --resource=rayjobs.ray.io,rayclusters.ray.io,jobs.batch,pods >/dev/null
k create clusterrole rjg-login-delete --verb=delete --resource=rayjobs.ray.io >/dev/null
for role in rjg-login rjg-login-delete; do
  k create clusterrolebinding "$role" --clusterrole="$role" --user=login-user \
    --group=login-group --serviceaccount=logins:rotator >/dev/null
done

# allowed NAME ARGS...: audit and reap, both exit 0, with this login.
allowed() {
  local name=$1
  shift
  "$binary" audit -n logins -o json "$@" >"$work/out/$name.audit" 2>&1 ||
    fail "$name: audit exited $? (see out/$name.audit)"
  "$binary" reap --once --dry-run -n logins "$@" >"$work/out/$name.reap" 2>&1 ||
    fail "$name: reap exited $? (see out/$name.reap)"
  grep -q 'list_failed=false' "$work/out/$name.reap" || fail "$name: reap did not list"
  echo "  $name: audit and reap allowed"
}
# refused NAME WANT ARGS...: audit exits 2 and reap 1, each naming WANT (the API's answer).
refused() {
  local name=$1 want=$2 rc=0
  shift 2
  "$binary" audit -n logins "$@" >"$work/out/$name.audit" 2>&1 || rc=$?
  ((rc == 2)) || fail "$name: audit exited $rc, want 2"
  grep -q "$want" "$work/out/$name.audit" || fail "$name: audit does not say $want"
  rc=0
  "$binary" reap --once --dry-run -n logins "$@" >"$work/out/$name.reap" 2>&1 || rc=$?
  ((rc == 1)) || fail "$name: reap exited $rc, want 1"
  grep -q "$want" "$work/out/$name.reap" || fail "$name: reap does not say $want"
  echo "  $name: refused ($want)"
}

say "token"
sa_token=$(k create token rotator -n logins --duration=1h)
e2e_kubeconfig "$work/kc/token" "{token: $sa_token}"
allowed token --kubeconfig "$work/kc/token"
e2e_kubeconfig "$work/kc/bad-token" "{token: not-a-token}"
refused bad-token 401 --kubeconfig "$work/kc/bad-token"

say "client certificate: files with relative paths, and data"
mint_client() {  # mint_client NAME CN O
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$2/O=$3" \
    -keyout "$work/kc/$1.key" -out "$work/kc/$1.csr" 2>/dev/null
  openssl x509 -req -in "$work/kc/$1.csr" -CA "$CLIENT_CA_CRT" -CAkey "$CLIENT_CA_KEY" \
    -CAcreateserial -days 1 -out "$work/kc/$1.crt" 2>/dev/null
}
mint_client login-user login-user staff
e2e_kubeconfig "$work/kc/cert" "{client-certificate: login-user.crt, client-key: login-user.key}"
allowed cert-files --kubeconfig "$work/kc/cert"
e2e_kubeconfig "$work/kc/cert-data" "{client-certificate-data: $(base64 -w0 "$work/kc/login-user.crt"), client-key-data: $(base64 -w0 "$work/kc/login-user.key")}"
allowed cert-data --kubeconfig "$work/kc/cert-data"
mint_client stranger stranger nobody
e2e_kubeconfig "$work/kc/stranger" "{client-certificate: stranger.crt, client-key: stranger.key}"
refused stranger-cert 403 --kubeconfig "$work/kc/stranger"

say "exec plugin: cached until it expires, run again after"
cat >"$work/kc/plugin.sh" <<'SH'
#!/bin/sh
# Prints an ExecCredential for the token in $TOKEN_FILE, expiring $TTL seconds from now (none
# when TTL is empty), and counts its runs in $COUNT_FILE.
echo run >>"$COUNT_FILE"
case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) ;; *) echo "bad exec info" >&2; exit 3 ;; esac
expiry=""
[ -n "$TTL" ] && expiry=",\"expirationTimestamp\":\"$(date -u -d "+$TTL seconds" +%Y-%m-%dT%H:%M:%SZ)\""
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"%s}}\n' \
  "$(cat "$TOKEN_FILE")" "$expiry"
SH
chmod +x "$work/kc/plugin.sh"
printf '%s' "$sa_token" >"$work/kc/plugin-token"
exec_user() {  # exec_user TTL COUNT_FILE
  echo "{exec: {apiVersion: client.authentication.k8s.io/v1, command: ./plugin.sh, interactiveMode: Never, env: [{name: TOKEN_FILE, value: '$work/kc/plugin-token'}, {name: TTL, value: '$1'}, {name: COUNT_FILE, value: '$2'}]}}"
}
e2e_kubeconfig "$work/kc/exec" "$(exec_user "" "$work/out/exec-once.count")"
allowed exec --kubeconfig "$work/kc/exec"

# interval_runs NAME SECONDS ARGS...: runs reap --interval 1 for SECONDS, then stops it by PID;
# prints the number of passes, all of which must have listed.
interval_runs() {
  local name=$1 seconds=$2
  shift 2
  "$binary" reap --interval 1 --dry-run -n logins "$@" >"$work/out/$name.reap" 2>&1 &
  reaper_pid=$!
  sleep "$seconds"
  kill "$reaper_pid"
  wait "$reaper_pid" || fail "$name: reap --interval exited $?"
  reaper_pid=""
  local passes failed
  passes=$(grep -c 'reap pass ' "$work/out/$name.reap" || true)
  failed=$(grep -c 'list_failed=true' "$work/out/$name.reap" || true)
  ((failed == 0)) || fail "$name: $failed of $passes passes could not list"
  echo "$passes"
}
: >"$work/out/exec-fixed.count"
e2e_kubeconfig "$work/kc/exec-fixed" "$(exec_user "" "$work/out/exec-fixed.count")"
passes=$(interval_runs exec-fixed 4 --kubeconfig "$work/kc/exec-fixed")
runs=$(wc -l <"$work/out/exec-fixed.count")
echo "  exec without expiry: $passes passes, $runs plugin run(s)"
((passes >= 3 && runs == 1)) || fail "exec without expiry: want >= 3 passes and 1 run"

: >"$work/out/exec-expiring.count"
e2e_kubeconfig "$work/kc/exec-expiring" "$(exec_user 2 "$work/out/exec-expiring.count")"
passes=$(interval_runs exec-expiring 7 --kubeconfig "$work/kc/exec-expiring")
runs=$(wc -l <"$work/out/exec-expiring.count")
echo "  exec expiring every 2 s: $passes passes, $runs plugin runs"
# A credential expiring 2 s (whole seconds, so 1-2 s) after a run covers one or two passes at
# 1 s intervals: more than one run, fewer than one per pass would be impossible without a cache.
((passes >= 5 && runs >= 2 && runs < passes)) ||
  fail "exec expiring: want >= 5 passes and 2 <= runs < passes"

cat >"$work/kc/cert-plugin.sh" <<SH
#!/bin/sh
crt=\$(awk 'BEGIN{ORS="\\\\n"} {print}' "$work/kc/login-user.crt")
key=\$(awk 'BEGIN{ORS="\\\\n"} {print}' "$work/kc/login-user.key")
printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"clientCertificateData":"%s","clientKeyData":"%s"}}\n' "\$crt" "\$key"
SH
chmod +x "$work/kc/cert-plugin.sh"
e2e_kubeconfig "$work/kc/exec-cert" "{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: $work/kc/cert-plugin.sh}}"
allowed exec-cert --kubeconfig "$work/kc/exec-cert"
e2e_kubeconfig "$work/kc/exec-missing" "{exec: {apiVersion: client.authentication.k8s.io/v1, command: rjg-no-such-plugin, interactiveMode: Never, installHint: 'install rjg-no-such-plugin first'}}"
rc=0
"$binary" audit -n logins --kubeconfig "$work/kc/exec-missing" >"$work/out/exec-missing" 2>&1 || rc=$?
((rc == 2)) && grep -q 'install rjg-no-such-plugin first' "$work/out/exec-missing" ||
  fail "a missing plugin: want exit 2 with its install hint"

say "tokenFile: rotated under a running reap --interval"
printf '%s\n' "$(k create token rotator -n logins --duration=1h)" >"$work/kc/rotating-token"
e2e_kubeconfig "$work/kc/rotating" "{tokenFile: rotating-token}"
"$binary" reap --interval 1 --dry-run -n logins --kubeconfig "$work/kc/rotating" \
  >"$work/out/rotating.reap" 2>&1 &
reaper_pid=$!
# more_lines BEFORE PATTERN: whether rotating.reap has more than BEFORE lines matching PATTERN.
more_lines() { (($(grep -c "$2" "$work/out/rotating.reap" || true) > $1)); }
wait_log() {  # wait_log BEFORE PATTERN: up to 20 s for PATTERN to appear again in rotating.reap
  wait_for 20 "tokenFile rotation: a new '$2' in rotating.reap" more_lines "$1" "$2"
}
wait_log 0 'list_failed=false'
# The ServiceAccount goes and comes back: its old token is dead (a new uid), so passes fail.
k delete serviceaccount rotator -n logins >/dev/null
k create serviceaccount rotator -n logins >/dev/null
wait_log 0 'list_failed=true'
grep -q 'HTTP 401' "$work/out/rotating.reap" || fail "tokenFile rotation: the failed pass is not a 401"
# The kubelet's way: write the new token beside the file and rename it over.
ok_before=$(grep -c 'list_failed=false' "$work/out/rotating.reap")
printf '%s\n' "$(k create token rotator -n logins --duration=1h)" >"$work/kc/rotating-token.new"
mv "$work/kc/rotating-token.new" "$work/kc/rotating-token"
wait_log "$ok_before" 'list_failed=false'
kill "$reaper_pid"
wait "$reaper_pid" || fail "reap --interval exited $? after SIGTERM"
reaper_pid=""
echo "  tokenFile: refused while the token was dead, allowed again after the rotation, no restart"

say "merged \$KUBECONFIG and --context"
sa_token=$(k create token rotator -n logins --duration=1h)  # the ServiceAccount was replaced
e2e_kubeconfig "$work/kc/merge-a" "{token: not-a-token}" bad
cat >"$work/kc/merge-b" <<KC
users:
- name: u-good
  user: {token: $sa_token}
contexts:
- name: good
  context: {cluster: e2e, user: u-good}
current-context: good
KC
# merge-a's current-context (bad) wins; its cluster e2e serves both contexts.
KUBECONFIG="$work/kc/absent:$work/kc/merge-a:$work/kc/merge-b" refused merged-current 401
KUBECONFIG="$work/kc/absent:$work/kc/merge-a:$work/kc/merge-b" allowed merged-context --context good

say "~/.kube/config when \$KUBECONFIG is unset"
mkdir -p "$work/home/.kube"
e2e_kubeconfig "$work/home/.kube/config" "{token: $sa_token}"
(unset KUBECONFIG; HOME=$work/home allowed home)

passed=1
say "PASS"
