#!/usr/bin/env bash
# install_test.sh: the chart against a real kube-apiserver (test/e2e/cluster.sh). A `rayjob-guard
# serve` on loopback (test/e2e/webhook.sh, not registered by it) answers; the chart's
# ValidatingWebhookConfiguration points at it (webhook.url, this test only) and the policy serve
# loads is the chart's ConfigMap, copied out of the apiserver into the file serve watches (the
# kubelet's job in a cluster). Then:
#   helm install   -> into a namespace made before: the RayJob
#                     manifests/tenant/rayjobs/warn-latest-tag.yaml is admitted with an image-pinned
#                     warning (server-side dry run: reviewed, nothing stored); `helm test` creates
#                     its RayJob through the webhook (serve counts the review), and fails while
#                     serve is down
#   helm upgrade   -> ruleActions.image-pinned=enforce: serve reloads the new ConfigMap and the
#                     same RayJob is denied; an upgrade the schema refuses changes nothing; an
#                     upgrade changing every value that used to fail (priorityClass.value,
#                     replicas 1, pod labels) succeeds
#   a second release in a second namespace made by --create-namespace installs next to the first
#                     and its uninstall leaves that namespace alone; namespace.create (the old
#                     value that failed every install) is refused by the schema
#   webhook down   -> the apiserver's apiserver_admission_webhook_rejection_count{error_type=
#                     "calling_webhook_error"} and _request_total for vrayjob.rayjob-guard.io move
#                     (what the chart's apiserver alerts read), and every apiserver metric the
#                     chart's PrometheusRule names is on this apiserver's /metrics
#   helm uninstall -> the webhook registration is deleted before the Deployment (the pre-delete
#                     hook; etcd revisions of the two DELETED watch events); every object the
#                     release made (helm get manifest, and a sweep of every listable resource by
#                     the release's labels), namespaced and cluster-scoped, is listed before and
#                     gone after.
# Every process is stopped by PID on exit (trap), also on failure.
#
# usage: install_test.sh REPO HELM RAYJOB_GUARD WORK_DIR
set -euo pipefail
[[ $# -eq 4 ]] || { sed -n '2,17p' "$0" >&2; exit 2; }
repo=$(cd "$1" && pwd) helm=$2 binary=$3 work=$4
# shellcheck source=test/harness/harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/../harness/harness.sh"
harness_init chart-install
chart=$repo/charts/rayjob-guard
release=rayjob-guard ns=rayjob-guard
rayjob=$repo/manifests/tenant/rayjobs/warn-latest-tag.yaml

mkdir -p "$work"
dir=$work/cluster
"$repo/test/e2e/cluster.sh" down "$dir" >/dev/null 2>&1 || true   # a previous run's leftovers
rm -rf "$dir" "$work/policy"
cleanup() {
  local rc=$?
  "$repo/test/e2e/webhook.sh" down "$dir" >/dev/null 2>&1 || true
  "$repo/test/e2e/cluster.sh" down "$dir" >/dev/null 2>&1 || true
  ((rc == 0)) || log "failed (exit $rc); logs in $dir/logs and $dir/webhook/serve.log"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
watchers=()
stop_watchers() {
  local p
  for p in "${watchers[@]}"; do stop_pid "$p" 5; done
  watchers=()
}
trap 'stop_watchers; cleanup' EXIT

# Helm's own directories and its Kubernetes discovery cache in the work directory, not in $HOME.
export HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config HELM_DATA_HOME=$work/helm/data \
  KUBECACHEDIR=$work/kube-cache
"$repo/test/e2e/cluster.sh" up "$dir" >/dev/null
# shellcheck source=/dev/null
. "$dir/env"
export KUBECONFIG=$dir/admin.kubeconfig
kc() { "$KUBECTL" "$@"; }
h() { timeout 120 "$helm" "$@"; }

# The policy file serve watches: written the way the kubelet updates a ConfigMap volume (a new
# file renamed into place), from what the apiserver holds.
mkdir -p "$work/policy"
sync_policy() {
  kc -n "$ns" get configmap "$release-policy" -o jsonpath='{.data.policy\.yaml}' >"$work/policy/.new"
  [[ -s $work/policy/.new ]] || fail "ConfigMap $ns/$release-policy has no policy.yaml"
  mv "$work/policy/.new" "$work/policy/policy.yaml"
}
# Before the release exists serve needs a policy: the chart's, as `helm template` renders it.
h template "$release" "$chart" -n "$ns" --set webhook.caBundle=eA== --show-only templates/configmap-policy.yaml |
  python3 -c 'import sys,yaml; sys.stdout.write(yaml.safe_load(sys.stdin)["data"]["policy.yaml"])' >"$work/policy/policy.yaml"
RJG_BINARY=$binary RJG_POLICY=$work/policy/policy.yaml "$repo/test/e2e/webhook.sh" up "$dir" --no-register
# shellcheck source=/dev/null
. "$dir/webhook/env"
metric() {  # metric SERIES: its value in serve's /metrics (0 when absent)
  curl -sf --max-time 5 "http://127.0.0.1:$PROBE_PORT/metrics" | awk -v s="$1" '$1 == s {v = $2} END {print v + 0}'
}
# reloads_above N: whether serve has reloaded its policy more than N times.
reloads_above() { (($(metric 'rayjob_guard_policy_reloads_total{result="success"}') > $1)); }
# Copies the ConfigMap into the watched file and waits until serve has reloaded it (the file is
# always a new inode, so serve always reloads, even when the content is the same).
sync_and_wait() {
  local before
  before=$(metric 'rayjob_guard_policy_reloads_total{result="success"}')
  sync_policy
  wait_for 30 "serve reloading $work/policy/policy.yaml (rayjob_guard_policy_reloads_total{result=\"success\"} was $before)" \
    reloads_above "$before"
}
ca=$(base64 -w0 <"$dir/webhook/certs/ca.crt")
url=https://127.0.0.1:$WEBHOOK_PORT/validate
common=(--set "webhook.url=$url" --set "webhook.caBundle=$ca" --set reaper.enabled=true
  --set monitoring.prometheusRule.enabled=false)
reviews() {  # RayJob CREATE reviews serve answered, allowed or not
  curl -sf --max-time 5 "http://127.0.0.1:$PROBE_PORT/metrics" |
    awk 'index($0, "rayjob_guard_admission_requests_total{") == 1 && /operation="CREATE"/ {s += $NF} END {print s + 0}'
}
apiserver_metric() {  # apiserver_metric NAME LABEL-REGEX: the sum of NAME's series whose labels match
  kc get --raw /metrics | awk -v n="$1" -v re="$2" 'index($0, n "{") == 1 && $0 ~ re {s += $NF} END {print s + 0}'
}

# A RayJob write reviewed by the webhook; prints "allowed: WARNINGS" or "denied: MESSAGE".
verdict() {
  local out
  if out=$(kc create --dry-run=server -f "$rayjob" 2>&1); then
    echo "allowed: $(grep -i '^warning' <<<"$out" | tr '\n' ' ')"
  else
    echo "denied: $out"
  fi
}

# Every object carrying the release's instance label, in every listable resource, plus Helm's
# own release records (Secrets labelled owner=helm,name=RELEASE).
sweep() {
  local resources
  resources=$(kc api-resources --verbs=list -o name | grep -vE '^(events|events\.events\.k8s\.io|componentstatuses)$' | paste -sd, -)
  { kc get "$resources" -A -l "app.kubernetes.io/instance=$release" -o custom-columns='K:.kind,NS:.metadata.namespace,N:.metadata.name' --no-headers 2>/dev/null
    kc get secrets -A -l "owner=helm,name=$release" -o custom-columns='K:.kind,NS:.metadata.namespace,N:.metadata.name' --no-headers
  } | sort -u
}

# ---- install
kc create namespace "$ns" >/dev/null
start=$SECONDS
h install "$release" "$chart" -n "$ns" "${common[@]}" >/dev/null || fail "helm install failed"
log "helm install: $((SECONDS - start)) s"
vwc=$(kc get validatingwebhookconfiguration "$release" -o json)
jq -e --arg url "$url" '.webhooks[0].clientConfig.url == $url and .metadata.labels["app.kubernetes.io/managed-by"] == "Helm"
  and .webhooks[0].failurePolicy == "Fail" and (.webhooks[0].matchConditions | length) >= 1' <<<"$vwc" >/dev/null ||
  fail "the installed ValidatingWebhookConfiguration is not the chart's pointing at $url: $vwc"
echo "ok: helm install: ValidatingWebhookConfiguration $release (Helm's) calls $url"
before_sync=$(sha256sum <"$work/policy/policy.yaml")
sync_and_wait
[[ $(sha256sum <"$work/policy/policy.yaml") == "$before_sync" ]] ||
  fail "the installed ConfigMap's policy differs from the chart's rendering serve started with"
echo "ok: serve runs the policy of ConfigMap $ns/$release-policy"
v=$(verdict)
[[ $v == allowed:* && $v == *image-pinned* ]] || fail "after install, $rayjob should be admitted with an image-pinned warning; got: $v"
echo "ok: after install: ${v:0:160}"

# ---- helm test: its RayJob is created through the webhook, which reviews it
before=$(reviews)
h test "$release" -n "$ns" >"$work/helm-test.log" 2>&1 || fail "helm test failed: $(cat "$work/helm-test.log")"
(($(reviews) > before)) || fail "helm test passed but serve reviewed no RayJob CREATE (rayjob_guard_admission_requests_total stayed $before)"
[[ -z $(kc -n tenant-a get rayjobs -l app.kubernetes.io/component=test -o name) ]] || fail "helm test left its RayJob behind"
echo "ok: helm test: $(grep -m1 -E 'TEST SUITE|Phase' "$work/helm-test.log" | tr -s ' ') ... passed; serve reviewed its RayJob; nothing left"

# ---- upgrade with a changed policy
start=$SECONDS
h upgrade "$release" "$chart" -n "$ns" "${common[@]}" --set ruleActions.image-pinned=enforce >/dev/null || fail "helm upgrade failed"
log "helm upgrade: $((SECONDS - start)) s"
[[ $(kc -n "$ns" get configmap "$release-policy" -o jsonpath='{.data.policy\.yaml}') == *"image-pinned: enforce"* ]] ||
  fail "the upgraded ConfigMap does not carry image-pinned: enforce"
sync_and_wait
v=$(verdict)
[[ $v == denied:* && $v == *image-pinned* ]] || fail "after the upgrade, $rayjob should be denied by image-pinned; got: $v"
echo "ok: helm upgrade (image-pinned: enforce): serve reloaded the ConfigMap; ${v:0:200}"
if out=$(h upgrade "$release" "$chart" -n "$ns" "${common[@]}" --set ruleActions.image-pinned=deny 2>&1); then
  fail "helm upgrade with ruleActions.image-pinned=deny should be refused by values.schema.json"
fi
rev=$(h history "$release" -n "$ns" -o json | jq -r 'map(select(.status == "deployed")) | .[0].revision')
[[ $rev == 2 ]] || fail "after the refused upgrade the deployed revision should stay 2, is $rev"
echo "ok: an upgrade values.schema.json refuses changes nothing (deployed revision 2): $(grep -m1 -o 'ruleActions.*' <<<"$out")"

# ---- an upgrade changing every value that used to fail: the PriorityClass's (immutable) value,
# one replica (the PDB would block drains), pod labels (a duplicate key before)
pc_before=$(kc -n "$ns" get deploy "$release" -o jsonpath='{.spec.template.spec.priorityClassName}')
h upgrade "$release" "$chart" -n "$ns" "${common[@]}" --set ruleActions.image-pinned=enforce \
  --set priorityClass.value=200000000 --set replicas=1 --set podLabels.team=ml \
  --set-string podAnnotations.owner=platform >"$work/upgrade-values.log" 2>&1 ||
  fail "helm upgrade changing priorityClass.value, replicas and pod labels failed: $(cat "$work/upgrade-values.log")"
pc_after=$(kc -n "$ns" get deploy "$release" -o jsonpath='{.spec.template.spec.priorityClassName}')
[[ $pc_after != "$pc_before" && $(kc get priorityclass "$pc_after" -o jsonpath='{.value}') == 200000000 ]] ||
  fail "after the upgrade the pods should use a new PriorityClass of value 200000000; before $pc_before, after $pc_after"
[[ -z $(kc get priorityclass "$pc_before" --ignore-not-found -o name) ]] || fail "the old PriorityClass $pc_before is left behind"
[[ -z $(kc -n "$ns" get pdb --ignore-not-found -o name) ]] || fail "replicas=1 still has a PodDisruptionBudget (it would block every drain)"
[[ $(kc -n "$ns" get deploy "$release" -o jsonpath='{.spec.template.metadata.labels.team}') == ml ]] || fail "podLabels did not reach the pod template"
echo "ok: helm upgrade priorityClass.value=200000000 replicas=1 podLabels.team=ml: PriorityClass $pc_before -> $pc_after (old one gone), no PDB with one replica"

# ---- a second release, in a namespace Helm creates; the old namespace.create is refused
if out=$(h install rg-second "$chart" -n rg-second --create-namespace "${common[@]}" --set namespace.create=true 2>&1); then
  fail "namespace.create=true should be refused by values.schema.json"
fi
grep -q "namespace" <<<"$out" || fail "the refusal of namespace.create does not name it: $out"
h install rg-second "$chart" -n rg-second --create-namespace "${common[@]}" >"$work/second.log" 2>&1 ||
  fail "a second release in a second namespace (--create-namespace) failed next to the first: $(cat "$work/second.log")"
for kind in validatingwebhookconfiguration priorityclass clusterrole; do
  n=$(kc get "$kind" -l app.kubernetes.io/managed-by=Helm -o name | wc -l)
  ((n >= 2)) || fail "two releases should have a $kind each, found $n"
done
h uninstall rg-second -n rg-second --wait --timeout 60s >/dev/null || fail "helm uninstall rg-second failed"
[[ $(kc get namespace rg-second -o jsonpath='{.status.phase}{.metadata.deletionTimestamp}') == Active ]] ||
  fail "uninstalling the release deleted (or is deleting) the namespace --create-namespace made"
echo "ok: release rg-second installs in namespace rg-second (--create-namespace) next to $release; its uninstall leaves the namespace Active; namespace.create=true refused: $(grep -m1 -o "additional.*namespace.*" <<<"$out" | head -c 120)"

# ---- the control plane cannot reach the webhook: the apiserver's own webhook metrics move
hook_re='name="vrayjob.rayjob-guard.io"'
rej0=$(apiserver_metric apiserver_admission_webhook_rejection_count "$hook_re.*error_type=\"calling_webhook_error\"|error_type=\"calling_webhook_error\".*$hook_re")
req0=$(apiserver_metric apiserver_admission_webhook_request_total "$hook_re")
"$repo/test/e2e/webhook.sh" stop "$dir" >/dev/null 2>&1
for i in 1 2 3; do
  v=$(verdict)
  [[ $v == denied:*"failed calling webhook"* ]] || fail "with serve stopped a RayJob write should fail calling the webhook; got: $v"
done
if h test "$release" -n "$ns" >"$work/helm-test-down.log" 2>&1; then fail "helm test passed while the webhook was down"; fi
# failurePolicy Ignore (the runbook's bypass): the write is admitted and counted as failing open.
fo0=$(apiserver_metric apiserver_admission_webhook_fail_open_count "$hook_re")
kc patch validatingwebhookconfiguration "$release" --type=json -p '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]' >/dev/null
v=$(verdict)
[[ $v == allowed:* ]] || fail "with failurePolicy Ignore and serve stopped the RayJob should be admitted unreviewed; got: $v"
kc patch validatingwebhookconfiguration "$release" --type=json -p '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Fail"}]' >/dev/null
fo1=$(apiserver_metric apiserver_admission_webhook_fail_open_count "$hook_re")
((fo1 >= fo0 + 1)) || fail "apiserver_admission_webhook_fail_open_count did not move with failurePolicy Ignore: $fo0 -> $fo1"
echo "ok: failurePolicy Ignore, webhook down: admitted unreviewed; apiserver_admission_webhook_fail_open_count $fo0 -> $fo1"
rej1=$(apiserver_metric apiserver_admission_webhook_rejection_count "$hook_re.*error_type=\"calling_webhook_error\"|error_type=\"calling_webhook_error\".*$hook_re")
req1=$(apiserver_metric apiserver_admission_webhook_request_total "$hook_re")
((rej1 >= rej0 + 3 && req1 >= req0 + 3)) ||
  fail "apiserver metrics did not move with the webhook down: rejection_count{calling_webhook_error} $rej0 -> $rej1, request_total $req0 -> $req1"
echo "ok: webhook down: 3 RayJob writes refused ('failed calling webhook'); apiserver_admission_webhook_rejection_count{error_type=\"calling_webhook_error\"} $rej0 -> $rej1, apiserver_admission_webhook_request_total $req0 -> $req1; helm test fails"
kc get --raw /metrics | grep -E '^apiserver_admission_webhook_(rejection_count|request_total|fail_open_count)\{' | grep "$hook_re" | sed 's/^/  /'
scraped=$(kc get --raw /metrics)
for name in $(h template "$release" "$chart" -n "$ns" "${common[@]}" --set monitoring.prometheusRule.enabled=true \
    --show-only templates/prometheusrule.yaml | grep -oE 'apiserver_[a-z_]+' | sort -u); do
  base=${name%_bucket}
  grep -qE "^# TYPE $base " <<<"$scraped" || fail "the PrometheusRule names $name, which this kube-apiserver ($KUBE_VERSION) does not serve"
  echo "ok: $name (named by the PrometheusRule) is served by kube-apiserver $KUBE_VERSION"
done
RJG_BINARY=$binary RJG_POLICY=$work/policy/policy.yaml "$repo/test/e2e/webhook.sh" start "$dir" >/dev/null 2>&1

# ---- uninstall leaves nothing behind
manifest=$(h get manifest "$release" -n "$ns" | /usr/bin/python3 -c '
import sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d: print(d["kind"], d["metadata"].get("namespace", "-"), d["metadata"]["name"])')
count=$(wc -l <<<"$manifest")
before=$(sweep)
echo "release objects before uninstall ($count in the manifest; the sweep by label):"
sed 's/^/  /' <<<"$before"
while read -r kind obj_ns name; do
  pat=$obj_ns; [[ $pat == - ]] && pat='<none>'
  grep -qE "^$kind +$pat +$name\$" <<<"$before" || fail "$kind $obj_ns/$name from the manifest is not found by the sweep"
done <<<"$manifest"
for kind in ValidatingWebhookConfiguration PriorityClass ClusterRole ClusterRoleBinding Deployment Service ConfigMap ServiceAccount CronJob Secret; do
  grep -q "^$kind " <<<"$before" || fail "expected a $kind among the release's objects"
done
# The order of deletion, from the etcd revision (resourceVersion) of each DELETED watch event:
# the webhook registration must go before the Deployment.
kc get validatingwebhookconfiguration --watch-only --output-watch-events -o json >"$work/watch-vwc.json" 2>/dev/null &
watchers+=($!)
kc -n "$ns" get deployment --watch-only --output-watch-events -o json >"$work/watch-deploy.json" 2>/dev/null &
watchers+=($!)
sleep 2
start=$SECONDS
h uninstall "$release" -n "$ns" --wait --timeout 60s >/dev/null || fail "helm uninstall failed"
log "helm uninstall: $((SECONDS - start)) s"
sleep 2
stop_watchers
deleted_rv() {  # deleted_rv FILE NAME: the resourceVersion of NAME's first DELETED event
  jq -rs --arg n "$2" '[.[] | select(.type == "DELETED" and .object.metadata.name == $n)][0].object.metadata.resourceVersion // empty' "$1"
}
vwc_rv=$(deleted_rv "$work/watch-vwc.json" "$release") deploy_rv=$(deleted_rv "$work/watch-deploy.json" "$release")
[[ -n $vwc_rv && -n $deploy_rv ]] || fail "no DELETED watch events for the registration ($vwc_rv) or the Deployment ($deploy_rv)"
((vwc_rv < deploy_rv)) || fail "helm uninstall deleted the Deployment (revision $deploy_rv) before the webhook registration (revision $vwc_rv): RayJob writes fail in between"
echo "ok: helm uninstall deletes the webhook registration (etcd revision $vwc_rv) before the Deployment ($deploy_rv)"
after=$(sweep)
[[ -z $after ]] || fail "objects left after helm uninstall:
$after"
while read -r kind obj_ns name; do
  args=(get "$kind" "$name" --ignore-not-found -o name)
  [[ $obj_ns == - ]] || args+=(-n "$obj_ns")
  [[ -z $(kc "${args[@]}") ]] || fail "$kind $obj_ns/$name still exists after uninstall"
done <<<"$manifest"
v=$(verdict)
[[ $v == allowed:* ]] || fail "with the release gone no webhook should review RayJobs; got: $v"
echo "ok: helm uninstall: all $count manifest objects and the release records gone (sweep empty); RayJobs no longer reviewed"
echo "PASS"
