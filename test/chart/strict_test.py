#!/usr/bin/python3
"""The chart's rendered objects, strictly, and each Helm-hygiene fix of issue 28 at render time:

- strict YAML: `helm template` over every values file (and values that would collide with the
  chart's own labels) parses with duplicate mapping keys refused;
- strict schemas, offline: every object of a built-in kind validates against the definitions of
  the pinned Kubernetes module's OpenAPI (api/openapi-spec/swagger.json of
  k8s.io/kubernetes@KUBERNETES_VERSION), made strict like kubeconform -strict (unknown fields
  refused, int-or-string and quantities as the apiserver takes them); objects of CRD kinds are
  listed and left to the other tests;
- the selector carries app.kubernetes.io/instance and two releases never select each other's pods;
  the PriorityClass is named per release and per value; no PDB with one replica; no Namespace;
  the pre-delete hook that removes the webhook registration; the `helm test` RayJob, which
  `rayjob-guard check` admits under the chart's default policy; server.port, hostNetwork,
  dnsPolicy, podLabels, podAnnotations, an existing cert-manager issuerRef, the NetworkPolicy.

usage: strict_test.py REPO HELM SWAGGER_JSON RAYJOB_GUARD WORK_DIR
"""
import copy
import json
import os
import sys

import jsonschema
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, checks_passed, run  # noqa: E402
from chartlib import Chart, StrictLoader, is_hook  # noqa: E402

REPO, HELM, SWAGGER, RJG, WORK = (os.path.abspath(a) if i != 1 else a for i, a in enumerate(sys.argv[1:6]))
CHART = os.path.join(REPO, "charts", "rayjob-guard")
VALUES = os.path.join(REPO, "test", "chart", "values")
S = Chart(HELM, CHART, WORK)
CRD_GROUPS = ("cert-manager.io", "monitoring.coreos.com", "ray.io")


def values(name):
    return os.path.join(VALUES, name)


def strict_definitions():
    """swagger.json's definitions, strict: objects refuse unknown fields."""
    with open(SWAGGER) as f:
        defs = json.load(f)["definitions"]

    def tighten(node):
        if isinstance(node, dict):
            if node.get("format") == "int-or-string":
                node.pop("type", None)
                node["type"] = ["integer", "string"]
            if "properties" in node and "additionalProperties" not in node \
                    and not node.get("x-kubernetes-preserve-unknown-fields"):
                node["additionalProperties"] = False
            for v in node.values():
                tighten(v)
        elif isinstance(node, list):
            for v in node:
                tighten(v)
    tighten(defs)
    defs["io.k8s.apimachinery.pkg.api.resource.Quantity"] = {"type": ["string", "number"]}
    by_gvk = {}
    for name, d in defs.items():
        for gvk in d.get("x-kubernetes-group-version-kind", []):
            api = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            by_gvk[(api, gvk["kind"])] = name
    return defs, by_gvk


DEFS, BY_GVK = strict_definitions()


def openapi_errors(doc):
    """The schema errors of one object, or None for a kind the OpenAPI does not define (a CRD)."""
    name = BY_GVK.get((doc["apiVersion"], doc["kind"]))
    if name is None:
        return None
    v = jsonschema.Draft4Validator({"$ref": f"#/definitions/{name}", "definitions": DEFS})
    return [f"{'.'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in v.iter_errors(doc)]


def check_openapi(docs, what):
    crd = []
    for d in docs:
        errors = openapi_errors(d)
        if errors is None:
            check(d["apiVersion"].split("/")[0] in CRD_GROUPS, f"{what}: {d['apiVersion']} {d['kind']} is neither built in nor a known CRD")
            crd.append(d["kind"])
            continue
        check(not errors, f"{what}: {d['kind']} {d['metadata']['name']} fails the pinned Kubernetes OpenAPI, strict: {errors[:5]}")
    return crd


def one(docs, kind, name=None, hooks=False):
    hits = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)
            and is_hook(d) == hooks]
    check(len(hits) == 1, f"exactly one {kind} {name or ''} (hooks {hooks}), found {len(hits)}")
    return hits[0]


def main():
    # --- strict YAML and strict OpenAPI, every values file and the optional parts switched on
    variants = [(v, ()) for v in sorted(os.listdir(VALUES))] + [
        ("self-signed.yaml", ("networkPolicy.enabled=true", "hostNetwork=true", "server.port=9443",
                              "podLabels.app\\.kubernetes\\.io/name=clash", "podLabels.team=ml",
                              "podAnnotations.owner=platform", "replicas=1")),
        ("cert-manager.yaml", ("certificates.certManager.issuerRef.name=corp-ca",
                               "certificates.certManager.issuerRef.kind=ClusterIssuer")),
    ]
    crd_kinds = set()
    for v, sets in variants:
        docs = S.template(values(v), sets=sets)
        crd_kinds |= set(check_openapi(docs, f"values/{v} {' '.join(sets)}"))
        print(f"ok: values/{v} {' '.join(sets)}: {len(docs)} objects parse strictly (no duplicate key) and "
              f"pass the pinned OpenAPI, strict")
    print(f"ok: CRD kinds left to the other tests: {', '.join(sorted(crd_kinds))}")
    # Both checks bite: a duplicate key and an unknown field are refused.
    try:
        list(yaml.load_all("metadata:\n  labels:\n    a: x\n    a: y\n", Loader=StrictLoader))
        refused = False
    except yaml.YAMLError:
        refused = True
    check(refused, "the strict loader refuses a duplicate key")
    docs = S.template(values("self-signed.yaml"), extra=("--set-json", 'tolerations=[{"keyy":"x"}]'))
    errors = openapi_errors(one(docs, "Deployment"))
    check(errors and any("keyy" in e for e in errors), f"the strict OpenAPI check refuses tolerations[0].keyy: {errors}")
    print(f"ok: the checks bite: a duplicate key is refused; tolerations[0].keyy is refused: {errors[0]}")

    # --- selector with the instance; two releases select only their own pods
    a = S.template(values("self-signed.yaml"), release="rg-a", namespace="team-a")
    b = S.template(values("self-signed.yaml"), release="rg-b", namespace="team-b")
    da, db = one(a, "Deployment"), one(b, "Deployment")
    sel_a = da["spec"]["selector"]["matchLabels"]
    check(sel_a.get("app.kubernetes.io/instance") == "rg-a", f"the selector carries app.kubernetes.io/instance: {sel_a}")
    check(not sel_a.items() <= db["spec"]["template"]["metadata"]["labels"].items(), "release rg-a's selector does not select rg-b's pods")
    for kind in ("Service", "PodDisruptionBudget"):
        s = one(a, kind)["spec"]
        sel = s.get("selector", {}).get("matchLabels", s.get("selector"))
        check(sel.get("app.kubernetes.io/instance") == "rg-a", f"{kind} selects by instance too: {sel}")
    print(f"ok: selector {sel_a}; releases rg-a and rg-b select only their own pods (Deployment, Service, PDB)")

    # --- PriorityClass per release and per value, the pods use it
    pa, pb = one(a, "PriorityClass")["metadata"]["name"], one(b, "PriorityClass")["metadata"]["name"]
    check(pa != pb, f"two releases get two PriorityClasses: {pa} {pb}")
    check(da["spec"]["template"]["spec"]["priorityClassName"] == pa, "the pods use the release's PriorityClass")
    c = S.template(values("self-signed.yaml"), sets=("priorityClass.value=2000",), release="rg-a", namespace="team-a")
    pc = one(c, "PriorityClass")
    check(pc["metadata"]["name"] != pa and pc["value"] == 2000, f"a new value is a new PriorityClass: {pc['metadata']['name']}")
    e = S.template(values("self-signed.yaml"), sets=("priorityClass.create=false", "priorityClass.name=existing"))
    check(not [d for d in e if d["kind"] == "PriorityClass"] and
          one(e, "Deployment")["spec"]["template"]["spec"]["priorityClassName"] == "existing", "priorityClass.create=false uses name")
    print(f"ok: PriorityClass {pa} / {pb} per release, {pc['metadata']['name']} for value 2000; create=false uses an existing one")

    # --- PDB only when replicas > minAvailable; never a Namespace
    for replicas, want in ((1, 0), (2, 1), (3, 1)):
        docs = S.template(values("self-signed.yaml"), sets=(f"replicas={replicas}",))
        n = len([d for d in docs if d["kind"] == "PodDisruptionBudget"])
        check(n == want, f"replicas={replicas}: {n} PDBs, want {want}")
        check(not [d for d in docs if d["kind"] == "Namespace"], "the chart renders no Namespace")
    print("ok: no PodDisruptionBudget with 1 replica (it would block every drain), one with 2 and 3; no Namespace object")

    # --- the pre-delete hook: same name as the registration, no webhooks, deleted before creation
    docs = S.template(values("self-signed.yaml"))
    real = one(docs, "ValidatingWebhookConfiguration")
    hook = one(docs, "ValidatingWebhookConfiguration", hooks=True)
    ann = hook["metadata"]["annotations"]
    check(hook["metadata"]["name"] == real["metadata"]["name"] and ann["helm.sh/hook"] == "pre-delete"
          and "before-hook-creation" in ann["helm.sh/hook-delete-policy"] and not hook.get("webhooks"),
          f"pre-delete hook replaces the registration by name with an empty one: {hook}")
    print(f"ok: pre-delete hook: ValidatingWebhookConfiguration {hook['metadata']['name']}, no webhooks, {ann['helm.sh/hook-delete-policy']}")

    # --- helm test: a RayJob the default policy admits
    test = one(docs, "RayJob", hooks=True)
    check(test["metadata"]["annotations"]["helm.sh/hook"] == "test" and test["spec"].get("managedBy") == "kueue.x-k8s.io/multikueue",
          "the test RayJob is a test hook the KubeRay operator leaves alone (managedBy MultiKueue)")
    path = os.path.join(WORK, "test-rayjob.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(test, f)
    policy_path = os.path.join(WORK, "policy.yaml")
    with open(policy_path, "w") as f:
        f.write(one(docs, "ConfigMap")["data"]["policy.yaml"])
    code, out, err = run([RJG, "check", "--policy", policy_path, "-n", test["metadata"]["namespace"], path])
    check(code == 0, f"rayjob-guard check admits the helm test RayJob under the chart's policy: exit {code}: {out}{err}")
    check(not [d for d in S.template(values("self-signed.yaml"), sets=("tests.enabled=false",)) if d["kind"] == "RayJob"],
          "tests.enabled=false renders no test")
    print(f"ok: helm test RayJob {test['metadata']['namespace']}/{test['metadata']['name']}: admitted by `rayjob-guard check` under the chart's policy")

    # --- port, hostNetwork, dnsPolicy, pod labels and annotations
    docs = S.template(values("self-signed.yaml"), sets=(
        "server.port=9443", "server.probePort=9080", "hostNetwork=true", "podLabels.team=ml",
        "podLabels.app\\.kubernetes\\.io/name=clash", "podAnnotations.owner=platform"))
    pod = one(docs, "Deployment")["spec"]["template"]
    spec, cont = pod["spec"], pod["spec"]["containers"][0]
    check(spec["hostNetwork"] is True and spec["dnsPolicy"] == "ClusterFirstWithHostNet", "hostNetwork implies ClusterFirstWithHostNet")
    check({p["name"]: p["containerPort"] for p in cont["ports"]} == {"https": 9443, "probes": 9080}, f"ports: {cont['ports']}")
    check("0.0.0.0:9443" in cont["args"] and "0.0.0.0:9080" in cont["args"], f"serve listens on the ports: {cont['args']}")
    check(pod["metadata"]["labels"]["team"] == "ml" and pod["metadata"]["labels"]["app.kubernetes.io/name"] == "rayjob-guard",
          f"podLabels merged, the chart's selector labels win: {pod['metadata']['labels']}")
    check(pod["metadata"]["annotations"]["owner"] == "platform" and pod["metadata"]["annotations"]["prometheus.io/port"] == "9080",
          f"podAnnotations merged: {pod['metadata']['annotations']}")
    np = S.template(values("self-signed.yaml"), sets=("server.port=9443", "server.probePort=9080", "networkPolicy.enabled=true"),
                    extra=("--set-json", 'networkPolicy.metricsFrom=[{"namespaceSelector":{"matchLabels":{"name":"monitoring"}}}]'))
    netpol = one(np, "NetworkPolicy")["spec"]
    check([r["ports"][0]["port"] for r in netpol["ingress"]] == [9443, 9080] and "from" not in netpol["ingress"][0]
          and netpol["ingress"][1]["from"][0]["namespaceSelector"], f"NetworkPolicy ingress: {netpol['ingress']}")
    check(not [d for d in S.template(values("self-signed.yaml")) if d["kind"] == "NetworkPolicy"], "no NetworkPolicy by default")
    check("dnsPolicy" not in one(S.template(values("self-signed.yaml")), "Deployment")["spec"]["template"]["spec"], "no dnsPolicy by default")
    print("ok: server.port/probePort reach ports and args; hostNetwork with ClusterFirstWithHostNet; podLabels and "
          "podAnnotations merged without clashing; NetworkPolicy on the two ports, metricsFrom applied")

    # --- an existing cert-manager issuer
    docs = S.template(values("cert-manager.yaml"), sets=("certificates.certManager.issuerRef.name=corp-ca",
                                                         "certificates.certManager.issuerRef.kind=ClusterIssuer"))
    certs = [d for d in docs if d["kind"] in ("Certificate", "Issuer")]
    check(len(certs) == 1 and certs[0]["spec"]["issuerRef"] == {"name": "corp-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"},
          f"issuerRef: only the serving Certificate, signed by the existing issuer: {[c['kind'] for c in certs]}")
    print("ok: certificates.certManager.issuerRef: the serving Certificate is signed by ClusterIssuer corp-ca; no chart CA")
    print(f"PASS: {checks_passed()} checks")


if __name__ == "__main__":
    main()
