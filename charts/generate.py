#!/usr/bin/python3
"""Generates the chart's derived files from their sources, or checks that they are current.

  rayjob-guard/values.schema.json  properties.policy, properties.ruleActions and definitions.policy*
                                   copied from admission/policy.schema.json (the policy's one schema);
                                   the rest of the file is edited by hand
  rayjob-guard/README.md           the chart README: its values table, from values.yaml (the comment
                                   above each key), the schema (types) and the defaults
  docs/install.md                  the same values table, between <!-- values:begin --> and
                                   <!-- values:end -->

usage: charts/generate.py [--check]
  --check  write nothing; exit 1 naming each file that differs from what would be generated
"""
import difflib
import json
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHART = os.path.join(ROOT, "charts", "rayjob-guard")
POLICY_SCHEMA = os.path.join(ROOT, "admission", "policy.schema.json")
VALUES_SCHEMA = os.path.join(CHART, "values.schema.json")
VALUES = os.path.join(CHART, "values.yaml")
README = os.path.join(CHART, "README.md")
INSTALL_DOC = os.path.join(ROOT, "docs", "install.md")
BEGIN, END = "<!-- values:begin -->", "<!-- values:end -->"
# Values documented as one row, not key by key: the policy document has its own reference.
WHOLE = {"policy": "The policy document (every key: docs/policy.md); values.schema.json checks it with "
                   "admission/policy.schema.json, the schema the binary loads it with."}


def die(msg):
    print(f"generate.py: {msg}", file=sys.stderr)
    sys.exit(2)


def values_schema():
    with open(POLICY_SCHEMA) as f:
        policy = json.load(f)
    with open(VALUES_SCHEMA) as f:
        schema = json.load(f)
    definitions = {k: v for k, v in schema.get("definitions", {}).items() if not k.startswith("policy")}
    for name, d in policy["definitions"].items():
        if not name.startswith("policy"):
            die(f"{POLICY_SCHEMA}: definition {name} must be named policy*: it is copied into the values schema")
        definitions[name] = d
    body = {k: v for k, v in policy.items() if k not in ("$schema", "$comment", "definitions", "title")}
    body["description"] = WHOLE["policy"]
    schema["properties"]["policy"] = body
    schema["properties"]["ruleActions"] = {
        "$ref": "#/definitions/policyRuleActions",
        "description": "Rule actions merged over policy.rules (admission/policy.schema.json)."}
    schema["definitions"] = definitions
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def comments_by_path():
    """The comment block right above each block-style key of values.yaml, by dotted path."""
    out, stack, pending = {}, [], []
    for line in open(VALUES):
        stripped = line.strip()
        if stripped.startswith("#"):
            pending.append(stripped.lstrip("#").strip())
            continue
        if not stripped:
            pending = []
            continue
        m = re.match(r"^( *)([A-Za-z0-9_.-]+):", line)
        if not m:
            pending = []
            continue
        indent = len(m.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, m.group(2)))
        path = ".".join(k for _, k in stack)
        if pending:
            out[path] = " ".join(pending)
        pending = []
    return out


def resolve(schema, node):
    while "$ref" in node:
        node = schema["definitions"][node["$ref"].split("/")[-1]]
    return node


def type_text(schema, node):
    node = resolve(schema, node)
    if "allOf" in node:
        return type_text(schema, node["allOf"][0])
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        return " \\| ".join(json.dumps(v) for v in node["enum"])
    t = node.get("type")
    if t is None:
        die(f"a value without a type in the values schema: {node}")
    return " or ".join(t) if isinstance(t, list) else t


def rows():
    schema = json.loads(values_schema())
    with open(VALUES) as f:
        values = yaml.safe_load(f)
    comments = comments_by_path()
    out, missing = [], []

    def walk(props, prefix, vals):
        for key, node in props.items():
            if key == "global":
                continue
            path = f"{prefix}{key}"
            node_r = resolve(schema, node)
            default = vals.get(key) if isinstance(vals, dict) else None
            # Inline objects are documented key by key; a $ref'd shape (resources) or an object
            # that is empty by default (issuerRef) is one value.
            if "properties" in node and key not in WHOLE and default != {}:
                walk(node_r["properties"], path + ".", default or {})
                continue
            desc = WHOLE.get(path) or comments.get(path)
            if not desc:
                missing.append(path)
                continue
            text = json.dumps(default, separators=(", ", ": ")) if path not in WHOLE else "see values.yaml"
            if len(text) > 60:
                text = "see values.yaml"
            out.append((path, type_text(schema, node), text, desc))
    walk(schema["properties"], "", values)
    if missing:
        die("values without a comment in values.yaml (each value's comment is its documentation): " + ", ".join(missing))
    documented = [r[0] for r in out]
    unknown = sorted(p for p in flatten(values) if not any(p == d or p.startswith(d + ".") for d in documented))
    if unknown:
        die("values.yaml keys the values schema does not describe: " + ", ".join(unknown))
    return out


def flatten(vals, prefix=""):
    for k, v in vals.items():
        if isinstance(v, dict) and v:
            yield from flatten(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}"


def table():
    lines = ["| value | type | default | description |", "|---|---|---|---|"]
    for path, t, default, desc in rows():
        cell = desc.replace("|", "\\|")
        lines.append(f"| `{path}` | {t} | `{default}` | {cell} |")
    return "\n".join(lines) + "\n"


def readme(tab):
    with open(os.path.join(CHART, "Chart.yaml")) as f:
        chart = yaml.safe_load(f)
    return f"""<!-- Generated by charts/generate.py from values.yaml, values.schema.json and Chart.yaml. Do not edit. -->
# rayjob-guard

{chart['description']}

Chart {chart['version']}, rayjob-guard {chart['appVersion']}. Install, rollout, alerts and runbooks:
[docs/install.md](../../docs/install.md).

```bash
kubectl create namespace rayjob-guard   # or: helm install --create-namespace
helm install rayjob-guard charts/rayjob-guard -n rayjob-guard --set certificates.certManager.enabled=true
helm test rayjob-guard -n rayjob-guard
```

`values.schema.json` refuses unknown keys, wrong types and wrong enums at `helm install` and
`helm upgrade`, before anything reaches a pod; its `policy` part is the schema the binary loads the
policy with (`admission/policy.schema.json`). `helm uninstall` removes the webhook registration
first (a pre-delete hook), so RayJob writes are never refused by a webhook that is going away.
Release names must be unique in the cluster: the webhook registration, the PriorityClass and the
reaper's and audit's ClusterRoles are cluster-scoped and named after the release.

## Values

{tab}"""


def install_doc(tab):
    with open(INSTALL_DOC) as f:
        text = f.read()
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        die(f"{INSTALL_DOC} must hold exactly one {BEGIN} ... {END}")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{tab}{END}{tail}"


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        die(__doc__)
    tab = table()
    stale = []
    for path, text in ((VALUES_SCHEMA, values_schema()), (README, readme(tab)), (INSTALL_DOC, install_doc(tab))):
        old = open(path).read() if os.path.exists(path) else ""
        if old == text:
            continue
        if check:
            stale.append(path)
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), path, "generated", n=1))
        else:
            with open(path, "w") as f:
                f.write(text)
            print(f"generate.py: wrote {os.path.relpath(path, ROOT)}")
    if stale:
        print(f"generate.py: not current (run charts/generate.py): {', '.join(os.path.relpath(p, ROOT) for p in stale)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
