#!/usr/bin/python3
"""The chart, offline: `helm lint` and `helm template` over test/chart/values/*.yaml, the rendered
objects put through the same field checks as the kustomize bases (check_common of
test/ship/manifests_test.py, imported, so both always run the same checks), the Helm/kustomize
agreement on the webhook registration and the Deployment, the policy ConfigMap validated by
`rayjob-guard policy validate`, values.schema.json refusing bad values, and each optional part
(cert-manager, reaper, ServiceMonitor, PrometheusRule via `promtool check rules`).

usage: render_test.py REPO HELM KUBECTL RAYJOB_GUARD WORK_DIR
"""
import copy
import importlib.util
import os
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, checks_passed, need  # noqa: E402
from chartlib import Offline  # noqa: E402

REPO, HELM, KUBECTL, RJG, WORK = (os.path.abspath(a) if i != 1 else a for i, a in enumerate(sys.argv[1:6]))
CHART = os.path.join(REPO, "charts", "rayjob-guard")
VALUES = os.path.join(REPO, "test", "chart", "values")
RELEASE, NS = "rayjob-guard", "rayjob-guard"
offline = Offline(WORK).run  # no cluster, Helm's homes under WORK: (code, stdout, stderr)


def template(*values, sets=(), expect_ok=True):
    argv = [HELM, "template", RELEASE, CHART, "--namespace", NS]
    for v in values:
        argv += ["-f", os.path.join(VALUES, v)]
    for s in sets:
        argv += ["--set", s]
    code, out, err = offline(argv, expect_ok)
    if not expect_ok:
        return code, out, err
    # Hooks (the pre-delete registration remover, the `helm test` RayJob) are not release
    # objects; strict_test.py checks them.
    return [d for d in yaml.safe_load_all(out) if d and "helm.sh/hook" not in (d["metadata"].get("annotations") or {})]


def kustomize(rel):
    _, out, _ = offline([KUBECTL, "kustomize", os.path.join(REPO, rel)])
    return [d for d in yaml.safe_load_all(out) if d]


def one(docs, kind, name, namespace=None):
    hits = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name
            and d["metadata"].get("namespace") == namespace]
    check(len(hits) == 1, f"exactly one {kind} {namespace}/{name}, found {len(hits)}")
    return hits[0]


# --- the kustomize bases' checks, imported from test/ship/manifests_test.py
spec = importlib.util.spec_from_file_location("manifests_test", os.path.join(REPO, "test", "ship", "manifests_test.py"))
saved_argv = sys.argv
sys.argv = [sys.argv[0], REPO, KUBECTL]
mt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mt)
sys.argv = saved_argv


def shared_checks(docs):
    """Runs manifests_test.check_common on docs with every check recorded instead of exiting on
    the first failure; returns the set of failed checks (plus an exception, when a check could
    not run on what an earlier one found missing)."""
    failed = set()

    def recording_check(cond, what):
        if not cond:
            failed.add(what)
    mt.check = recording_check
    if not any(d["kind"] == "Namespace" for d in docs):
        # The chart never makes its release namespace (Helm stores the release in it before any
        # object exists); the checks see the one docs/install.md has you make.
        docs = docs + [{"apiVersion": "v1", "kind": "Namespace", "metadata": {
            "name": NS, "labels": {"pod-security.kubernetes.io/enforce": "restricted"}}}]
    try:
        mt.check_common(docs, "chart")
    except Exception as e:  # noqa: BLE001 - a check that could not run is a failure too
        failed.add(f"check_common stopped: {type(e).__name__}: {e}")
    return failed


def main():
    # --- lint: every values file, and --strict
    for v in sorted(os.listdir(VALUES)):
        _, out, _ = offline([HELM, "lint", "--strict", CHART, "--namespace", NS, "-f", os.path.join(VALUES, v)])
        check("0 chart(s) failed" in out, f"helm lint --strict -f {v}: {out}")
        print(f"ok: helm lint --strict -f values/{v}")

    # --- the default values refuse to render without a certificate choice, with a clear message
    code, _, err = template(expect_ok=False)
    check(code != 0 and "webhook.caBundle is required" in err,
          f"default values without caBundle or cert-manager are refused clearly: {err.strip()}")
    print("ok: no certificate choice -> refused: " + [l for l in err.splitlines() if "caBundle" in l][0].strip())

    # --- the shared field checks: the chart must pass every check the kustomize base passes
    base = kustomize("manifests/base")
    base_failure = shared_checks(copy.deepcopy(base))
    if base_failure:
        print(f"note: manifests_test.check_common fails on manifests/base itself: {sorted(base_failure)}; "
              "the chart must fail no other check")
    for v in ("self-signed.yaml", "cert-manager.yaml", "monitoring.yaml"):
        docs = template(v)
        kinds = sorted({d["kind"] for d in docs})
        print(f"rendered values/{v}: {len(docs)} objects ({', '.join(kinds)})")
        got = shared_checks(docs)
        check(got <= base_failure, f"values/{v}: checks the kustomize base passes fail on the chart: {sorted(got - base_failure)}")
        print(f"ok: values/{v}: manifests_test.check_common " + ("passes" if not got else f"fails only where the base fails ({sorted(got)})"))

    # The shared checks bite on the chart: values that break a hardening rule are caught.
    got = shared_checks(template("self-signed.yaml", sets=("securityContext.readOnlyRootFilesystem=false", "replicas=1")))
    check({"readOnlyRootFilesystem", "Deployment has at least 2 replicas"} <= got,
          f"check_common catches a writable root filesystem and one replica on the chart: {sorted(got)}")
    print(f"ok: check_common catches a chart rendered with a writable root FS and 1 replica: {sorted(got - base_failure)}")

    # --- Helm and kustomize agree on the webhook registration and the Deployment
    for overlay, v in (("manifests/overlays/self-signed", "self-signed.yaml"), ("manifests/overlays/cert-manager", "cert-manager.yaml")):
        kdocs, hdocs = kustomize(overlay), template(v)
        kw = one(kdocs, "ValidatingWebhookConfiguration", "rayjob-guard")["webhooks"]
        hw = one(hdocs, "ValidatingWebhookConfiguration", "rayjob-guard")["webhooks"]
        check(len(kw) == len(hw) == 1, "one webhook each")
        for field in ("name", "rules", "failurePolicy", "matchPolicy", "matchConditions", "sideEffects",
                      "timeoutSeconds", "namespaceSelector", "objectSelector", "admissionReviewVersions"):
            check(kw[0].get(field) == hw[0].get(field),
                  f"{overlay} vs values/{v}: webhook {field}: kustomize {kw[0].get(field)!r} != helm {hw[0].get(field)!r}")
        check(kw[0]["clientConfig"].get("service") == hw[0]["clientConfig"].get("service"), "clientConfig.service agrees")
        kann = one(kdocs, "ValidatingWebhookConfiguration", "rayjob-guard")["metadata"].get("annotations", {}).get("cert-manager.io/inject-ca-from")
        hann = one(hdocs, "ValidatingWebhookConfiguration", "rayjob-guard")["metadata"].get("annotations", {}).get("cert-manager.io/inject-ca-from")
        check(kann == hann, f"cert-manager inject-ca-from agrees: {kann} vs {hann}")
        kd = one(kdocs, "Deployment", "rayjob-guard", NS)["spec"]
        hd = one(hdocs, "Deployment", "rayjob-guard", NS)["spec"]
        kp, hp = kd["template"]["spec"], hd["template"]["spec"]
        for field in ("replicas", "strategy", "selector"):
            check(kd.get(field) == hd.get(field), f"Deployment {field}: {kd.get(field)} != {hd.get(field)}")
        for field in ("securityContext", "serviceAccountName", "automountServiceAccountToken",
                      "terminationGracePeriodSeconds", "enableServiceLinks", "topologySpreadConstraints", "volumes"):
            check(kp.get(field) == hp.get(field), f"pod {field}: kustomize {kp.get(field)!r} != helm {hp.get(field)!r}")
        # The chart names its PriorityClass per release and value (kustomize installs one per
        # cluster under a fixed name); the value must agree.
        kpc = one(kdocs, "PriorityClass", kp["priorityClassName"])
        hpc = one(hdocs, "PriorityClass", hp["priorityClassName"])
        check(kpc["value"] == hpc["value"], f"PriorityClass value: kustomize {kpc['value']} != helm {hpc['value']}")
        kc, hc = kp["containers"][0], hp["containers"][0]
        for field in ("args", "ports", "securityContext", "resources", "livenessProbe", "readinessProbe",
                      "startupProbe", "volumeMounts", "imagePullPolicy"):
            check(kc.get(field) == hc.get(field), f"container {field}: kustomize {kc.get(field)!r} != helm {hc.get(field)!r}")
        check(kc["image"] == hc["image"], f"image {kc['image']} == {hc['image']} (tag = appVersion)")
        for kind in ("Service", "PodDisruptionBudget"):
            ks, hs = one(kdocs, kind, "rayjob-guard", NS)["spec"], one(hdocs, kind, "rayjob-guard", NS)["spec"]
            check(ks == hs, f"{kind} spec: {ks} != {hs}")
        print(f"ok: {overlay} and values/{v} agree: webhook rules, failurePolicy, matchPolicy, matchConditions, "
              "sideEffects, timeoutSeconds, namespaceSelector, admissionReviewVersions; Deployment probes, ports, "
              "security contexts, args, resources, volumes; Service, PDB")

    # --- the policy: equal to manifests/base/policy.yaml, valid for the binary, rule actions merged
    docs = template("self-signed.yaml")
    cm = one(docs, "ConfigMap", "rayjob-guard-policy", NS)
    check(yaml.safe_load(cm["data"]["policy.yaml"]) == yaml.safe_load(open(os.path.join(REPO, "manifests", "base", "policy.yaml"))),
          "chart policy equals manifests/base/policy.yaml")
    print("ok: chart default policy equals manifests/base/policy.yaml")
    for v, sets in (("self-signed.yaml", ()), ("reaper-namespaced.yaml", ()),
                    ("self-signed.yaml", ("ruleActions.image-pinned=enforce", "ruleActions.backoff-limit=off"))):
        docs = template(v, sets=sets)
        text = one(docs, "ConfigMap", "rayjob-guard-policy", NS)["data"]["policy.yaml"]
        path = os.path.join(WORK, "policy.yaml")
        with open(path, "w") as f:
            f.write(text)
        code, out, err = offline([RJG, "policy", "validate", path], expect_ok=False)
        check(code == 0, f"rayjob-guard policy validate (values/{v} {sets}): exit {code}: {out}{err}")
        rules = yaml.safe_load(text).get("rules", {})
        if sets:
            check(rules == {"image-pinned": "enforce", "backoff-limit": "off"}, f"ruleActions merged over policy.rules: {rules}")
        print(f"ok: values/{v} {' '.join(sets)}: policy validates (rules {rules})")
    # The validation is real: a policy the binary refuses is refused.
    # A cross-field rule the schema cannot express (deletionPolicy needs KubeRay 1.3 or 1.4; the
    # chart's is 1.6): it renders, and the binary refuses it (misspellings: schema_test.py).
    docs = template("self-signed.yaml", sets=("policy.lifecycle.mode=deletionPolicy",))
    with open(os.path.join(WORK, "bad-policy.yaml"), "w") as f:
        f.write(one(docs, "ConfigMap", "rayjob-guard-policy", NS)["data"]["policy.yaml"])
    code, out, err = offline([RJG, "policy", "validate", os.path.join(WORK, "bad-policy.yaml")], expect_ok=False)
    check(code != 0, "rayjob-guard policy validate refuses lifecycle.mode deletionPolicy on KubeRay 1.6")
    print(f"ok: a bad policy value is refused by policy validate: {(err or out).strip().splitlines()[0]}")

    # --- values.schema.json refuses bad values with the field named
    for sets, field in ((("ruleActions.image-pinned=deny",), "ruleActions"),
                        (("resources.limits.cpu=1",), "limits"),
                        (("webhook.failurePolicy=Sometimes",), "failurePolicy"),
                        (("policy.kind=Other",), "kind"),
                        (("replicas=0",), "replicas"),
                        (("webhook.extraNamespaceSelectorExpressions[0].key=a", "webhook.extraNamespaceSelectorExpressions[0].operator=In"), "operator"),
                        (("monitoring.prometheusRule.latencyP99Seconds=1",), "latencyP99Seconds")):
        code, _, err = template("self-signed.yaml", sets=sets, expect_ok=False)
        check(code != 0 and field in err, f"schema refuses {sets}: exit {code} {err.strip()}")
        print(f"ok: refused {' '.join(sets)}")

    # --- cert-manager: the same chain as the overlay, no caBundle
    docs = template("cert-manager.yaml")
    vwc = one(docs, "ValidatingWebhookConfiguration", "rayjob-guard")
    check("caBundle" not in vwc["webhooks"][0]["clientConfig"], "cert-manager: caBundle left to the cainjector")
    serving = one(docs, "Certificate", "rayjob-guard-serving", NS)
    kserving = one(kustomize("manifests/overlays/cert-manager"), "Certificate", "rayjob-guard-serving", NS)
    check(serving["spec"] == kserving["spec"], f"serving Certificate agrees with the overlay: {serving['spec']}")
    check(not [d for d in docs if d["kind"] == "Secret"], "no Secret rendered")
    print("ok: cert-manager: Issuer -> CA -> CA Issuer -> serving Certificate equal to the overlay's, caBundle injected")
    docs = template("self-signed.yaml")
    check(not [d for d in docs if d["apiVersion"].startswith("cert-manager.io/")], "self-signed: no cert-manager objects")
    check(one(docs, "ValidatingWebhookConfiguration", "rayjob-guard")["webhooks"][0]["clientConfig"]["caBundle"] == "Q0EgUEVNIHBsYWNlaG9sZGVy",
          "self-signed: caBundle from webhook.caBundle")
    print("ok: self-signed: no cert-manager objects, caBundle from values")

    # --- the reaper, cluster-wide and namespaced, against manifests/reaper
    kr = kustomize("manifests/reaper")
    kcron = one(kr, "CronJob", "rayjob-guard-reaper", NS)["spec"]
    docs = template("monitoring.yaml")
    cron = one(docs, "CronJob", "rayjob-guard-reaper", NS)["spec"]
    for field in ("schedule", "concurrencyPolicy", "startingDeadlineSeconds"):
        check(cron[field] == kcron[field], f"reaper {field} agrees")
    kc = kcron["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    hc = cron["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    check(kc["args"] == hc["args"], f"reaper args agree: {hc['args']}")
    check(one(kr, "ClusterRole", "rayjob-guard-reaper")["rules"] == one(docs, "ClusterRole", "rayjob-guard-reaper")["rules"],
          "reaper ClusterRole rules agree")
    kn = kustomize("manifests/reaper/namespaced")
    docs = template("reaper-namespaced.yaml")
    ncron = one(docs, "CronJob", "rayjob-guard-reaper", NS)["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    kncron = one(kn, "CronJob", "rayjob-guard-reaper", NS)["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    check(ncron["args"] == kncron["args"], f"namespaced reaper args agree: {ncron['args']}")
    check(one(docs, "Role", "rayjob-guard-reaper", "tenant-a")["rules"] == one(kn, "Role", "rayjob-guard-reaper", "tenant-a")["rules"],
          "namespaced reaper Role agrees")
    check(not [d for d in docs if d["kind"] == "ClusterRole"], "namespaced reaper: no ClusterRole")
    def reaper_cronjobs(sets):
        return [d for d in template("self-signed.yaml", sets=sets)
                if d["kind"] == "CronJob" and d["metadata"]["name"] == "rayjob-guard-reaper"]
    check(len(reaper_cronjobs(())) == 1,
          "reaper on by default: the default policy's kueue.lifecycleMode (reaper) relies on it")
    check(len(reaper_cronjobs(("policy.kueue.lifecycleMode=operatorDeletesRayJob",))) == 0,
          "reaper off when neither lifecycle mode is reaper and reaper.enabled is not set")
    check(len(reaper_cronjobs(("policy.kueue.lifecycleMode=operatorDeletesRayJob",
                               "policy.lifecycle.mode=reaper"))) == 1,
          "reaper rendered when policy.lifecycle.mode is reaper, reaper.enabled or not")
    for overlay in ("manifests/overlays/self-signed", "manifests/overlays/cert-manager"):
        check(len([d for d in kustomize(overlay) if d["kind"] == "CronJob"
                   and d["metadata"]["name"] == "rayjob-guard-reaper"]) == 1,
              f"{overlay} runs the reaper its base policy relies on")
    print("ok: reaper: CronJob and RBAC agree with manifests/reaper and manifests/reaper/namespaced; on "
          "whenever the policy's lifecycle mode or Kueue mode relies on it (the default), in the "
          "chart and in both overlays")

    # --- the audit, against manifests/audit
    ka = kustomize("manifests/audit")
    docs = template("monitoring.yaml")
    kspec = one(ka, "CronJob", "rayjob-guard-audit", NS)["spec"]
    hspec = one(docs, "CronJob", "rayjob-guard-audit", NS)["spec"]
    for field in ("schedule", "concurrencyPolicy", "startingDeadlineSeconds"):
        check(hspec[field] == kspec[field], f"audit {field} agrees")
    kpod = kspec["jobTemplate"]["spec"]["template"]["spec"]
    hpod = hspec["jobTemplate"]["spec"]["template"]["spec"]
    check(hpod["containers"][0]["args"] == kpod["containers"][0]["args"],
          f"audit args agree: {hpod['containers'][0]['args']}")
    check(hpod["serviceAccountName"] == "rayjob-guard-audit" and
          hpod["volumes"][0]["configMap"]["name"] == "rayjob-guard-policy",
          "audit runs as its ServiceAccount with the webhook's policy ConfigMap")
    rules = one(docs, "ClusterRole", "rayjob-guard-audit")["rules"]
    check(one(ka, "ClusterRole", "rayjob-guard-audit")["rules"] == rules, "audit ClusterRole rules agree")
    writes = [r for r in rules if set(r["verbs"]) - {"get", "list"}]
    check(writes == [{"apiGroups": ["openreports.io"], "resources": ["reports"],
                      "verbs": ["list", "create", "patch", "delete"]}],
          f"audit writes nothing but its openreports.io Reports: {writes}")
    check(hpod["containers"][0]["args"][:3] == ["audit", "--all-namespaces", "--write-reports"],
          "audit writes its reports by default")
    read_only = template("monitoring.yaml", sets=("audit.graceSeconds=900", "audit.output=policyreport",
                                                  "audit.writeReports=false"))
    args = one(read_only, "CronJob", "rayjob-guard-audit", NS)["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"]
    check(args[:6] == ["audit", "--all-namespaces", "-o", "policyreport", "--grace", "900"],
          f"audit values reach its args: {args}")
    check(all(set(r["verbs"]) <= {"get", "list"} for r in one(read_only, "ClusterRole", "rayjob-guard-audit")["rules"]),
          "audit.writeReports=false: read-only RBAC")
    check(not [d for d in template("self-signed.yaml")
               if (d["metadata"].get("labels") or {}).get("app.kubernetes.io/component") == "audit"],
          "audit off by default: no audit ServiceAccount, RBAC or CronJob")
    print("ok: audit: CronJob and RBAC agree with manifests/audit; it writes only its Reports, and nothing "
          "with writeReports=false; values reach its args; off by default")

    # --- quota from the cluster: read access to ResourceQuotas and a token, as manifests/cluster-quota
    component = [d for d in yaml.safe_load_all(open(os.path.join(REPO, "manifests", "cluster-quota", "rbac.yaml"))) if d]
    live = template("self-signed.yaml", sets=("policy.quota.source=cluster",))
    role = one(live, "ClusterRole", "rayjob-guard-quota-reader")
    check(role["rules"] == one(component, "ClusterRole", "rayjob-guard-quota-reader")["rules"]
          == [{"apiGroups": [""], "resources": ["resourcequotas"], "verbs": ["get", "list", "watch"]},
              {"apiGroups": ["kueue.x-k8s.io"], "resources": ["localqueues", "clusterqueues"],
               "verbs": ["get", "list", "watch"]}],
          f"quota.source cluster: get, list, watch resourcequotas, localqueues and clusterqueues, "
          f"as manifests/cluster-quota ({role['rules']})")
    binding = one(live, "ClusterRoleBinding", "rayjob-guard-quota-reader")
    check(binding["subjects"] == [{"kind": "ServiceAccount", "name": "rayjob-guard", "namespace": NS}]
          and binding["roleRef"]["name"] == "rayjob-guard-quota-reader", "the binding names the webhook's ServiceAccount")
    check(one(live, "Deployment", "rayjob-guard", NS)["spec"]["template"]["spec"]["automountServiceAccountToken"] is True,
          "quota.source cluster: the webhook mounts its token")
    plain = template("self-signed.yaml")
    check(not [d for d in plain if d["kind"] in ("ClusterRole", "ClusterRoleBinding") and "quota-reader" in d["metadata"]["name"]]
          and one(plain, "Deployment", "rayjob-guard", NS)["spec"]["template"]["spec"]["automountServiceAccountToken"] is False,
          "quota from the policy (the default): no RBAC, no token")
    print("ok: quota.source cluster renders the ResourceQuota reader RBAC of manifests/cluster-quota and mounts "
          "the token; the default renders neither")

    # --- monitoring: opt-in, ServiceMonitor on the metrics port, PrometheusRule valid for promtool
    check(not [d for d in template("cert-manager.yaml") if d["apiVersion"].startswith("monitoring.coreos.com/")],
          "no monitoring objects by default")
    docs = template("monitoring.yaml")
    sm = one(docs, "ServiceMonitor", "rayjob-guard", NS)
    svc = one(docs, "Service", "rayjob-guard", NS)
    check(sm["spec"]["endpoints"][0]["port"] in [p["name"] for p in svc["spec"]["ports"]], "ServiceMonitor port is a Service port")
    check(sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items(), "ServiceMonitor selects the Service")
    check(sm["metadata"]["labels"].get("release") == "prometheus", "ServiceMonitor additionalLabels")
    rule = one(docs, "PrometheusRule", "rayjob-guard", NS)
    path = os.path.join(WORK, "rules.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(rule["spec"], f)
    promtool = need("promtool", "the Debian package prometheus, in scripts/install-deps.sh")
    code, out, err = offline([promtool, "check", "rules", path], expect_ok=False)
    check(code == 0, f"promtool check rules: {out}{err}")
    alerts = [x["alert"] for g in rule["spec"]["groups"] for x in g["rules"] if "alert" in x]
    check(all(x.get("annotations", {}).get(k) for g in rule["spec"]["groups"] for x in g["rules"] if "alert" in x
              for k in ("summary", "description", "runbook_url")), "every alert has summary, description, runbook_url")
    print(f"ok: monitoring: ServiceMonitor on Service port metrics; PrometheusRule passes promtool check rules ({len(alerts)} alerts)")
    print(f"PASS: {checks_passed()} checks")


if __name__ == "__main__":
    main()
