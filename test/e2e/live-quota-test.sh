#!/usr/bin/env bash
# live-quota-test.sh: `serve` with a policy whose quota.source is cluster, reading the
# ResourceQuotas of a real kube-apiserver (the pinned version, test/e2e/cluster.sh) through its
# watch cache, as the ServiceAccount manifests/cluster-quota/ grants (get, list, watch
# resourcequotas, nothing else).
#
# usage: test/e2e/live-quota-test.sh [--binary PATH/rayjob-guard] [--keep]
# Exit 0 pass, 1 fail.
#
# Reviews are posted to serve over TLS (certificates minted at run time, ports chosen by the
# kernel) as the apiserver would send them; the verdict is polled every 20 ms. Shown:
#   readiness    /readyz and rayjob_guard_cluster_quota_synced once the first list is in
#   follow       a RayJob in a namespace without a ResourceQuota is refused (unknownNamespace:
#                deny); a ResourceQuota created, lowered below its footprint, raised again, and
#                deleted, each followed by the verdict within 1 s (the milliseconds are printed)
#   outage       the kube-apiserver stopped for 30 s: verdicts go on from the cache, /readyz stays
#                200, rayjob_guard_cluster_quota_staleness_seconds rises past 25
#   Kueue        Kueue's ClusterQueue and LocalQueue CRDs (Kueue's module at KUEUE_VERSION) installed
#                while serve runs: picked up within 15 s; a Kueue RayJob then judged against its
#                LocalQueue's ClusterQueue (nominal quota, a cohort's borrowing limit), each change
#                and the LocalQueue's deletion followed within 1 s; check given the cluster agrees
#   410 Gone     while it is down, etcd writes and compacts past serve's resourceVersion; after
#                the restart serve's watch gets 410 and lists again (its log), staleness is 0 and a
#                change is followed within 1 s again
#   check        `check --server ...` judges by the same ResourceQuotas, read once
#   parity       every RayJob of test/corpus reviewed under the notebook and the API identity:
#                byte-identical answers, with the cluster as the quota source
#   scale        2,000 namespaces with a ResourceQuota each: a second serve's first sync time and
#                its resident memory against the first serve's before them (printed)
# Everything started is stopped by PID (cluster.sh down, and serve's PIDs), also on failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=test/e2e/e2e-lib.sh
. "$here/e2e-lib.sh"
# shellcheck source=test/peers/versions.env
. "$repo/test/peers/versions.env"
e2e_setup live-quota 2,24 "$@"
serve_pids=()
e2e_on_exit() {
  local p
  for p in "${serve_pids[@]}"; do stop_pid "$p" 20; done
}
e2e_on_failure() {
  local f
  for f in "$work"/serve*.log; do
    [[ -f $f ]] || continue
    echo "----- $(basename "$f") (tail) -----" >&2
    tail -n 25 "$f" >&2
  done
  echo "----- kube-apiserver log (tail) -----" >&2
  tail -n 15 "$cluster/logs/kube-apiserver.log" >&2 2>/dev/null || true
}

cat >"$work/policy.yaml" <<'EOF'
apiVersion: rayjob-guard.io/v1
kind: Policy
kuberay: {version: "1.6"}
lifecycle: {mode: deletionRules, maxSucceededTTLSeconds: 600, maxFailedTTLSeconds: 86400}
images:
  allow: ["*.dkr.ecr.*.amazonaws.com/ray-tenant:*"]
quota:
  source: cluster
  unknownNamespace: deny
EOF
"$binary" policy validate "$work/policy.yaml" >/dev/null || fail "the test's policy does not validate"

say "cluster: etcd + kube-apiserver"
"$here/cluster.sh" up "$cluster"
# shellcheck source=/dev/null
. "$cluster/env"
k() { "$KUBECTL" --kubeconfig "$cluster/admin.kubeconfig" "$@"; }

say "serve's identity: the ServiceAccount and ClusterRole of manifests/cluster-quota"
k create namespace rayjob-guard >/dev/null
k apply -f "$repo/manifests/base/serviceaccount.yaml" -f "$repo/manifests/cluster-quota/rbac.yaml" >/dev/null
(umask 077; k create token rayjob-guard -n rayjob-guard --duration=2h >"$work/serve.token")
for verb in get list watch; do
  [[ $(k auth can-i "$verb" resourcequotas --all-namespaces --as system:serviceaccount:rayjob-guard:rayjob-guard) == yes ]] ||
    fail "the webhook's ServiceAccount cannot $verb resourcequotas"
done
for what in "create resourcequotas" "update resourcequotas" "list pods" "get secrets"; do
  # shellcheck disable=SC2086
  [[ $(k auth can-i $what --all-namespaces --as system:serviceaccount:rayjob-guard:rayjob-guard 2>/dev/null || true) == no ]] ||
    fail "the webhook's ServiceAccount may $what"
done
echo "[live-quota] ServiceAccount: get, list, watch resourcequotas and nothing else"

"$repo/certs/mint-certs.sh" --out "$work/certs" --san IP:127.0.0.1 >/dev/null

# start_serve NAME: serve on port 0 with the test's policy, logged to $work/NAME.log; sets
# SERVE_PID, HTTPS_PORT, PROBE_PORT and appends the PID to serve_pids.
start_serve() {
  local name=$1 i
  rm -f "$work/$name.ports"
  "$binary" serve --tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key" \
    --policy "$work/policy.yaml" --listen 127.0.0.1:0 --probe-listen 127.0.0.1:0 \
    --port-file "$work/$name.ports" --log-format text \
    --server "$APISERVER_URL" --token-file "$work/serve.token" --ca "$APISERVER_CA" \
    >"$work/$name.log" 2>&1 &
  SERVE_PID=$!
  serve_pids+=("$SERVE_PID")
  for ((i = 0; i < 200; i++)); do
    [[ -s $work/$name.ports ]] && break
    kill -0 "$SERVE_PID" 2>/dev/null || fail "serve ($name) exited: $(tail -n 5 "$work/$name.log")"
    sleep 0.05
  done
  [[ -s $work/$name.ports ]] || fail "serve ($name) wrote no port file in 10 s"
  HTTPS_PORT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["https"])' "$work/$name.ports")
  PROBE_PORT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probe"])' "$work/$name.ports")
}

# The client: AdmissionReviews of one RayJob (test/corpus/03-deletion-rules-staged.yaml, which the
# policy admits when its namespace's quota fits) posted to serve.
cat >"$work/client.py" <<'PY'
"""client.py HTTPS_PORT CA COMMAND ...
  verdict NS                       print allowed, or denied and the message
(of the RayJob in $RJG_JOB, default rayjob.yaml beside this file)
  wait NS allowed|denied TIMEOUT S print the milliseconds until the verdict is that (exit 1 if never)
  parity NS FILE...                each RayJob under both identities: byte-identical answers
  metric PROBE_PORT NAME           print the value of a metric on the probe port
"""
import http.client, json, os, ssl, sys, time, yaml

port, ca, cmd, args = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
ctx = ssl.create_default_context(cafile=ca)
conn = None

def post(body):
    global conn
    for attempt in range(2):
        try:
            if conn is None:
                conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
            conn.request("POST", "/validate", body=body, headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            data = r.read()
            if r.status != 200:
                sys.exit(f"serve answered {r.status}: {data[:300]!r}")
            return data
        except (ConnectionError, http.client.HTTPException):
            conn = None
            if attempt:
                raise

IDENTITIES = {
    "notebook": {"username": "tenant-a:notebook", "groups": ["tenant-a", "system:authenticated"]},
    "api": {"username": "system:serviceaccount:platform:compute-api",
            "groups": ["system:serviceaccounts", "system:serviceaccounts:platform", "system:authenticated"]},
}

def review(obj, ns, who="notebook"):
    obj = dict(obj, metadata=dict(obj.get("metadata", {}), namespace=ns))
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": "0b9d3c53-live-quota", "kind": {"group": "ray.io", "version": "v1", "kind": "RayJob"},
        "resource": {"group": "ray.io", "version": "v1", "resource": "rayjobs"},
        "name": obj["metadata"].get("name", "x"), "namespace": ns, "operation": "CREATE",
        "userInfo": IDENTITIES[who], "object": obj, "dryRun": False}}).encode()

def rayjobs(path):
    return [d for d in yaml.safe_load_all(open(path)) if isinstance(d, dict) and d.get("kind") == "RayJob"]

JOB = rayjobs(os.environ.get("RJG_JOB") or sys.argv[0].rsplit("/", 1)[0] + "/rayjob.yaml")[0]

def verdict(ns):
    resp = json.loads(post(review(JOB, ns)))["response"]
    return "allowed" if resp["allowed"] else "denied " + resp.get("status", {}).get("message", "")

if cmd == "verdict":
    print(verdict(args[0]))
elif cmd == "wait":
    ns, want, timeout = args[0], args[1], float(args[2])
    t0 = time.monotonic()
    while True:
        v = verdict(ns)
        if v.split(" ", 1)[0] == want:
            print(f"{(time.monotonic() - t0) * 1000:.0f}")
            print(v, file=sys.stderr)
            break
        if time.monotonic() - t0 > timeout:
            sys.exit(f"still {v!r} after {timeout} s")
        time.sleep(0.02)
elif cmd == "parity":
    ns, n, differ = args[0], 0, []
    for path in args[1:]:
        for obj in rayjobs(path):
            a, b = post(review(obj, ns, "notebook")), post(review(obj, ns, "api"))
            n += 1
            if a != b:
                differ.append(path)
    if differ:
        sys.exit(f"answers differ by identity for {differ}")
    print(n)
PY
cp "$repo/test/corpus/03-deletion-rules-staged.yaml" "$work/rayjob.yaml"
client() { python3 "$work/client.py" "$HTTPS_PORT" "$work/certs/ca.crt" "$@"; }
metric() {
  curl -s --max-time 5 "http://127.0.0.1:$PROBE_PORT/metrics" |
    awk -v m="$1" '$1 == m {print $2; found=1} END {exit !found}'
}
ready() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PROBE_PORT/readyz"; }
ready_200() { [[ $(ready) == 200 ]]; }
staleness_0() { [[ $(metric rayjob_guard_cluster_quota_staleness_seconds) == 0 ]]; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
quota() {  # quota NS NAME CPU: create or replace a ResourceQuota with requests.cpu CPU
  k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ResourceQuota
metadata: {name: $2, namespace: $1}
spec: {hard: {requests.cpu: "$3", count/rayjobs.ray.io: "10"}}
EOF
}
# follow NS WANT WHAT [SECONDS]: waits (at most SECONDS, default 1) for the verdict WANT and says
# how long it took.
follow() {
  local ms limit=${4:-1}
  ms=$(client wait "$1" "$2" "$limit" 2>"$work/verdict.txt") || fail "$3: the verdict did not become $2 within $limit s ($(cat "$work/verdict.txt"))"
  printf '[live-quota] %s: %s after %s ms (%s)\n' "$3" "$2" "$ms" "$(cut -c1-160 "$work/verdict.txt")"
}

say "serve with quota.source: cluster"
start_serve serve
main_pid=$SERVE_PID
wait_for 10 "/readyz answering 200" ready_200
[[ $(metric rayjob_guard_cluster_quota_synced) == 1 ]] || fail "rayjob_guard_cluster_quota_synced is not 1"
[[ $(metric rayjob_guard_cluster_quota_staleness_seconds) == 0 ]] || fail "staleness is not 0 while watching"
grep -q 'watch listed' "$work/serve.log" || fail "serve did not log its first list"
echo "[live-quota] ready after the first list; synced 1, staleness 0"

say "a namespace without a ResourceQuota, then one created, lowered, raised and deleted"
k create namespace team-q >/dev/null
[[ $(client verdict team-q) == "denied "*'has no ResourceQuota'* ]] ||
  fail "no ResourceQuota: $(client verdict team-q)"
quota team-q compute 1000
follow team-q allowed "ResourceQuota created (requests.cpu 1000)"
quota team-q compute 1m
follow team-q denied "requests.cpu lowered to 1m"
grep -qF 'ResourceQuota "team-q/compute"' "$work/verdict.txt" || fail "the refusal does not name ResourceQuota team-q/compute: $(cat "$work/verdict.txt")"
quota team-q compute 1000
follow team-q allowed "requests.cpu raised to 1000"
quota team-q tight 1m
follow team-q denied "a second ResourceQuota, tighter"
k delete resourcequota tight -n team-q >/dev/null
follow team-q allowed "the tighter one deleted"
k delete resourcequota compute -n team-q >/dev/null
follow team-q denied "the last one deleted"
quota team-q compute 1000
follow team-q allowed "created again"

say "check given the cluster judges by the same ResourceQuotas"
# check_rc NS: check's exit status for the RayJob in NS, quota read from the cluster as serve's
# ServiceAccount (one list of NS's ResourceQuotas).
check_rc() {
  local rc=0 job=${RJG_JOB:-$work/rayjob.yaml}
  sed "s/^  namespace: tenant-a\$/  namespace: $1/" "$job" >"$work/rayjob-$1.yaml"
  "$binary" check --policy "$work/policy.yaml" -n "$1" --server "$APISERVER_URL" \
    --token-file "$work/serve.token" --ca "$APISERVER_CA" "$work/rayjob-$1.yaml" >"$work/check.out" 2>&1 || rc=$?
  echo "$rc"
}
[[ $(check_rc team-q) == 0 ]] || fail "check with the cluster's quota 1000: $(cat "$work/check.out")"
quota team-q compute 1m
[[ $(check_rc team-q) == 1 ]] || fail "check with the cluster's quota 1m: $(cat "$work/check.out")"
grep -qF 'ResourceQuota "team-q/compute"' "$work/check.out" || fail "check does not name the ResourceQuota: $(cat "$work/check.out")"
[[ $(check_rc no-such-namespace) == 1 ]] || fail "check in a namespace without quota: $(cat "$work/check.out")"
"$binary" check --policy "$work/policy.yaml" -n team-q "$work/rayjob-team-q.yaml" >/dev/null 2>&1 && rc=0 || rc=$?
((rc == 1)) || fail "check without a cluster (no entry, unknownNamespace deny) exited $rc, want 1"
quota team-q compute 1000
echo "[live-quota] check -n team-q with the cluster: 0 at requests.cpu 1000, 1 at 1m naming the ResourceQuota"

say "the kube-apiserver stopped for 30 s"
mapfile -d '' apiserver_argv <"/proc/$APISERVER_PID/cmdline"
stop_pid "$APISERVER_PID" 20
for t in 5 10 15 20 25 30; do
  sleep 5
  [[ $(client verdict team-q) == allowed ]] || fail "at ${t} s without the apiserver the verdict changed"
  [[ $(ready) == 200 ]] || fail "at ${t} s without the apiserver /readyz is $(ready)"
  printf '[live-quota] %2d s down: allowed from the cache, /readyz 200, staleness %s s\n' "$t" \
    "$(metric rayjob_guard_cluster_quota_staleness_seconds)"
done
stale=$(metric rayjob_guard_cluster_quota_staleness_seconds)
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 25 else 1)' "$stale" ||
  fail "staleness is $stale s after 30 s without the apiserver"

say "meanwhile etcd writes and compacts past serve's resourceVersion: the restarted apiserver answers 410"
etcd=http://127.0.0.1:$ETCD_PORT
for i in 1 2 3; do
  rev=$(curl -s --max-time 5 -X POST "$etcd/v3/kv/put" \
    -d "{\"key\":\"$(printf 'rjg-e2e-%s' "$i" | base64)\",\"value\":\"eA==\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])')
done
curl -s --max-time 10 -X POST "$etcd/v3/kv/compaction" -d "{\"revision\":\"$rev\",\"physical\":true}" >/dev/null
echo "[live-quota] etcd compacted at revision $rev"
"${apiserver_argv[@]}" >>"$cluster/logs/kube-apiserver.log" 2>&1 &
echo $! >"$cluster/apiserver.pid"
APISERVER_PID=$!
wait_for 60 "the kube-apiserver back (its /readyz)" k get --raw /readyz
wait_for 30 "staleness back to 0 after the restart" staleness_0
grep -q 'watch expired' "$work/serve.log" || fail "serve's watch did not get 410 Gone"
lists=$(grep -c 'watch listed' "$work/serve.log")
((lists >= 2)) || fail "serve did not list again after 410 Gone ($lists lists)"
echo "[live-quota] 410 Gone, then a relist ($lists lists in all); staleness 0 again"
quota team-q compute 1m
follow team-q denied "after the restart, lowered again"
quota team-q compute 1000
follow team-q allowed "and raised"

say "Kueue: its CRDs installed while serve runs, then a LocalQueue's ClusterQueue followed"
# The Kueue RayJob of the corpus (LocalQueue user-queue; footprint requests.cpu 5.5), in team-q,
# whose ResourceQuota (requests.cpu 1000) it fits.
cp "$repo/test/corpus/42-kueue-reaper-form.yaml" "$work/kueue-rayjob.yaml"
export RJG_JOB=$work/kueue-rayjob.yaml
[[ $(client verdict team-q) == allowed ]] || fail "the Kueue RayJob without Kueue: $(client verdict team-q)"
grep -q 'resource not served, taken as empty.*clusterqueues' "$work/serve.log" ||
  fail "serve did not say that Kueue's clusterqueues are not served"
kueue_dir=$("$repo/test/peers/module-dir.sh" "sigs.k8s.io/kueue@$KUEUE_VERSION") ||
  fail "cannot download sigs.k8s.io/kueue@$KUEUE_VERSION"
k create -f "$kueue_dir/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml" \
  -f "$kueue_dir/config/components/crd/bases/kueue.x-k8s.io_localqueues.yaml" >/dev/null
k wait --for=condition=Established --timeout=60s crd/clusterqueues.kueue.x-k8s.io crd/localqueues.kueue.x-k8s.io >/dev/null
for what in localqueues clusterqueues; do
  for verb in get list watch; do
    [[ $(k auth can-i "$verb" "$what.kueue.x-k8s.io" --all-namespaces --as system:serviceaccount:rayjob-guard:rayjob-guard) == yes ]] ||
      fail "the webhook's ServiceAccount cannot $verb $what"
  done
  [[ $(k auth can-i create "$what.kueue.x-k8s.io" --all-namespaces --as system:serviceaccount:rayjob-guard:rayjob-guard 2>/dev/null || true) == no ]] ||
    fail "the webhook's ServiceAccount may create $what"
done
echo "[live-quota] Kueue $KUEUE_VERSION's ClusterQueue and LocalQueue CRDs installed; the ServiceAccount may get, list, watch them, not create"
# cluster_queue CPU [COHORT BORROWING_LIMIT]: create or replace ClusterQueue team
cluster_queue() {
  local cohort="" borrow=""
  [[ -n ${2:-} ]] && cohort="cohortName: $2"
  [[ -n ${3:-} ]] && borrow=", borrowingLimit: \"$3\""
  k apply -f - >/dev/null <<EOF
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team}
spec:
  $cohort
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "$1"$borrow}]}]
EOF
}
cluster_queue 1
k apply -f - >/dev/null <<EOF
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: team-q}
spec: {clusterQueue: team}
EOF
# serve looks again every 10 s for a collection it found not served.
follow team-q denied "Kueue installed, ClusterQueue team at cpu 1" 15
grep -qF 'ClusterQueue "team" of LocalQueue "team-q/user-queue" (nominal quota) of 1' "$work/verdict.txt" ||
  fail "the refusal does not name the ClusterQueue: $(cat "$work/verdict.txt")"
[[ $(check_rc team-q) == 1 ]] && grep -qF 'ClusterQueue "team"' "$work/check.out" ||
  fail "check given the cluster with ClusterQueue team at cpu 1: $(cat "$work/check.out")"
echo "[live-quota] check given the cluster: exit 1, naming the ClusterQueue"
cluster_queue 64
follow team-q allowed "ClusterQueue team raised to cpu 64"
cluster_queue 4 research 1
follow team-q denied "cpu 4 in cohort research, borrowing limit 1"
grep -qF '(nominal quota plus borrowing limit) of 5' "$work/verdict.txt" ||
  fail "the refusal does not count the borrowing limit: $(cat "$work/verdict.txt")"
cluster_queue 4 research 2
follow team-q allowed "borrowing limit 2"
cluster_queue 1
follow team-q denied "cpu 1 again"
k delete localqueue user-queue -n team-q >/dev/null
follow team-q allowed "the LocalQueue deleted (Kueue holds the RayJob until it exists)"
[[ $(check_rc team-q) == 0 ]] || fail "check without the LocalQueue: $(cat "$work/check.out")"
unset RJG_JOB

say "parity: the corpus under both identities, quota from the cluster"
n=$(client parity team-q "$repo"/test/corpus/*.yaml) || fail "parity"
echo "[live-quota] $n RayJobs, byte-identical answers for the notebook and the API identity"

say "scale: 2,000 namespaces with a ResourceQuota each"
rss_before=$(rss_kib "$main_pid")
python3 - "$work/many.json" <<'PY'
import json, sys
items = []
for i in range(2000):
    ns = f"tenant-{i:04d}"
    items.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    items.append({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "compute", "namespace": ns},
                  "spec": {"hard": {"requests.cpu": str(8 + i % 8), "requests.memory": f"{32 + i % 32}Gi",
                                    "limits.memory": "64Gi", "pods": "100", "count/rayjobs.ray.io": "10"}}})
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, open(sys.argv[1], "w"))
PY
t0=$(date +%s%N)
k create -f "$work/many.json" >/dev/null
echo "[live-quota] 2,000 Namespaces and ResourceQuotas created in $((($(date +%s%N) - t0) / 1000000)) ms"
t0=$(date +%s%N)
start_serve serve2
for ((i = 0; i < 1200; i++)); do
  [[ $(metric rayjob_guard_cluster_quota_synced 2>/dev/null) == 1 ]] && break
  sleep 0.025
done
[[ $(metric rayjob_guard_cluster_quota_synced) == 1 ]] || fail "a second serve did not sync 2,000 ResourceQuotas in 30 s"
sync_ms=$((($(date +%s%N) - t0) / 1000000))
rss_after=$(rss_kib "$SERVE_PID")
[[ $(client verdict tenant-1999) == allowed ]] || fail "tenant-1999: $(client verdict tenant-1999)"
printf '[live-quota] 2,001 ResourceQuotas: a new serve ready with them %d ms after its start; RSS %d KiB (the first serve, with 1: %d KiB)\n' \
  "$sync_ms" "$rss_after" "$rss_before"
stop_pid "$SERVE_PID" 20

passed=1
say "PASS"
