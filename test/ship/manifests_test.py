#!/usr/bin/python3
"""Renders manifests/ with `kubectl kustomize` (offline) and checks the rendered objects: webhook
registration, Deployment hardening and probes, volumes, PDB, Service, certificates per overlay,
the policy ConfigMap, the tenant quota. Prints each check; exit 1 on the first failure.

usage: manifests_test.py REPO_DIR [KUBECTL]
"""
import os
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, checks_passed, fail, need, run  # noqa: E402

REPO = os.path.abspath(sys.argv[1])
KUBECTL = sys.argv[2] if len(sys.argv) > 2 else "kubectl"
NS, NAME = "rayjob-guard", "rayjob-guard"


def render(rel):
    env = dict(os.environ, KUBECONFIG=os.devnull)  # no cluster: kustomize must not need one
    code, out, err = run([KUBECTL, "kustomize", os.path.join(REPO, rel)], env=env)
    if code != 0:
        fail(f"kubectl kustomize {rel}: {err.strip()}")
    docs = [d for d in yaml.safe_load_all(out) if d]
    print(f"rendered {rel}: {len(docs)} objects ({', '.join(sorted({d['kind'] for d in docs}))})")
    return docs


def one(docs, kind, name, namespace=None):
    hits = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name
            and d["metadata"].get("namespace") == namespace]
    check(len(hits) == 1, f"exactly one {kind} {namespace}/{name}, found {len(hits)}")
    return hits[0]


def flag(args, name):
    check(name in args and args.index(name) + 1 < len(args), f"container args carry {name} VALUE")
    return args[args.index(name) + 1]


def check_common(docs, label):
    one(docs, "Namespace", NS)
    sa = one(docs, "ServiceAccount", NAME, NS)
    check(sa.get("automountServiceAccountToken") is False, "ServiceAccount does not automount a token")

    # --- ValidatingWebhookConfiguration
    vwc = one(docs, "ValidatingWebhookConfiguration", NAME)
    check(len(vwc["webhooks"]) == 1, "one webhook entry")
    wh = vwc["webhooks"][0]
    check(wh["name"] == "vrayjob.rayjob-guard.io", "webhook name vrayjob.rayjob-guard.io")
    check(wh["rules"] == [{"apiGroups": ["ray.io"], "apiVersions": ["v1"], "resources": ["rayjobs"],
                           "operations": ["CREATE", "UPDATE"], "scope": "Namespaced"}],
          f"rules: ray.io/v1 rayjobs CREATE+UPDATE Namespaced only, got {wh['rules']}")
    check(wh.get("matchPolicy") == "Equivalent", "matchPolicy Equivalent")
    check(wh.get("failurePolicy") == "Fail", "failurePolicy Fail")
    check(wh.get("sideEffects") == "None", "sideEffects None (dry-run requests are reviewed too)")
    check(wh.get("admissionReviewVersions") == ["v1"], "admissionReviewVersions [v1]")
    check(wh.get("timeoutSeconds") == 5, "timeoutSeconds 5")
    exprs = wh.get("namespaceSelector", {}).get("matchExpressions", [])
    check({"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system", NS]} in exprs,
          "namespaceSelector excludes kube-system and rayjob-guard by kubernetes.io/metadata.name NotIn")
    check(all(e["operator"] in ("NotIn", "DoesNotExist") for e in exprs), "namespaceSelector only excludes")
    check("objectSelector" not in wh or not wh["objectSelector"], "no objectSelector (tenants control their own labels)")
    # One condition, on the object only: skip RayJobs already being deleted, so the operator's
    # finalizer-removing UPDATE never waits for the webhook. Nothing may look at who sends it.
    conds = wh.get("matchConditions", [])
    check(conds == [{"name": "not-being-deleted", "expression": "!has(object.metadata.deletionTimestamp)"}],
          f"matchConditions is exactly not-being-deleted (!has(object.metadata.deletionTimestamp)), got {conds}")
    check(all("request" not in c.get("expression", "") and "userInfo" not in c.get("expression", "")
              for c in conds), "no matchCondition reads the request or userInfo: no identity-based exemptions")
    svc_ref = wh["clientConfig"].get("service", {})
    check(svc_ref == {"name": NAME, "namespace": NS, "port": 443, "path": "/validate"},
          f"clientConfig.service {NS}/{NAME}:443/validate, got {svc_ref}")
    check("url" not in wh["clientConfig"], "no clientConfig.url")

    # --- Deployment
    dep = one(docs, "Deployment", NAME, NS)
    spec, pod = dep["spec"], dep["spec"]["template"]["spec"]
    labels = dep["spec"]["template"]["metadata"]["labels"]
    check(spec["replicas"] >= 2, "Deployment has at least 2 replicas")
    check(all(labels.get(k) == v for k, v in spec["selector"]["matchLabels"].items()), "selector matches pod labels")
    spread = [t for t in pod.get("topologySpreadConstraints", [])
              if t["topologyKey"] == "kubernetes.io/hostname" and t["whenUnsatisfiable"] == "DoNotSchedule"]
    anti = pod.get("affinity", {}).get("podAntiAffinity")
    check(spread or anti, "replicas spread over nodes (topologySpreadConstraints on hostname or podAntiAffinity)")
    check(spec.get("strategy", {}).get("rollingUpdate", {}).get("maxUnavailable") == 0, "rolling update never drops below replicas")
    pc = pod.get("priorityClassName")
    check(bool(pc), "priorityClassName set")
    if not pc.startswith("system-"):
        prio = one(docs, "PriorityClass", pc)
        check(prio["value"] < 2000000000 and prio.get("globalDefault") is not True,
              f"own PriorityClass {pc} below system-cluster-critical and not the global default")
    psc = pod["securityContext"]
    check(psc.get("runAsNonRoot") is True and psc.get("runAsUser") == 65532, "pod runs as non-root user 65532")
    check(psc.get("seccompProfile", {}).get("type") == "RuntimeDefault", "pod seccomp RuntimeDefault")
    check(pod.get("automountServiceAccountToken") is False, "no service account token mounted")
    check(len(pod["containers"]) == 1, "one container")
    c = pod["containers"][0]
    sc = c["securityContext"]
    check(sc.get("runAsNonRoot") is True and sc.get("runAsUser") == 65532, "container runAsNonRoot, numeric user 65532")
    check(sc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem")
    check(sc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation false")
    check(sc.get("capabilities", {}).get("drop") == ["ALL"] and not sc["capabilities"].get("add"), "capabilities drop ALL")
    check(sc.get("seccompProfile", {}).get("type") == "RuntimeDefault", "container seccomp RuntimeDefault")
    res = c["resources"]
    check("cpu" in res.get("requests", {}) and "memory" in res.get("requests", {}), "cpu and memory requests")
    check("cpu" not in res.get("limits", {}), "no CPU limit (CFS throttling -> webhook timeouts)")
    check("memory" in res.get("limits", {}), "memory limit")

    args = c["args"]
    check(args[0] == "serve", "container runs `serve`")
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    listen, probe = flag(args, "--listen"), flag(args, "--probe-listen")
    check(listen == f"0.0.0.0:{ports['https']}", f"--listen {listen} matches container port https {ports['https']}")
    check(probe == f"0.0.0.0:{ports['probes']}", f"--probe-listen {probe} matches container port probes")
    check(ports["https"] == 8443 and ports["probes"] == 8080, "ports 8443 (https) and 8080 (probes)")
    check(flag(args, "--log-format") == "json", "--log-format json")
    for probe_name, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        p = c.get(probe_name, {}).get("httpGet", {})
        port = p.get("port")
        port = ports.get(port, port)
        check(p.get("path") == path and port == ports["probes"] and p.get("scheme", "HTTP") == "HTTP",
              f"{probe_name} GET {path} on the plain probe port")
    delay, timeout = float(flag(args, "--shutdown-delay")), float(flag(args, "--shutdown-timeout"))
    check(pod["terminationGracePeriodSeconds"] > delay + timeout,
          f"terminationGracePeriodSeconds {pod['terminationGracePeriodSeconds']} > shutdown delay {delay} + timeout {timeout}")

    mounts = {m["name"]: m for m in c["volumeMounts"]}
    vols = {v["name"]: v for v in pod["volumes"]}
    check(all("subPath" not in m and "subPathExpr" not in m for m in c["volumeMounts"]),
          "no subPath mounts (Secret/ConfigMap updates reach the files)")
    check(all(m.get("readOnly") for m in c["volumeMounts"]), "mounts read-only")
    for flag_name, kind, key in (("--tls-cert", "secret", "tls.crt"), ("--tls-key", "secret", "tls.key"),
                                 ("--policy", "configMap", "policy.yaml")):
        path = flag(args, flag_name)
        mount = [m for m in mounts.values() if os.path.dirname(path) == m["mountPath"].rstrip("/")]
        check(len(mount) == 1 and os.path.basename(path) == key, f"{flag_name} {path} is {key} in a mounted directory")
        check(kind in vols[mount[0]["name"]], f"{flag_name} comes from a {kind} volume")
    tls_secret = vols[[m for m in mounts.values() if m["mountPath"] == os.path.dirname(flag(args, "--tls-cert"))][0]["name"]]["secret"]["secretName"]
    check(tls_secret == "rayjob-guard-tls", "TLS from Secret rayjob-guard-tls (what certs/mint-certs.sh writes)")

    # --- PDB, Service, policy ConfigMap
    pdb = one(docs, "PodDisruptionBudget", NAME, NS)
    check(pdb["spec"].get("minAvailable") == 1, "PDB minAvailable 1")
    check(pdb["spec"]["selector"]["matchLabels"].items() <= labels.items(), "PDB selects the webhook pods")
    svc = one(docs, "Service", NAME, NS)
    check(svc["spec"]["selector"].items() <= labels.items(), "Service selects the webhook pods")
    sp = {p["port"]: p for p in svc["spec"]["ports"]}
    target = sp.get(443, {}).get("targetPort")
    check(ports.get(target, target) == 8443, "Service 443 -> container 8443")
    cm = one(docs, "ConfigMap", "rayjob-guard-policy", NS)
    policy = yaml.safe_load(cm["data"]["policy.yaml"])
    check(policy.get("kind") == "Policy" and policy.get("apiVersion") == "rayjob-guard.io/v1", "ConfigMap holds a Policy")
    cm_vol = [v for v in vols.values() if "configMap" in v]
    check(cm_vol and cm_vol[0]["configMap"]["name"] == "rayjob-guard-policy", "policy volume is ConfigMap rayjob-guard-policy")
    check(not [d for d in docs if d["kind"] == "Secret"], "no Secret (private keys are never in manifests)")
    print(f"ok: {label}: webhook registration, Deployment, PDB, Service, policy ConfigMap")
    return vwc, dep, policy


def main():
    need(KUBECTL, "scripts/test.sh builds the pinned kubectl")
    base = render("manifests/base")
    _, _, policy = check_common(base, "base")
    default_file = os.path.join(REPO, "admission", "default_policy.yaml")
    if os.path.exists(default_file):
        with open(default_file) as f:
            check(yaml.safe_load(f) == policy, "ConfigMap policy equals admission/default_policy.yaml")
        print("ok: ConfigMap policy equals admission/default_policy.yaml")
    else:
        print("note: admission/default_policy.yaml not present yet; ConfigMap policy not compared")

    cm_docs = render("manifests/overlays/cert-manager")
    vwc, dep, _ = check_common(cm_docs, "overlays/cert-manager")
    ann = vwc["metadata"].get("annotations", {}).get("cert-manager.io/inject-ca-from", "")
    check("/" in ann, "cert-manager.io/inject-ca-from annotation set")
    cert_ns, cert_name = ann.split("/", 1)
    serving = one(cm_docs, "Certificate", cert_name, cert_ns)
    check(serving["spec"]["secretName"] == "rayjob-guard-tls", "serving Certificate writes Secret rayjob-guard-tls")
    check({"rayjob-guard.rayjob-guard.svc", "rayjob-guard.rayjob-guard.svc.cluster.local"} <= set(serving["spec"]["dnsNames"]),
          "serving Certificate SANs rayjob-guard.rayjob-guard.svc and .svc.cluster.local")
    pk = serving["spec"]["privateKey"]
    check(pk["algorithm"] == "ECDSA" and pk["size"] == 256, "serving key ECDSA P-256")
    check(pk.get("rotationPolicy") == "Always", "a fresh key on every renewal")

    def hours(d):
        check(d.endswith("h"), f"duration {d} in hours")
        return float(d[:-1])
    check(0 < hours(serving["spec"]["renewBefore"]) < hours(serving["spec"]["duration"]), "renewBefore shorter than duration")
    ca_issuer = one(cm_docs, "Issuer", serving["spec"]["issuerRef"]["name"], NS)
    check("ca" in ca_issuer["spec"], "serving Certificate issued by a CA Issuer")
    ca_cert = [d for d in cm_docs if d["kind"] == "Certificate" and d["spec"].get("secretName") == ca_issuer["spec"]["ca"]["secretName"]]
    check(len(ca_cert) == 1 and ca_cert[0]["spec"].get("isCA") is True, "the CA Issuer's Secret comes from an isCA Certificate")
    root = one(cm_docs, "Issuer", ca_cert[0]["spec"]["issuerRef"]["name"], NS)
    check("selfSigned" in root["spec"], "the CA Certificate is issued by a self-signed Issuer")
    print("ok: overlays/cert-manager: self-signed Issuer -> CA Certificate -> CA Issuer -> ECDSA serving Certificate, CA injected")

    ss_docs = render("manifests/overlays/self-signed")
    vwc, _, _ = check_common(ss_docs, "overlays/self-signed")
    check(not [d for d in ss_docs if d["apiVersion"].startswith("cert-manager.io/")], "self-signed overlay needs no cert-manager")
    check("cert-manager.io/inject-ca-from" not in vwc["metadata"].get("annotations", {}), "no cainjector annotation")
    check(vwc["webhooks"][0]["clientConfig"].get("caBundle", "") == "", "caBundle left for certs/inject-cabundle.sh")
    print("ok: overlays/self-signed: no cert-manager objects, caBundle filled by certs/inject-cabundle.sh")

    tenant = render("manifests/tenant")
    quotas = [d for d in tenant if d["kind"] == "ResourceQuota"]
    hard = {}
    for q in quotas:
        check(q["metadata"]["namespace"] == "tenant-a", "tenant quota in tenant-a")
        hard.update(q["spec"]["hard"])
    check("count/rayjobs.ray.io" in hard and "count/jobs.batch" in hard, "tenant quota counts RayJobs and Jobs")
    want = {k: str(v) for k, v in policy["quota"]["namespaces"]["tenant-a"].items()}
    got = {k: str(v) for k, v in hard.items() if k in want}
    check(got == want, f"tenant-a ResourceQuota compute {got} equals policy quota.namespaces.tenant-a {want}")
    print("ok: manifests/tenant: namespace, object-count and compute quota matching the policy")

    audit = render("manifests/audit")
    kinds = {d["kind"]: d for d in audit}
    rules = kinds["ClusterRole"]["rules"]
    reads = [r for r in rules if r["apiGroups"] != ["openreports.io"]]
    verbs = {v for r in reads for v in r["verbs"]}
    check(verbs == {"get", "list"}, f"manifests/audit: what audit reads, it only reads (verbs {sorted(verbs)})")
    granted = {(g, res) for r in reads for g in r["apiGroups"] for res in r["resources"]}
    check(granted == {("ray.io", "rayjobs"), ("ray.io", "rayclusters"), ("batch", "jobs"), ("", "pods"),
                      ("apps", "deployments")},  # the operator's Deployment, for operator-drift
          f"manifests/audit: the ClusterRole grants exactly what audit lists ({sorted(granted)})")
    writes = [r for r in rules if r not in reads]
    check(writes == [{"apiGroups": ["openreports.io"], "resources": ["reports"],
                      "verbs": ["list", "create", "patch", "delete"]}],
          f"manifests/audit: it writes its openreports.io Reports and nothing else ({writes})")
    pod = kinds["CronJob"]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    args = pod["containers"][0]["args"]
    check(args[:3] == ["audit", "--all-namespaces", "--write-reports"] and "--policy" in args,
          f"manifests/audit: the CronJob writes audit's reports cluster-wide with the webhook's policy ({args})")
    check(pod["serviceAccountName"] == kinds["ServiceAccount"]["metadata"]["name"]
          == kinds["ClusterRoleBinding"]["subjects"][0]["name"],
          "manifests/audit: the CronJob runs as the ServiceAccount the ClusterRole is bound to")
    check(pod["volumes"][0]["configMap"]["name"] == "rayjob-guard-policy",
          "manifests/audit: the CronJob mounts the webhook's policy ConfigMap")
    print("ok: manifests/audit: read-only RBAC but for its Reports, the hourly CronJob writing them on the webhook's policy")

    values = yaml.safe_load(open(os.path.join(REPO, "manifests", "kuberay", "values.yaml")))
    gates = {g["name"]: g["enabled"] for g in values["featureGates"]}
    check(gates.get("RayJobDeletionPolicy") is True and gates.get("RayClusterStatusConditions") is True,
          "KubeRay values enable RayJobDeletionPolicy and restate RayClusterStatusConditions in one list")
    print("ok: manifests/kuberay/values.yaml: featureGates list complete")
    print(f"PASS: {checks_passed()} checks")


if __name__ == "__main__":
    main()
