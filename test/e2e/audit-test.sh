#!/usr/bin/env bash
# audit-test.sh: `rayjob-guard audit` reports, from a real kube-apiserver (the pinned current
# version, test/e2e/cluster.sh), what RayJobs stored before the webhook existed violate and what
# quota finished RayJobs hold for nothing.
#
# usage: test/e2e/audit-test.sh [--binary PATH/rayjob-guard] [--keep]
#   --keep  leave the work directory (logs, kubeconfigs, audit outputs) in place on success too
# Exit 0 pass, 1 fail.
#
# Scenario: no webhook is registered, so every object is stored as is (as if created before the
# webhook existed). The policy (lifecycle.mode deletionRules, KubeRay 1.6) is a temp file.
#   audit-a: rj-ok               compliant, no status                    -> no result
#            rj-violating        test/corpus/21 (no activeDeadlineSeconds) -> one fail per denial
#                                `rayjob-guard check --policy` gives for the same file
#            rj-validation-failed compliant, jobDeploymentStatus ValidationFailed -> validation-failed
#            rj-deploy-failed    deletionRules match jobStatus only; jobDeploymentStatus Failed, no
#                                jobStatus, endTime 1 min ago  -> check's fails + deployment-failed-unmatched
#   audit-b: rj-ok               compliant, no status                    -> no result
#            rj-past-ttl         compliant, Complete/SUCCEEDED, endTime 2 h ago, owning a batch/v1
#                                Job that owns a Pending Pod (500m, 1Gi) -> past-ttl, holding
#                                count/jobs.batch 1, pods 1, requests.cpu 500m, requests.memory 1Gi
#   audit-c: rj-ok               compliant, no status: `audit -n audit-c` exits 0
# The expected rule ids of the policy results are derived by `rayjob-guard check -o json` on the
# manifests created, not written here. audit runs as a ServiceAccount that may only get/list
# rayjobs, rayclusters, jobs and pods. Checked: -o json (exactly the expected results, summary,
# held quantities, resource uids), the table (each row, the summary line, the held-quota table),
# exit 1; -n audit-c exit 0; --grace long enough that rj-past-ttl is not yet past its TTL;
# -n audit-b sees only audit-b; `kubectl get ... -o json | audit -f -` gives audit -A's report,
# and a Service in it exits 2; a closed --server port exits 2; -o policyreport gives one
# PolicyReport per namespace audited. --write-reports: exit 2 naming the CRD while the cluster
# lacks it; with the openreports.io Report CRD (test/peers/versions.env) it writes one Report per
# namespace (the same objects -o json prints), replaces a stale one, deletes ours where no RayJob
# is left and keeps another name's, exits 0 with findings; -n writes one and sweeps nothing.
# Everything started is stopped by PID
# (cluster.sh down), also on failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=test/e2e/e2e-lib.sh
. "$here/e2e-lib.sh"
# shellcheck source=test/peers/versions.env
. "$repo/test/peers/versions.env"
e2e_setup audit-e2e 2,31 "$@"
e2e_on_failure() {
  e2e_print_files "$work/out"
  echo "----- kube-apiserver log (tail) -----" >&2
  tail -n 15 "$cluster/logs/kube-apiserver.log" >&2 2>/dev/null || true
}

mkdir -p "$work/out" "$work/manifests"

cat >"$work/policy.yaml" <<'EOF'
apiVersion: rayjob-guard.io/v1
kind: Policy
kuberay: {version: "1.6"}
lifecycle: {mode: deletionRules, maxSucceededTTLSeconds: 600, maxFailedTTLSeconds: 86400}
images:
  allow: ["*.dkr.ecr.*.amazonaws.com/ray-tenant:*"]
quota:
  unknownNamespace: useDefault
EOF
"$binary" policy validate "$work/policy.yaml" || fail "the test's policy does not validate"

say "cluster: etcd + kube-apiserver (no webhook registered, no controller-manager)"
"$here/cluster.sh" up "$cluster"
# shellcheck source=/dev/null
. "$cluster/env"
k() { "$KUBECTL" --kubeconfig "$cluster/admin.kubeconfig" "$@"; }

say "the auditor's identity: the shipped ServiceAccount and read-only ClusterRole (manifests/audit)"
k create namespace rayjob-guard >/dev/null
k apply -f "$repo/manifests/audit/serviceaccount.yaml" -f "$repo/manifests/audit/clusterrole.yaml" >/dev/null
# The shipped CronJob is valid batch/v1 as this apiserver reads it (strict field validation).
k apply --dry-run=server --validate=strict -f "$repo/manifests/audit/cronjob.yaml" >/dev/null ||
  fail "manifests/audit/cronjob.yaml is refused by the apiserver"
e2e_sa_kubeconfig rayjob-guard-audit audit
a() { "$KUBECTL" --kubeconfig "$work/audit.kubeconfig" "$@"; }
[[ $(a auth can-i list rayjobs.ray.io --all-namespaces) == yes ]] || fail "the auditor cannot list rayjobs"
[[ $(a auth can-i list pods --all-namespaces) == yes ]] || fail "the auditor cannot list pods"
[[ $(a auth can-i delete rayjobs.ray.io -n audit-a 2>/dev/null || true) == no ]] || fail "the auditor may delete rayjobs"
[[ $(a auth can-i patch rayjobs.ray.io -n audit-a 2>/dev/null || true) == no ]] || fail "the auditor may patch rayjobs"
[[ $(a auth can-i list deployments.apps --all-namespaces) == yes ]] || fail "the auditor cannot list deployments"
[[ $(a auth can-i patch deployments.apps -n audit-a 2>/dev/null || true) == no ]] || fail "the auditor may patch deployments"
echo "[audit-e2e] auditor SA: get/list rayjobs, rayclusters, jobs, pods, deployments; nothing else on them"

# audit ARGS...: runs audit as the auditor with the test's policy; stdout to $work/out/NAME,
# stderr to $work/out/NAME.err, where NAME is the first argument; sets audit_rc.
audit_rc=0
audit() {
  local name=$1
  shift
  audit_rc=0
  "$binary" audit --policy "$work/policy.yaml" "$@" >"$work/out/$name" 2>"$work/out/$name.err" ||
    audit_rc=$?
  printf '[audit-e2e] audit %s -> exit %d\n' "$*" "$audit_rc"
}

say "plant: RayJobs created directly (no webhook), as if stored before rayjob-guard existed"
for ns in audit-a audit-b audit-c; do k create namespace "$ns" >/dev/null; done
# manifest SRC NS NAME [drop-deployment-rule]: SRC with metadata.namespace/name replaced (and
# with the deletionRules that match jobDeploymentStatus removed), into $work/manifests/NS.NAME.yaml.
manifest() {
  python3 - "$repo/test/corpus/$1" "$2" "$3" "${4:-}" >"$work/manifests/$2.$3.yaml" <<'PY'
import sys, yaml
src, ns, name, drop = sys.argv[1:5]
docs = [d for d in yaml.safe_load_all(open(src)) if d and d.get("kind") == "RayJob"]
assert len(docs) == 1, src
rj = docs[0]
rj["metadata"] = {"name": name, "namespace": ns}
if drop:
    rules = rj["spec"]["deletionStrategy"]["deletionRules"]
    kept = [r for r in rules if "jobDeploymentStatus" not in r.get("condition", {})]
    assert kept and len(kept) < len(rules), "nothing to drop"
    rj["spec"]["deletionStrategy"]["deletionRules"] = kept
yaml.safe_dump(rj, sys.stdout, sort_keys=False)
PY
}
compliant=03-deletion-rules-staged.yaml
violating=21-no-active-deadline.yaml
# NS NAME SOURCE DROP WASTE-RULE (- for none)
plants=(
  "audit-a rj-ok $compliant - -"
  "audit-a rj-violating $violating - -"
  "audit-a rj-validation-failed $compliant - validation-failed"
  "audit-a rj-deploy-failed $compliant drop deployment-failed-unmatched"
  "audit-b rj-ok $compliant - -"
  "audit-b rj-past-ttl $compliant - past-ttl"
  "audit-c rj-ok $compliant - -"
)
: >"$work/plants.tsv"
for p in "${plants[@]}"; do
  read -r ns name src drop waste <<<"$p"
  [[ $drop == - ]] && drop=""
  manifest "$src" "$ns" "$name" "$drop"
  f=$work/manifests/$ns.$name.yaml
  rc=0
  "$binary" check --policy "$work/policy.yaml" -o json "$f" >"$work/manifests/$ns.$name.check.json" || rc=$?
  ((rc == 0 || rc == 1)) || fail "rayjob-guard check exited $rc on $ns/$name"
  k create -f "$f" >/dev/null
  uid=$(k get rayjob "$name" -n "$ns" -o jsonpath='{.metadata.uid}')
  printf '%s\t%s\t%s\t%s\t%s\n' "$ns" "$name" "$uid" "$waste" "$work/manifests/$ns.$name.check.json" \
    >>"$work/plants.tsv"
done
# The compliant ones must be clean under the policy; the violating ones must not.
for p in audit-a.rj-ok audit-b.rj-ok audit-c.rj-ok audit-a.rj-validation-failed audit-b.rj-past-ttl; do
  [[ $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(len(x["denials"])+len(x["warnings"]) for x in r))' \
    "$work/manifests/$p.check.json") == 0 ]] || fail "check does not pass $p cleanly"
done
for p in audit-a.rj-violating audit-a.rj-deploy-failed; do
  [[ $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(len(x["denials"]) for x in r))' \
    "$work/manifests/$p.check.json") != 0 ]] || fail "check finds nothing in $p"
done

say "status through the status subresource"
now=$(date -u +%s)
ago() { date -u -d "@$((now - $1))" +%Y-%m-%dT%H:%M:%SZ; }
k patch rayjob rj-validation-failed -n audit-a --subresource=status --type=merge \
  -p '{"status":{"jobDeploymentStatus":"ValidationFailed","reason":"ValidationFailed","message":"planted"}}'
k patch rayjob rj-past-ttl -n audit-b --subresource=status --type=merge \
  -p "{\"status\":{\"jobDeploymentStatus\":\"Complete\",\"jobStatus\":\"SUCCEEDED\",\"startTime\":\"$(ago 7500)\",\"endTime\":\"$(ago 7200)\"}}"
k patch rayjob rj-deploy-failed -n audit-a --subresource=status --type=merge \
  -p "{\"status\":{\"jobDeploymentStatus\":\"Failed\",\"startTime\":\"$(ago 120)\",\"endTime\":\"$(ago 60)\",\"message\":\"submitter failed before the job started\"}}"
[[ $(k get rayjob rj-deploy-failed -n audit-a -o jsonpath='{.status.jobStatus}') == "" ]] ||
  fail "rj-deploy-failed has a jobStatus"
[[ $(k get rayjob rj-past-ttl -n audit-b -o jsonpath='{.status.jobDeploymentStatus}/{.status.jobStatus}') == Complete/SUCCEEDED ]] ||
  fail "rj-past-ttl status not stored"

say "rj-past-ttl's submitter Job and its Pod (Pending: there is no kubelet)"
uid=$(k get rayjob rj-past-ttl -n audit-b -o jsonpath='{.metadata.uid}')
k create -f - <<EOF
apiVersion: batch/v1
kind: Job
metadata:
  name: rj-past-ttl-submitter
  namespace: audit-b
  ownerReferences:
  - {apiVersion: ray.io/v1, kind: RayJob, name: rj-past-ttl, uid: "$uid", controller: true, blockOwnerDeletion: true}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: submitter, image: "123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.52.0-py310"}]
EOF
job_uid=$(k get job rj-past-ttl-submitter -n audit-b -o jsonpath='{.metadata.uid}')
k create -f - <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: rj-past-ttl-submitter-abcde
  namespace: audit-b
  ownerReferences:
  - {apiVersion: batch/v1, kind: Job, name: rj-past-ttl-submitter, uid: "$job_uid", controller: true, blockOwnerDeletion: true}
spec:
  restartPolicy: Never
  containers:
  - name: submitter
    image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.52.0-py310
    resources:
      requests: {cpu: 500m, memory: 1Gi}
      limits: {cpu: 500m, memory: 1Gi}
EOF
[[ $(k get pod rj-past-ttl-submitter-abcde -n audit-b -o jsonpath='{.status.phase}') == Pending ]] ||
  fail "the planted Pod is not Pending"
k get rayjobs,jobs,pods -n audit-a -o wide
k get rayjobs,jobs,pods -n audit-b -o wide

# verify MODE FILE [NAMESPACE|-] [GRACE-PASS]: checks one audit output against the plants.
#   MODE json|table|policyreport; NAMESPACE limits the expected results to one namespace;
#   GRACE-PASS=1: rj-past-ttl is expected to hold nothing (audit ran with a long --grace).
verify() {
  python3 - "$1" "$2" "${3:--}" "${4:-0}" "$work/plants.tsv" <<'PY'
import collections, json, re, sys

mode, path, only_ns, grace_pass, plants_path = sys.argv[1:6]
errors = []
def err(msg):
    errors.append(msg)

SUFFIX = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
          "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
def qty(s):
    s = str(s).strip()
    if s in ("-", ""):
        return 0.0
    m = re.fullmatch(r"([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?", s)
    if not m:
        raise ValueError(f"not a quantity: {s!r}")
    return float(m.group(1)) * SUFFIX[m.group(2) or ""]

# The plants and what each must produce.
plants = []
expected = collections.Counter()
uids = {}
held = {}  # (ns, name) -> (rayjobs, jobs, pods, cpu, memory)
for line in open(plants_path):
    ns, name, uid, waste, check_path = line.rstrip("\n").split("\t")
    if only_ns != "-" and ns != only_ns:
        continue
    plants.append((ns, name))
    uids[(ns, name)] = uid
    for r in json.load(open(check_path)):
        for d in r["denials"]:
            expected[(ns, name, d["rule"], "fail")] += 1
        for w in r["warnings"]:
            expected[(ns, name, w["rule"], "warn")] += 1
    if waste != "-" and not (grace_pass == "1" and waste == "past-ttl"):
        expected[(ns, name, waste, "warn")] += 1
        held[(ns, name)] = (1, 1, 1, 0.5, 2**30) if waste == "past-ttl" else (1, 0, 0, 0, 0)
with_result = {(ns, name) for ns, name, _, _ in expected}
n_pass = sum(1 for p in plants if p not in with_result)
n_fail = sum(c for k, c in expected.items() if k[3] == "fail")
n_warn = sum(c for k, c in expected.items() if k[3] == "warn")
waste_ids = {"validation-failed", "past-ttl", "existing-cluster", "deployment-failed-unmatched", "no-deletion"}

def compare(got, what):
    if got != expected:
        more = sorted((got - expected).elements())
        less = sorted((expected - got).elements())
        err(f"{what}: unexpected results {more}; missing results {less}")

def ns_totals():
    tot = {}
    for (ns, _), h in held.items():
        t = tot.setdefault(ns, [0, 0, 0, 0.0, 0.0])
        for i, v in enumerate(h):
            t[i] += v
    return tot

text = open(path).read()
want_ns = {ns for ns, _ in plants}
def per_namespace(items, api_version, kind):
    """Checks one report per audited namespace; returns {namespace: report}."""
    seen = collections.Counter(it.get("metadata", {}).get("namespace") for it in items)
    if set(seen) != want_ns or any(c != 1 for c in seen.values()):
        err(f"reports for {dict(seen)}, want one each for {sorted(want_ns)}")
    for it in items:
        ns, md = it.get("metadata", {}).get("namespace"), it.get("metadata", {})
        if it.get("apiVersion") != api_version or it.get("kind") != kind:
            err(f"report of {ns}: {it.get('apiVersion')!r} {it.get('kind')!r}")
        if md.get("name") != "rayjob-guard-audit" or md.get("labels") != {"app.kubernetes.io/managed-by": "rayjob-guard"}:
            err(f"report of {ns}: metadata {md!r}")
        want_summary = {"pass": sum(1 for p in plants if p[0] == ns and p not in with_result),
                        "fail": sum(c for k, c in expected.items() if k[0] == ns and k[3] == "fail"),
                        "warn": sum(c for k, c in expected.items() if k[0] == ns and k[3] == "warn"),
                        "error": 0, "skip": 0}
        if it.get("summary") != want_summary:
            err(f"report of {ns}: summary {it.get('summary')} != {want_summary}")
        for r in it.get("results", []):
            rns = (r.get("resources") or [{}])[0].get("namespace")
            if rns != ns:
                err(f"the report of {ns} holds a result for {rns}")
    return {it.get("metadata", {}).get("namespace"): it for it in items}

text = open(path).read()
if mode == "json":
    doc = json.loads(text)
    if doc.get("apiVersion") != "v1" or doc.get("kind") != "List":
        err(f"not a v1 List: {doc.get('apiVersion')!r} {doc.get('kind')!r}")
    reports = per_namespace(doc.get("items", []), "openreports.io/v1alpha1", "Report")
    for ns, it in reports.items():
        if it.get("source") != "rayjob-guard":
            err(f"report of {ns}: source {it.get('source')!r}")
    got = collections.Counter()
    for r in (r for it in doc.get("items", []) for r in it.get("results", [])):
        res = r.get("resources") or [{}]
        ref = res[0]
        key = (ref.get("namespace"), ref.get("name"), r.get("rule"), r.get("result"))
        got[key] += 1
        if len(res) != 1 or ref.get("apiVersion") != "ray.io/v1" or ref.get("kind") != "RayJob":
            err(f"{key}: resources {res}")
        if ref.get("uid") != uids.get((ref.get("namespace"), ref.get("name"))):
            err(f"{key}: uid {ref.get('uid')!r}, the RayJob's is {uids.get((ref.get('namespace'), ref.get('name')))!r}")
        if r.get("policy") != "rayjob-guard" or r.get("source") != "rayjob-guard":
            err(f"{key}: policy/source {r.get('policy')!r}/{r.get('source')!r}")
        if not isinstance(r.get("scored"), bool):
            err(f"{key}: scored is not a bool: {r.get('scored')!r}")
        if not isinstance(r.get("message"), str) or not r.get("message"):
            err(f"{key}: no message")
        props = r.get("properties", {})
        if not isinstance(props, dict) or not all(isinstance(v, str) for v in props.values()):
            err(f"{key}: properties is not a string map: {props!r}")
            props = {}
        category = "waste" if r.get("rule") in waste_ids else "policy"
        if r.get("category") != category:
            err(f"{key}: category {r.get('category')!r}, want {category!r}")
        h = held.get((key[0], key[1])) if category == "waste" else None
        if h is not None:
            names = ("count/rayjobs.ray.io", "count/jobs.batch", "pods", "requests.cpu", "requests.memory")
            try:
                vals = tuple(qty(props[n]) for n in names)
            except (KeyError, ValueError) as e:
                err(f"{key}: held quota properties {props!r}: {e}")
            else:
                if any(abs(a - b) > 1e-9 for a, b in zip(vals, h)):
                    err(f"{key}: holds {dict(zip(names, (props[n] for n in names)))}, want {dict(zip(names, h))}")
    compare(got, "json")
    print(f"[audit-e2e] json: {len(reports)} Reports ({', '.join(sorted(reports))}), "
          f"{sum(got.values())} results")
elif mode == "table":
    lines = text.splitlines()
    hdr = [i for i, l in enumerate(lines) if l.split() == "NAMESPACE RAYJOB RULE RESULT STATUS AGE MESSAGE".split()]
    if len(hdr) != 1:
        # Without results the header is optional; with results it must be there, once.
        if expected or hdr:
            err("no (single) results header NAMESPACE RAYJOB RULE RESULT STATUS AGE MESSAGE")
        hdr = [-1]
    summ = [i for i, l in enumerate(lines) if re.fullmatch(r"pass: \d+, fail: \d+, warn: \d+, error: \d+, skip: \d+", l.strip())]
    want = f"pass: {n_pass}, fail: {n_fail}, warn: {n_warn}, error: 0, skip: 0"
    if len(summ) != 1:
        err(f"no (single) summary line; want {want!r}")
        summ = [len(lines)]
    elif lines[summ[0]].strip() != want:
        err(f"summary line {lines[summ[0]].strip()!r}, want {want!r}")
    got = collections.Counter()
    # Without a header (no results) the lines before the summary are a sentence, not rows.
    for l in (lines[hdr[0] + 1:summ[0]] if hdr[0] >= 0 else []):
        f = l.split()
        if len(f) >= 4:
            got[tuple(f[:4])] += 1
        elif f:
            err(f"short result row {l!r}")
    compare(got, "table")
    held_hdr = "NAMESPACE HELD-BY COUNT/RAYJOBS.RAY.IO COUNT/JOBS.BATCH PODS REQUESTS.CPU REQUESTS.MEMORY".split()
    hh = [i for i, l in enumerate(lines) if l.split() == held_hdr]
    tot = ns_totals()
    if not tot:
        if hh:
            err("a held-quota table although nothing holds quota")
    elif len(hh) != 1 or hh[0] < summ[0]:
        err("no (single) held-quota table after the summary line")
    else:
        rows = {}
        for l in lines[hh[0] + 1:]:
            f = l.split()
            if not f:
                continue
            if len(f) < 7:
                err(f"short held-quota row {l!r}")
                continue
            if f[0] in rows:
                err(f"two held-quota rows for {f[0]}")
            rows[f[0]] = f
        if set(rows) != set(tot):
            err(f"held-quota rows for {sorted(rows)}, want {sorted(tot)}")
        for ns, t in tot.items():
            f = rows.get(ns)
            if not f:
                continue
            try:
                vals = [qty(v) for v in f[-5:]]
            except ValueError as e:
                err(f"held-quota row {' '.join(f)!r}: {e}")
                continue
            if any(abs(a - b) > 1e-9 for a, b in zip(vals, t)):
                err(f"held-quota row {' '.join(f)!r}, want totals {t}")
        print(f"[audit-e2e] table: {sum(got.values())} result rows, {lines[summ[0]].strip()!r}, "
              f"held rows for {sorted(rows)}")
elif mode == "policyreport":
    doc = json.loads(text)
    if doc.get("apiVersion") != "v1" or doc.get("kind") != "List":
        err(f"not a v1 List: {doc.get('apiVersion')!r} {doc.get('kind')!r}")
    reports = per_namespace(doc.get("items", []), "wgpolicyk8s.io/v1alpha2", "PolicyReport")
    got = collections.Counter()
    for it in doc.get("items", []):
        for r in it.get("results", []):
            ref = (r.get("resources") or [{}])[0]
            got[(ref.get("namespace"), ref.get("name"), r.get("rule"), r.get("result"))] += 1
    compare(got, "policyreport")
    print(f"[audit-e2e] policyreport: {len(reports)} PolicyReports ({', '.join(sorted(reports))}), "
          f"{sum(got.values())} results")
for e in errors:
    print(f"[audit-e2e] {mode} {path}: {e}", file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}

say "audit --all-namespaces -o json"
audit all.json --all-namespaces -o json --kubeconfig "$work/audit.kubeconfig"
((audit_rc == 1)) || fail "audit -o json exited $audit_rc, want 1"
verify json "$work/out/all.json" || fail "audit -o json differs from the plants"

say "an export instead of credentials: kubectl get rayjobs,jobs,rayclusters,pods -A -o json | audit -f -"
a get rayjobs,jobs,rayclusters,pods -A -o json >"$work/export.json"
audit export.json -f - -o json <"$work/export.json"
((audit_rc == 1)) || fail "audit -f - exited $audit_rc, want 1"
verify json "$work/out/export.json" || fail "audit -f - differs from the plants"
# The same results, holdings and summary as read from the API (the timestamps, and the "N ago"
# they make, aside: the two runs are seconds apart).
python3 - "$work/out/all.json" "$work/out/export.json" <<'PY' || fail "audit -f - differs from audit -A"
import json, re, sys
def strip(path):
    doc = json.load(open(path))
    for r in (r for it in doc.get("items", []) for r in it.get("results", [])):
        r.pop("timestamp", None)
        r["message"] = re.sub(r"\b\d+[hms] ago\b", "N ago", r.get("message", ""))
    return doc
live, export = strip(sys.argv[1]), strip(sys.argv[2])
if live != export:
    print(json.dumps(live, sort_keys=True)[:3000], json.dumps(export, sort_keys=True)[:3000],
          sep="\n", file=sys.stderr)
    sys.exit(1)
print(f"[audit-e2e] audit -f - gives audit -A's reports: {len(live.get('items', []))} namespaces")
PY
audit export-bad.json -f - -o json <<<'{"kind":"List","items":[{"kind":"Service","metadata":{}}]}'
((audit_rc == 2)) || fail "audit -f - of a Service exited $audit_rc, want 2"
grep -q 'items\[0\].kind: "Service"' "$work/out/export-bad.json.err" ||
  fail "audit -f - of a Service: $(cat "$work/out/export-bad.json.err")"
audit export-scope.json -f - -A <"$work/export.json"
((audit_rc == 2)) || fail "audit -f - -A exited $audit_rc, want 2"

say "audit --all-namespaces (table)"
audit all.table --all-namespaces --kubeconfig "$work/audit.kubeconfig"
((audit_rc == 1)) || fail "audit (table) exited $audit_rc, want 1"
cat "$work/out/all.table"
verify table "$work/out/all.table" || fail "the audit table differs from the plants"

say "audit --all-namespaces -o policyreport"
audit all.policyreport --all-namespaces -o policyreport --kubeconfig "$work/audit.kubeconfig"
((audit_rc == 1)) || fail "audit -o policyreport exited $audit_rc, want 1"
verify policyreport "$work/out/all.policyreport" || fail "the PolicyReports differ from the plants"

say "audit -n audit-b -o json: that namespace only"
audit b.json -n audit-b -o json --kubeconfig "$work/audit.kubeconfig"
((audit_rc == 1)) || fail "audit -n audit-b exited $audit_rc, want 1"
verify json "$work/out/b.json" audit-b || fail "audit -n audit-b differs from audit-b's plants"

say "audit -n audit-b --grace 7200: rj-past-ttl (endTime 2 h ago, bound 600 s) is within its grace"
audit b-grace.json -n audit-b --grace 7200 -o json --kubeconfig "$work/audit.kubeconfig"
((audit_rc == 0)) || fail "audit -n audit-b --grace 7200 exited $audit_rc, want 0"
verify json "$work/out/b-grace.json" audit-b 1 || fail "audit --grace 7200 differs"

say "audit -n audit-c (only a compliant RayJob), endpoint by --server/--token-file/--ca: exit 0"
audit c.table --namespace audit-c --server "$APISERVER_URL" --token-file "$work/audit.token" \
  --ca "$APISERVER_CA"
cat "$work/out/c.table"
((audit_rc == 0)) || fail "audit -n audit-c exited $audit_rc, want 0"
verify table "$work/out/c.table" audit-c || fail "audit -n audit-c table differs"

say "audit against a closed port: exit 2"
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
audit closed.table --all-namespaces --server "https://127.0.0.1:$closed" --token-file "$work/audit.token" \
  --ca "$APISERVER_CA" --timeout 5
cat "$work/out/closed.table.err"
((audit_rc == 2)) || fail "audit against a closed port exited $audit_rc, want 2"

say "audit without a scope: exit 2"
audit noscope.table --kubeconfig "$work/audit.kubeconfig"
((audit_rc == 2)) || fail "audit without --namespace/--all-namespaces exited $audit_rc, want 2"

say "--write-reports before the Report CRD exists: exit 2, naming the CRD to install"
audit nocrd.table --all-namespaces --write-reports --kubeconfig "$work/audit.kubeconfig"
((audit_rc == 2)) || fail "audit --write-reports without the CRD exited $audit_rc, want 2"
grep -q 'install the Report CRD (config/crd/openreports.io_reports.yaml' "$work/out/nocrd.table.err" ||
  fail "audit --write-reports without the CRD: $(cat "$work/out/nocrd.table.err")"

say "the openreports.io Report CRD (github.com/openreports/reports-api $OPENREPORTS_VERSION)"
reports_module=$("$repo/test/peers/module-dir.sh" "github.com/openreports/reports-api@$OPENREPORTS_VERSION") ||
  fail "cannot download github.com/openreports/reports-api@$OPENREPORTS_VERSION"
k create -f "$reports_module/config/crd/openreports.io_reports.yaml" >/dev/null
k wait --for condition=established --timeout=60s crd/reports.openreports.io >/dev/null
for verb in create patch list delete; do
  [[ $(a auth can-i "$verb" reports.openreports.io -n audit-a) == yes ]] || fail "the auditor cannot $verb reports"
done
[[ $(a auth can-i update reports.openreports.io -n audit-a 2>/dev/null || true) == no ]] ||
  fail "the auditor may update reports (apply needs only create and patch)"
# What earlier audits left: a report with a stale finding where every RayJob now passes
# (audit-c), and one in a namespace that holds no RayJob any more (audit-d), next to a report of
# another name there that is not ours to delete.
k create namespace audit-d >/dev/null
for target in audit-c/rayjob-guard-audit audit-d/rayjob-guard-audit audit-d/someone-else; do
  k create -f - >/dev/null <<EOF
apiVersion: openreports.io/v1alpha1
kind: Report
metadata:
  name: ${target#*/}
  namespace: ${target%/*}
  labels: {app.kubernetes.io/managed-by: rayjob-guard}
source: rayjob-guard
summary: {pass: 0, fail: 1, warn: 0, error: 0, skip: 0}
results:
- {policy: rayjob-guard, rule: backoff-limit, result: fail, message: stale}
EOF
done

say "audit --all-namespaces --write-reports: one Report per namespace, exit 0 with findings"
audit write.json --all-namespaces -o json --write-reports --kubeconfig "$work/audit.kubeconfig"
cat "$work/out/write.json.err"
((audit_rc == 0)) || fail "audit --write-reports exited $audit_rc, want 0 (the findings are the reports)"
verify json "$work/out/write.json" || fail "audit --write-reports printed other reports"
grep -q '^rayjob-guard audit: 3 openreports.io Report(s) written, 1 of earlier audits deleted; pass: 3, ' \
  "$work/out/write.json.err" || fail "audit --write-reports did not say 3 written and 1 deleted"
# What the cluster holds now: our reports, as a List, are what audit printed (and pass verify).
k get reports.openreports.io -A -l app.kubernetes.io/managed-by=rayjob-guard -o json >"$work/out/cluster-reports.json"
python3 - "$work/out/cluster-reports.json" "$work/out/write.json" >"$work/out/cluster-reports.list" <<'PY' ||
import json, sys
stored, printed = (json.load(open(p)) for p in sys.argv[1:3])
ours = [it for it in stored["items"] if it["metadata"]["name"] == "rayjob-guard-audit"]
others = sorted(f'{it["metadata"]["namespace"]}/{it["metadata"]["name"]}' for it in stored["items"]
                if it["metadata"]["name"] != "rayjob-guard-audit")
if others != ["audit-d/someone-else"]:
    sys.exit(f"reports of other names: {others}, want audit-d/someone-else kept")
key = lambda it: it["metadata"]["namespace"]
if len(ours) != len(printed["items"]):
    sys.exit(f"{len(ours)} reports stored, {len(printed['items'])} printed")
for got, want in zip(sorted(ours, key=key), sorted(printed["items"], key=key)):
    for k in ("source", "summary", "results"):
        if got.get(k) != want.get(k):
            sys.exit(f"the stored report of {key(got)} differs in {k}: {got.get(k)} != {want.get(k)}")
json.dump({"apiVersion": "v1", "kind": "List", "items": ours}, sys.stdout)
PY
  fail "the reports in the cluster differ from what audit printed"
verify json "$work/out/cluster-reports.list" || fail "the reports in the cluster differ from the plants"
[[ $(k get reports.openreports.io -n audit-c rayjob-guard-audit -o jsonpath='{.summary.fail}/{.summary.pass}') == 0/1 ]] ||
  fail "audit-c's stale report was not replaced"
rv_a=$(k get reports.openreports.io -n audit-a rayjob-guard-audit -o jsonpath='{.metadata.resourceVersion}')

say "audit -n audit-c --write-reports: that namespace's report only, nothing swept"
audit write-c.table -n audit-c --write-reports --kubeconfig "$work/audit.kubeconfig"
((audit_rc == 0)) || fail "audit -n audit-c --write-reports exited $audit_rc, want 0"
grep -q '^rayjob-guard audit: 1 openreports.io Report(s) written, 0 of earlier audits deleted' \
  "$work/out/write-c.table.err" || fail "audit -n audit-c --write-reports: $(cat "$work/out/write-c.table.err")"
[[ $(k get reports.openreports.io -n audit-a rayjob-guard-audit -o jsonpath='{.metadata.resourceVersion}') == "$rv_a" ]] ||
  fail "audit -n audit-c changed audit-a's report"
[[ $(k get reports.openreports.io -A --no-headers | wc -l) == 4 ]] || fail "other than 4 reports after audit -n audit-c"
echo "[audit-e2e] reports: written per namespace, audit-c's stale one replaced, audit-d's swept, someone-else's kept"

say "operator-drift: a KubeRay v1.5.0 operator whose gates Helm replaced, against a policy of 1.6"
k create namespace ray-system >/dev/null
# The Deployment as KubeRay's Helm chart renders it (this cluster runs no controllers: it stays
# an object, which is all audit reads).
k apply -f - >/dev/null <<'DEPLOY'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kuberay-operator
  namespace: ray-system
  labels: {app.kubernetes.io/name: kuberay-operator, app.kubernetes.io/component: kuberay-operator}
spec:
  selector: {matchLabels: {app.kubernetes.io/name: kuberay-operator}}
  template:
    metadata: {labels: {app.kubernetes.io/name: kuberay-operator, app.kubernetes.io/component: kuberay-operator}}
    spec:
      containers:
        - name: kuberay-operator
          image: quay.io/kuberay/operator:v1.5.0
          command: ["/manager"]
          args: ["--feature-gates=RayJobDeletionPolicy=false,RayCronJob=true", "--enable-leader-election=true"]
DEPLOY
audit drift.json --all-namespaces -o json --kubeconfig "$work/audit.kubeconfig"
((audit_rc == 1)) || fail "audit with a drifted operator exited $audit_rc, want 1"
python3 - "$work/out/drift.json" <<'PY' || fail "operator-drift results differ"
import json, sys
results = [r for it in json.load(open(sys.argv[1]))["items"] for r in it["results"]
           if r["rule"] == "operator-drift"]
got = sorted((r["resources"][0]["kind"], r["resources"][0]["namespace"], r["properties"]["field"],
              r["message"].split(";")[0].split(": ", 1)[1]) for r in results)
f = "spec.template.spec.containers[kuberay-operator]"
op = "the operator in ray-system/kuberay-operator"
want = sorted([
    ("Deployment", "ray-system", f + ".image",
     op + " is 1.5 (quay.io/kuberay/operator:v1.5.0) and the policy says kuberay.version 1.6, so "
     "admission judges by another operator's rules"),
    ("Deployment", "ray-system", f + ".args",
     op + " runs feature gate RayJobDeletionPolicy off and the policy says on"),
    ("Deployment", "ray-system", f + ".args",
     op + " runs feature gate RayMultiHostIndexing off and the policy says on"),
    ("Deployment", "ray-system", f + ".args",
     op + " is given feature gate RayCronJob, which KubeRay 1.5 does not have: the operator "
     "refuses to start with it"),
])
if got != want:
    print("got: ", json.dumps(got, indent=1), "\nwant:", json.dumps(want, indent=1), file=sys.stderr)
    sys.exit(1)
print(f"[audit-e2e] operator-drift: {len(results)} results, each naming the policy line")
PY
# The JSON escapes the quotes of the line to set.
grep -qF 'set kuberay.version: \"1.5\"' "$work/out/drift.json" ||
  fail 'operator-drift does not name kuberay.version: "1.5"'

say "audit changed nothing"
[[ $(k get rayjobs -A --no-headers | wc -l) == 7 ]] || fail "RayJobs were deleted or added"
[[ $(k get pod rj-past-ttl-submitter-abcde -n audit-b -o jsonpath='{.status.phase}') == Pending ]] ||
  fail "the planted Pod changed"

passed=1
say "PASS"
