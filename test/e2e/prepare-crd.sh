#!/usr/bin/env bash
# prepare-crd.sh OUT: write the RayJob CRD that the e2e cluster installs into the file OUT.
#
# When the real KubeRay CRD exists at <repo>/../shared/kuberay/ray.io_rayjobs.yaml (override the
# path with RJG_KUBERAY_CRD), it is transformed mechanically, by the script below, with exactly
# the three edits a v1.20 apiserver needs and nothing else:
#   1. remove every `x-kubernetes-validations` (CEL rules arrive in 1.25; 1.20 refuses the field),
#   2. remove every `default: ""` (1.20 refuses empty-string defaults; all sit in embedded pod fields),
#   3. make `name` required in the `imagePullSecrets` item schemas (1.20 needs list-map keys required).
# The file is never edited by hand and never copied into the repository.
# Otherwise, or when RJG_E2E_MINIMAL_CRD=1, it copies test/e2e/crd/rayjob-minimal-crd.yaml: our own
# small structural CRD with the same defaults.
#
# Prints one line to stdout: "real <counts>" or "minimal", saying which CRD was written.
# Exit 1 with a message on stderr when the source cannot be read or does not look like the CRD.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:?usage: prepare-crd.sh OUT}
real=${RJG_KUBERAY_CRD:-$repo/../shared/kuberay/ray.io_rayjobs.yaml}

if [[ ${RJG_E2E_MINIMAL_CRD:-0} == 1 || ! -f $real ]]; then
  cp "$here/crd/rayjob-minimal-crd.yaml" "$out"
  echo "minimal"
  exit 0
fi

python3 - "$real" "$out" <<'PY'
import json, sys
import yaml

src, out = sys.argv[1], sys.argv[2]
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
with open(src, encoding="utf-8") as f:
    crd = yaml.load(f, Loader=loader)
if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition" \
        or crd.get("metadata", {}).get("name") != "rayjobs.ray.io":
    sys.exit(f"prepare-crd: {src} is not the rayjobs.ray.io CustomResourceDefinition")

counts = {"x-kubernetes-validations": 0, "default-empty-string": 0, "imagePullSecrets-name-required": 0}

def walk(node):
    if isinstance(node, dict):
        if "x-kubernetes-validations" in node:
            rules = node.pop("x-kubernetes-validations")
            counts["x-kubernetes-validations"] += len(rules) if isinstance(rules, list) else 1
        if node.get("default", None) == "":
            del node["default"]
            counts["default-empty-string"] += 1
        props = node.get("properties")
        if isinstance(props, dict) and isinstance(props.get("imagePullSecrets"), dict):
            items = props["imagePullSecrets"].get("items")
            if isinstance(items, dict) and "name" in items.get("properties", {}):
                req = items.setdefault("required", [])
                if "name" not in req:
                    req.append("name")
                    counts["imagePullSecrets-name-required"] += 1
        for v in node.values():
            walk(v)
    elif isinstance(node, list):
        for v in node:
            walk(v)

walk(crd)
if counts["x-kubernetes-validations"] == 0 and counts["default-empty-string"] == 0:
    sys.exit(f"prepare-crd: no edit applied to {src}; is it already prepared?")
# JSON is valid YAML, and much faster for kubectl to read than 1.4 MB of YAML.
with open(out, "w", encoding="utf-8") as f:
    json.dump(crd, f, separators=(",", ":"))
print("real " + " ".join(f"{k}={v}" for k, v in counts.items()))
PY
