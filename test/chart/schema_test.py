#!/usr/bin/python3
"""One schema for the policy: admission/policy.schema.json is what the binary validates every
policy with, and charts/rayjob-guard/values.schema.json carries it (charts/generate.py --check:
the generated parts, the chart README and the values table in docs/install.md are current).
Then, for a table of policies, `helm template` (the values schema, as helm install/upgrade apply
it) and `rayjob-guard policy validate` (on the same policy rendered with
--skip-schema-validation) give the same answer; misspelt and mistyped values are refused before
anything renders; every object of values.schema.json refuses unknown keys and every value is typed.

usage: schema_test.py REPO HELM RAYJOB_GUARD WORK_DIR
"""
import json
import os
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, checks_passed, run  # noqa: E402
from chartlib import Chart  # noqa: E402

REPO, HELM, RJG, WORK = (os.path.abspath(a) if i != 1 else a for i, a in enumerate(sys.argv[1:5]))
CHART = os.path.join(REPO, "charts", "rayjob-guard")
BASE = os.path.join(REPO, "test", "chart", "values", "self-signed.yaml")
S = Chart(HELM, CHART, WORK)

# (--set, or --set-json with a leading "json:"), accepted?
POLICIES = [
    ("policy.rules.image-pinned=enforce", True),
    ("policy.lifecycle.mode=reaper", True),
    ("ruleActions.quota-fit=off", True),
    ("json:policy.kuberay={\"version\":\"1.7\",\"featureGates\":{\"RayClusterMTLS\":true}}", True),
    ("policy.rules.reap-slef=warn", False),                  # misspelt rule id
    ("ruleActions.image-pined=warn", False),                 # misspelt rule id, via ruleActions
    ("policy.rules.image-pinned=deny", False),               # wrong action
    ("policy.lifecycle.mode=deletionRule", False),           # misspelt lifecycle mode
    ("policy.lifecycle.mod=reaper", False),                  # misspelt lifecycle key
    ("policy.lifecycl.mode=reaper", False),                  # misspelt section
    ("policy.lifecycle.maxBackoffLimit=-1", False),
    ("policy.quota.unknownNamespace=allow", False),
    ("policy.quota.default.requests\\.cpu=lots", False),
    ("json:policy.images.deny=[{\"pattern\":\"x:*\"}]", False),  # reason missing
    ("json:policy.kuberay={\"version\":\"1.6\",\"featureGates\":{\"RayJobDeletionPolcy\":true}}", False),
    ("policy.apiVersion=rayjob-guard.io/v2", False),
    ("policy.quota.namespaces.Tenant_A.pods=1", False),      # not a namespace name: only the schema knows
    ("policy.quota.namespaces.tenant-b.pods=1", True),
]
# Values that are not the policy: misspelt keys and wrong enums.
BAD_VALUES = ["replica=3", "image.tags=v1", "webhook.failurePolicy=fail", "podDisruptionBudget.maxUnavailable=1",
              "namespace.create=true", "monitoring.prometheusRule.apiserver.enable=true", "server.port=0",
              "priorityClass.value=abc", "dnsPolicy=ClusterFirstWithHostNetwork",
              "certificates.certManager.issuerRef.kind=Issuers"]


def set_args(s):
    return ["--set-json", s[5:]] if s.startswith("json:") else ["--set", s]


def main():
    code, out, err = S.run([sys.executable, os.path.join(REPO, "charts", "generate.py"), "--check"], expect_ok=False)
    check(code == 0, f"charts/generate.py --check: values.schema.json, README.md or docs/install.md not current:\n{out}{err}")
    print("ok: values.schema.json carries admission/policy.schema.json; the chart README and docs/install.md's values table are current")
    with open(os.path.join(CHART, "values.schema.json")) as f:
        schema = json.load(f)
    with open(os.path.join(REPO, "admission", "policy.schema.json")) as f:
        policy = json.load(f)
    check(schema["properties"]["policy"]["properties"] == policy["properties"], "properties.policy is the policy schema's")
    check(all(schema["definitions"][k] == v for k, v in policy["definitions"].items()), "definitions.policy* are the policy schema's")

    agree = 0
    for s, accepted in POLICIES:
        base = ["template", "rayjob-guard", CHART, "-n", "rayjob-guard", "-f", BASE, *set_args(s)]
        helm_code, _, helm_err = S.run([HELM, *base], expect_ok=False)
        _, raw, _ = S.run([HELM, *base, "--skip-schema-validation", "--show-only", "templates/configmap-policy.yaml"])
        path = os.path.join(WORK, "policy.yaml")
        with open(path, "w") as f:
            f.write(yaml.safe_load(raw)["data"]["policy.yaml"])
        code, out, err = run([RJG, "policy", "validate", path])
        check((helm_code == 0) == accepted, f"{s}: helm template (values schema) exit {helm_code}, want "
              f"{'accepted' if accepted else 'refused'}: {helm_err.strip()[:300]}")
        check((code == 0) == accepted, f"{s}: rayjob-guard policy validate exit {code}, want "
              f"{'accepted' if accepted else 'refused'}: {out}{err}")
        agree += 1
        why = "" if accepted else f" | helm: {helm_err.strip().splitlines()[-1][:110]} | binary: {(out + err).strip().splitlines()[-1][:110]}"
        print(f"ok: {s}: {'accepted' if accepted else 'refused'} by both{why}")
    print(f"ok: the values schema and the binary agree on {agree} policies")

    for s in BAD_VALUES:
        code, _, err = S.run([HELM, "template", "rayjob-guard", CHART, "-n", "rayjob-guard", "-f", BASE, *set_args(s)],
                             expect_ok=False)
        check(code != 0 and "values don't meet the specifications of the schema" in err,
              f"{s}: refused by values.schema.json: exit {code} {err.strip()[:300]}")
        print(f"ok: {s}: refused ({err.strip().splitlines()[-1][:120]})")

    # Every object refuses unknown keys; every value has a type.
    untyped, open_objects, values = [], [], 0

    def resolve(node):
        while "$ref" in node:
            node = schema["definitions"][node["$ref"].split("/")[-1]]
        return node

    def walk(node, path):
        nonlocal values
        node = resolve(node)
        if "allOf" in node:
            node = resolve(node["allOf"][0])
        if not any(k in node for k in ("type", "enum", "const")):
            untyped.append(path)
        if "properties" in node:
            if node.get("additionalProperties") is not False:
                open_objects.append(path)
            for k, v in node["properties"].items():
                values += 1
                walk(v, f"{path}.{k}" if path else k)
    walk(schema, "")
    check(not untyped, f"values without a type: {untyped}")
    check(not open_objects, f"objects that accept unknown keys: {open_objects}")
    with open(os.path.join(CHART, "values.yaml")) as f:
        defaults = yaml.safe_load(f)
    S.run([HELM, "lint", "--strict", CHART, "-n", "rayjob-guard", "-f", BASE])
    print(f"ok: values.schema.json: {values} keys, every one typed, every object with additionalProperties: false; "
          f"values.yaml's {len(defaults)} top-level values all described")
    print(f"PASS: {checks_passed()} checks")


if __name__ == "__main__":
    main()
