#!/usr/bin/env bash
# reaper-quota-test.sh: `rayjob-guard reap` brings a namespace's RayJob quota back to zero on a
# real kube-apiserver + kube-controller-manager (the pinned current version, test/e2e/cluster.sh),
# with no operator deletion policy and no manual deletion.
#
# usage: test/e2e/reaper-quota-test.sh [--binary PATH/rayjob-guard] [--keep]
#   --keep  leave the work directory (logs, kubeconfigs) in place on success too
# Exit 0 pass, 1 fail.
#
# Scenario (docs/reaper.md):
#   ResourceQuota count/rayjobs.ray.io=2, count/jobs.batch=2 in tenant-a.
#   1. Two compliant reaper-mode RayJobs (`rayjob-guard check` allows them), each owning a
#      submitter Job; a third RayJob is refused with "exceeded quota" (the trap).
#   2. Both marked finished through the status subresource: rj-1 SUCCEEDED/Complete,
#      rj-2 FAILED/Failed, endTime now.
#   3. `reap --once` (as the reaper's own ServiceAccount, with the ClusterRole from
#      manifests/reaper): before the success TTL nothing goes; --dry-run deletes nothing; after
#      it rj-1 goes and the garbage collector removes job-rj-1; rj-2 stays until its longer
#      failure TTL, then goes too.
#   4. status.used returns to 0 for both counts and a new RayJob is admitted; the reaper leaves
#      that running one alone.
# Quota usage is printed at each step. Everything started is stopped by PID (cluster.sh down),
# also on failure, when the reaper's and the controller-manager's log tails are printed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=test/e2e/e2e-lib.sh
. "$here/e2e-lib.sh"
e2e_setup reaper-e2e 2,24 "$@"

# Success TTL 6 s, failure TTL 15 s: long enough that a busy 2-core machine still runs the first
# pass before the success TTL, short enough for a quick test. The policy's bounds admit them.
readonly TTL_SUCCESS=6 TTL_FAILURE=15
reap_log=$work/reap.log
reaper_pid=""

e2e_on_exit() {
  [[ -z $reaper_pid ]] || stop_pid "$reaper_pid"
}
e2e_on_failure() {
  echo "----- reaper log (tail) -----" >&2
  tail -n 40 "$reap_log" >&2 2>/dev/null || true
  echo "----- kube-controller-manager log (tail) -----" >&2
  tail -n 40 "$cluster/logs/kube-controller-manager.log" >&2 2>/dev/null || true
  echo "----- kube-apiserver log (tail) -----" >&2
  tail -n 15 "$cluster/logs/kube-apiserver.log" >&2 2>/dev/null || true
}

say "cluster: etcd + kube-apiserver + kube-controller-manager (resourcequota, garbagecollector)"
"$here/cluster.sh" up "$cluster" --controller-manager
# shellcheck source=/dev/null
. "$cluster/env"
k() { "$KUBECTL" --kubeconfig "$cluster/admin.kubeconfig" "$@"; }

usage() {
  local used
  used=$(k get resourcequota rayjob-quota -n tenant-a -o jsonpath='{.status.used}')
  printf '[reaper-e2e] quota used (%s): %s\n' "$1" "$used"
}
# used_is RAYJOBS JOBS: the quota's status.used right now.
used_is() {
  [[ $(k get resourcequota rayjob-quota -n tenant-a -o jsonpath='{.status.used.count/rayjobs\.ray\.io} {.status.used.count/jobs\.batch}') == "$1 $2" ]]
}
# sleep_until EPOCH: sleeps until that second (returns at once when it has passed).
sleep_until() {
  local left=$(($1 - $(date -u +%s)))
  if ((left > 0)); then sleep "$left"; fi
}
exists() { k get "$1" "$2" -n tenant-a >/dev/null 2>&1; }
gone() { ! exists "$1" "$2"; }

say "the reaper's identity: manifests/reaper rendered offline (ServiceAccount, ClusterRole, binding, CronJob)"
k create namespace rayjob-guard >/dev/null
# Applied as shipped, except that the CronJob is suspended: this test runs the reaper itself, and
# the controller-manager's cronjob controller would otherwise start reaper Jobs on its schedule.
"$KUBECTL" kustomize "$repo/manifests/reaper" | python3 -c '
import sys, yaml
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
kinds = sorted(d["kind"] for d in docs)
assert kinds == ["ClusterRole", "ClusterRoleBinding", "CronJob", "ServiceAccount"], kinds
for d in docs:
    if d["kind"] == "CronJob":
        d["spec"]["suspend"] = True
yaml.safe_dump_all(docs, sys.stdout)' >"$work/reaper-rbac.yaml"
k apply -f "$work/reaper-rbac.yaml"
e2e_sa_kubeconfig rayjob-guard-reaper reaper
r() { "$KUBECTL" --kubeconfig "$work/reaper.kubeconfig" "$@"; }
[[ $(r auth can-i delete rayjobs.ray.io -n tenant-a) == yes ]] || fail "reaper cannot delete rayjobs"
[[ $(r auth can-i list rayjobs.ray.io --all-namespaces) == yes ]] || fail "reaper cannot list rayjobs"
[[ $(r auth can-i create rayjobs.ray.io -n tenant-a 2>/dev/null || true) == no ]] || fail "reaper may create rayjobs"
[[ $(r auth can-i delete jobs.batch -n tenant-a 2>/dev/null || true) == no ]] || fail "reaper may delete jobs"
echo "[reaper-e2e] reaper SA: list/get/delete rayjobs only"

cat >"$work/policy.yaml" <<EOF
apiVersion: rayjob-guard.io/v1
kind: Policy
kuberay: {version: "1.1"}
lifecycle: {mode: reaper, maxSucceededTTLSeconds: 10, minFailedTTLSeconds: 15, maxFailedTTLSeconds: 60, maxActiveDeadlineSeconds: 3600, maxBackoffLimit: 2}
images:
  stock: {patterns: ["rayproject/ray:*"], botocoreMin: "1.34.41", boto3Min: "1.35.0"}
quota:
  unknownNamespace: deny
  namespaces:
    tenant-a: {requests.cpu: "8", requests.memory: 16Gi, limits.cpu: "8", limits.memory: 16Gi, pods: "10"}
EOF

rayjob() {
  cat <<EOF
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: $1
  namespace: tenant-a
  annotations:
    rayjob-guard.io/ttl-after-success: "$TTL_SUCCESS"
    rayjob-guard.io/ttl-after-failure: "$TTL_FAILURE"
spec:
  entrypoint: python -c "print(1)"
  shutdownAfterJobFinishes: true
  activeDeadlineSeconds: 600
  backoffLimit: 0
  runtimeEnvYAML: |
    pip: ["boto3==1.35.0", "botocore==1.35.0"]
  submitterPodTemplate:
    spec:
      restartPolicy: Never
      containers:
      - name: submitter
        image: rayproject/ray:2.9.0
        resources:
          requests: {cpu: 200m, memory: 256Mi}
          limits: {cpu: 200m, memory: 256Mi}
  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.9.0
            resources:
              requests: {cpu: "1", memory: 2Gi}
              limits: {cpu: "1", memory: 2Gi}
EOF
}
# submitter_job NAME: the batch/v1 Job KubeRay's K8sJobMode would create, controller-owned by NAME.
submitter_job() {
  local uid
  uid=$(k get rayjob "$1" -n tenant-a -o jsonpath='{.metadata.uid}')
  cat <<EOF
apiVersion: batch/v1
kind: Job
metadata:
  name: job-$1
  namespace: tenant-a
  ownerReferences:
  - {apiVersion: ray.io/v1, kind: RayJob, name: $1, uid: "$uid", controller: true, blockOwnerDeletion: true}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: submitter, image: "rayproject/ray:2.9.0"}]
EOF
}
reap() {
  printf '# %s reap %s\n' "$(date -u +%H:%M:%S)" "$*" >>"$reap_log"
  "$binary" reap --policy "$work/policy.yaml" --all-namespaces --kubeconfig "$work/reaper.kubeconfig" \
    --log-level debug "$@" >>"$reap_log" 2>&1
}
# The log lines of the last `reap` run.
last_pass() { awk '/^# [0-9:]+ reap /{buf=""} {buf=buf $0 "\n"} END{printf "%s", buf}' "$reap_log"; }

say "step 0: ResourceQuota count/rayjobs.ray.io=2 count/jobs.batch=2"
k apply -f - <<'EOF'
apiVersion: v1
kind: ResourceQuota
metadata: {name: rayjob-quota, namespace: tenant-a}
spec:
  hard:
    count/rayjobs.ray.io: "2"
    count/jobs.batch: "2"
EOF
hard_filled() {
  [[ -n $(k get resourcequota rayjob-quota -n tenant-a -o jsonpath='{.status.hard.count/rayjobs\.ray\.io}') ]]
}
wait_for 30 "quota status.hard filled by the controller-manager" hard_filled
usage "quota synced"

say "step 1: two compliant reaper-mode RayJobs, each owning its submitter Job"
for n in rj-1 rj-2; do
  rayjob "$n" >"$work/$n.yaml"
  "$binary" check --policy "$work/policy.yaml" "$work/$n.yaml" || fail "rayjob-guard check refused $n"
  k create -f "$work/$n.yaml"
  submitter_job "$n" | k create -f -
done
usage "2 RayJobs + 2 Jobs"
used_is 2 2 || fail "expected used 2/2"
rayjob rj-3 >"$work/rj-3.yaml"
if k create -f "$work/rj-3.yaml" 2>"$work/rj-3.err"; then
  fail "a third RayJob was admitted over the quota"
fi
cat "$work/rj-3.err"
grep -q 'exceeded quota: rayjob-quota' "$work/rj-3.err" || fail "the refusal does not say 'exceeded quota'"
echo "[reaper-e2e] the trap reproduced: a tenant at 2 RayJobs cannot submit a third"

say "step 2: rj-1 SUCCEEDED/Complete, rj-2 FAILED/Failed, endTime now (status subresource)"
end_epoch=$(date -u +%s)
end_time=$(date -u -d "@$end_epoch" +%Y-%m-%dT%H:%M:%SZ)
k patch rayjob rj-1 -n tenant-a --subresource=status --type=merge \
  -p "{\"status\":{\"jobStatus\":\"SUCCEEDED\",\"jobDeploymentStatus\":\"Complete\",\"endTime\":\"$end_time\"}}"
k patch rayjob rj-2 -n tenant-a --subresource=status --type=merge \
  -p "{\"status\":{\"jobStatus\":\"FAILED\",\"jobDeploymentStatus\":\"Failed\",\"endTime\":\"$end_time\",\"message\":\"Job entrypoint command failed with exit code 1\"}}"
k get rayjobs -n tenant-a
usage "finished, nothing deleted"

say "step 3a: reap before the success TTL (${TTL_SUCCESS} s): nothing is deleted"
reap --once || fail "reap --once failed"
started=$(($(date -u +%s) - end_epoch))
last_pass
((started < TTL_SUCCESS)) ||
  fail "the first pass ended ${started} s after endTime, not before the ${TTL_SUCCESS} s TTL (machine too slow)"
{ exists rayjob rj-1 && exists rayjob rj-2; } || fail "a RayJob was deleted before its TTL"
grep -q 'action=keep namespace=tenant-a name=rj-1 ' <<<"$(last_pass)" || fail "no keep line for rj-1"
usage "after the early pass"
used_is 2 2 || fail "expected used 2/2 after the early pass"

sleep_until $((end_epoch + TTL_SUCCESS + 1))
say "step 3b: --dry-run after the success TTL: says would-delete, deletes nothing"
reap --once --dry-run || fail "reap --once --dry-run failed"
last_pass
grep -q 'action=would-delete namespace=tenant-a name=rj-1 ' <<<"$(last_pass)" || fail "dry-run did not report rj-1"
exists rayjob rj-1 || fail "--dry-run deleted rj-1"

say "step 3c: reap after the success TTL: rj-1 goes, the garbage collector takes job-rj-1"
reap --once || fail "reap --once failed"
last_pass
grep -q 'action=deleted namespace=tenant-a name=rj-1 .*jobStatus=SUCCEEDED deploymentStatus=Complete' <<<"$(last_pass)" ||
  fail "no deletion line for rj-1"
gone rayjob rj-1 || fail "rj-1 still exists"
exists rayjob rj-2 || fail "rj-2 was deleted before its ${TTL_FAILURE} s failure TTL"
wait_for 60 "job-rj-1 collected by the garbage collector" gone job job-rj-1
grep 'Deleting object' "$cluster/logs/kube-controller-manager.log" | grep 'job-rj-1' | tail -n1 || true
exists job job-rj-2 || fail "job-rj-2 vanished with rj-2 still there"
wait_for 30 "quota used 1/1" used_is 1 1
usage "rj-1 and job-rj-1 gone"

sleep_until $((end_epoch + TTL_FAILURE + 1))
say "step 3d: reap after the failure TTL (${TTL_FAILURE} s): rj-2 goes, with its status.message logged"
reap --once || fail "reap --once failed"
last_pass
grep -q 'action=deleted namespace=tenant-a name=rj-2 .*jobStatus=FAILED deploymentStatus=Failed.*message="Job entrypoint command failed with exit code 1"' <<<"$(last_pass)" ||
  fail "no deletion line with the failure message for rj-2"
gone rayjob rj-2 || fail "rj-2 still exists"
wait_for 60 "job-rj-2 collected by the garbage collector" gone job job-rj-2
grep 'Deleting object' "$cluster/logs/kube-controller-manager.log" | grep 'job-rj-2' | tail -n1 || true

say "step 4: the quota returns to zero without any manual deletion; a new RayJob is admitted"
wait_for 30 "quota used 0/0" used_is 0 0
usage "all reaped"
rayjob rj-4 >"$work/rj-4.yaml"
k create -f "$work/rj-4.yaml" || fail "a new RayJob was refused after reaping"
usage "rj-4 admitted"
reap --once || fail "reap --once failed"
last_pass
exists rayjob rj-4 || fail "the reaper deleted a RayJob that has not finished"
grep -q 'action=keep namespace=tenant-a name=rj-4 reason="not finished' <<<"$(last_pass)" || fail "no keep line for rj-4"
echo "[reaper-e2e] rj-4 (not finished) left alone"

say "step 5: reap --interval 1 keeps reaping until SIGTERM, then exits 0"
printf '# %s reap --interval 1\n' "$(date -u +%H:%M:%S)" >>"$reap_log"
"$binary" reap --policy "$work/policy.yaml" --all-namespaces --kubeconfig "$work/reaper.kubeconfig" \
  --interval 1 >>"$reap_log" 2>&1 &
reaper_pid=$!
two_passes() { (($(last_pass | grep -c 'reap pass listed=' || true) >= 2)); }
wait_for 20 "two passes of reap --interval 1" two_passes
kill -TERM "$reaper_pid"
rc=0
wait "$reaper_pid" || rc=$?
reaper_pid=""
last_pass | tail -n 3
((rc == 0)) || fail "reap --interval exited $rc after SIGTERM"
grep -q 'reap stopping signal=SIGTERM' <<<"$(last_pass)" || fail "no stopping line after SIGTERM"
exists rayjob rj-4 || fail "the interval reaper deleted a RayJob that has not finished"

passed=1
say "PASS"
