#!/usr/bin/env bash
# install_test.sh: the chart against a real kube-apiserver (test/e2e/cluster.sh). A `rayjob-guard
# serve` on loopback (test/e2e/webhook.sh, not registered by it) answers; the chart's
# ValidatingWebhookConfiguration points at it (webhook.url, this test only) and the policy serve
# loads is the chart's ConfigMap, copied out of the apiserver into the file serve watches (the
# kubelet's job in a cluster). Then:
#   helm install   -> the RayJob manifests/tenant/rayjobs/warn-latest-tag.yaml is admitted with
#                     an image-pinned warning (server-side dry run: reviewed, nothing stored)
#   helm upgrade   -> ruleActions.image-pinned=enforce: serve reloads the new ConfigMap and the
#                     same RayJob is denied; an upgrade the schema refuses changes nothing
#   helm uninstall -> every object the release made (helm get manifest, and a sweep of every
#                     listable resource by the release's labels), namespaced and cluster-scoped,
#                     is listed before and gone after.
# Every process is stopped by PID on exit (trap), also on failure.
#
# usage: install_test.sh REPO HELM RAYJOB_GUARD WORK_DIR
set -euo pipefail
[[ $# -eq 4 ]] || { sed -n '2,17p' "$0" >&2; exit 2; }
repo=$(cd "$1" && pwd) helm=$2 binary=$3 work=$4
log() { printf '[chart-install] %s\n' "$*" >&2; }
die() { printf '[chart-install] FAIL: %s\n' "$*" >&2; exit 1; }
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
  [[ -s $work/policy/.new ]] || die "ConfigMap $ns/$release-policy has no policy.yaml"
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
# Copies the ConfigMap into the watched file and waits until serve has reloaded it (the file is
# always a new inode, so serve always reloads, even when the content is the same).
sync_and_wait() {
  local before i
  before=$(metric 'rayjob_guard_policy_reloads_total{result="success"}')
  sync_policy
  for ((i = 0; i < 300; i++)); do
    (($(metric 'rayjob_guard_policy_reloads_total{result="success"}') > before)) && return 0
    sleep 0.1
  done
  die "serve did not reload $work/policy/policy.yaml within 30 s (rayjob_guard_policy_reloads_total{result=\"success\"} stayed $before)"
}
ca=$(base64 -w0 <"$dir/webhook/certs/ca.crt")
url=https://127.0.0.1:$WEBHOOK_PORT/validate
common=(--set "webhook.url=$url" --set "webhook.caBundle=$ca" --set reaper.enabled=true)

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
h install "$release" "$chart" -n "$ns" "${common[@]}" >/dev/null || die "helm install failed"
log "helm install: $((SECONDS - start)) s"
vwc=$(kc get validatingwebhookconfiguration "$release" -o json)
jq -e --arg url "$url" '.webhooks[0].clientConfig.url == $url and .metadata.labels["app.kubernetes.io/managed-by"] == "Helm"
  and .webhooks[0].failurePolicy == "Fail" and (.webhooks[0].matchConditions | length) >= 1' <<<"$vwc" >/dev/null ||
  die "the installed ValidatingWebhookConfiguration is not the chart's pointing at $url: $vwc"
echo "ok: helm install: ValidatingWebhookConfiguration $release (Helm's) calls $url"
before_sync=$(sha256sum <"$work/policy/policy.yaml")
sync_and_wait
[[ $(sha256sum <"$work/policy/policy.yaml") == "$before_sync" ]] ||
  die "the installed ConfigMap's policy differs from the chart's rendering serve started with"
echo "ok: serve runs the policy of ConfigMap $ns/$release-policy"
v=$(verdict)
[[ $v == allowed:* && $v == *image-pinned* ]] || die "after install, $rayjob should be admitted with an image-pinned warning; got: $v"
echo "ok: after install: ${v:0:160}"

# ---- upgrade with a changed policy
start=$SECONDS
h upgrade "$release" "$chart" -n "$ns" "${common[@]}" --set ruleActions.image-pinned=enforce >/dev/null || die "helm upgrade failed"
log "helm upgrade: $((SECONDS - start)) s"
[[ $(kc -n "$ns" get configmap "$release-policy" -o jsonpath='{.data.policy\.yaml}') == *"image-pinned: enforce"* ]] ||
  die "the upgraded ConfigMap does not carry image-pinned: enforce"
sync_and_wait
v=$(verdict)
[[ $v == denied:* && $v == *image-pinned* ]] || die "after the upgrade, $rayjob should be denied by image-pinned; got: $v"
echo "ok: helm upgrade (image-pinned: enforce): serve reloaded the ConfigMap; ${v:0:200}"
if out=$(h upgrade "$release" "$chart" -n "$ns" "${common[@]}" --set ruleActions.image-pinned=deny 2>&1); then
  die "helm upgrade with ruleActions.image-pinned=deny should be refused by values.schema.json"
fi
rev=$(h history "$release" -n "$ns" -o json | jq -r 'map(select(.status == "deployed")) | .[0].revision')
[[ $rev == 2 ]] || die "after the refused upgrade the deployed revision should stay 2, is $rev"
echo "ok: an upgrade values.schema.json refuses changes nothing (deployed revision 2): $(grep -m1 -o 'ruleActions.*' <<<"$out")"

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
  grep -qE "^$kind +$pat +$name\$" <<<"$before" || die "$kind $obj_ns/$name from the manifest is not found by the sweep"
done <<<"$manifest"
for kind in ValidatingWebhookConfiguration PriorityClass ClusterRole ClusterRoleBinding Deployment Service ConfigMap ServiceAccount CronJob PodDisruptionBudget Secret; do
  grep -q "^$kind " <<<"$before" || die "expected a $kind among the release's objects"
done
start=$SECONDS
h uninstall "$release" -n "$ns" --wait --timeout 60s >/dev/null || die "helm uninstall failed"
log "helm uninstall: $((SECONDS - start)) s"
after=$(sweep)
[[ -z $after ]] || die "objects left after helm uninstall:
$after"
while read -r kind obj_ns name; do
  args=(get "$kind" "$name" --ignore-not-found -o name)
  [[ $obj_ns == - ]] || args+=(-n "$obj_ns")
  [[ -z $(kc "${args[@]}") ]] || die "$kind $obj_ns/$name still exists after uninstall"
done <<<"$manifest"
v=$(verdict)
[[ $v == allowed:* ]] || die "with the release gone no webhook should review RayJobs; got: $v"
echo "ok: helm uninstall: all $count manifest objects and the release records gone (sweep empty); RayJobs no longer reviewed"
echo "PASS"
