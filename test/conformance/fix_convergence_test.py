#!/usr/bin/env python3
"""Remedies converge: `rayjob-guard check --fix` applied once leaves nothing new to fix.

For each lifecycle mode and KubeRay version below, every corpus, tenant and golden RayJob
manifest of the repository and every RayJob sample of the KubeRay operator modules under test
(config/samples/ray-job.*.yaml, given with --samples) goes through
  1. `check -o json`: the findings, each with its literal fix (possibly none);
  2. `check --fix`: the manifest with every fix applied at once, in one round; exit 2 (fixes
     that contradict each other, or a fix that cannot be applied) fails the test;
  3. `check -o json` on the fixed manifest.
After the round, a RayJob may keep only findings that round 1 already reported with no literal
fix (the tenant's choice: which image, how much memory; their message names the line). Any other
finding fails the test: a fix that did not remove its finding, or a fix that led to a new one.
Prints, per policy,
  fixes: policy=1.6/deletionRules rayjobs=N denied=D converged=C left-to-tenant=T edits=E (rule n, ...)
where converged counts RayJobs with no finding left, left-to-tenant those whose remaining findings
all lack a literal fix (by rule: how many RayJobs keep one of that rule's), and edits the edits
of round 1.

    fix_convergence_test.py --rayjob-guard BIN --repo ROOT [--samples DIR]... [--show 20]
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from conformance_test import repo_manifests

# (KubeRay version, lifecycle mode, feature gates on): every mode, at a version that supports it.
POLICIES = [("1.6", "deletionRules", []), ("1.7", "deletionRules", []), ("1.5", "reaper", []),
            ("1.4", "deletionPolicy", ["RayJobDeletionPolicy"]),
            ("1.4", "operatorDeletesRayJob", []), ("1.0", "reaper", [])]
NAMESPACE = "tenant-a"  # has a quota entry in the default policy


def policy_text(default, version, mode, gates):
    gate_lines = "".join(f"\n  featureGates:\n    {g}: true" for g in gates[:1])
    gate_lines += "".join(f"\n    {g}: true" for g in gates[1:])
    text, n1 = re.subn(r'(?m)^(  version: )"[0-9.]+"', rf'\1"{version}"{gate_lines}', default)
    text, n2 = re.subn(r'(?m)^(  mode: )\w+', rf'\g<1>{mode}', text)
    assert n1 == 1 and n2 == 1, "the default policy no longer has kuberay.version/lifecycle.mode"
    return text


def check(binary, policy, path, *extra):
    p = subprocess.run([binary, "check", "--policy", policy, "-n", NAMESPACE, *extra, path],
                       capture_output=True, text=True, timeout=120)
    return p


def findings(result):
    """Per RayJob document index: the list of findings (denials then warnings)."""
    out = {}
    for o in json.loads(result.stdout):
        if not o.get("skipped"):
            out[o["document"]] = (o["allowed"], o["denials"] + o["warnings"])
    return out


def key(finding):
    return finding["rule"], finding["field"], finding["message"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rayjob-guard", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--samples", action="append", default=[],
                    help="a KubeRay config/samples directory (its ray-job.*.yaml)")
    ap.add_argument("--show", type=int, default=20)
    args = ap.parse_args()
    binary = args.rayjob_guard

    default = subprocess.run([binary, "policy", "default"], capture_output=True, text=True,
                             check=True).stdout
    failures = []
    with tempfile.TemporaryDirectory(prefix="rjg-fixes-") as tmp:
        files = repo_manifests(args.repo, tmp)
        samples = []
        for d in args.samples:
            samples += sorted(glob.glob(os.path.join(d, "ray-job.*.yaml")))
        if args.samples and not samples:
            sys.exit(f"fixes: no ray-job.*.yaml in {args.samples}")
        print(f"fixes: {len(files)} repository manifests, {len(samples)} KubeRay samples")
        files += samples
        for version, mode, gates in POLICIES:
            label = f"{version}/{mode}" + "".join(f"+{g}" for g in gates)
            policy = os.path.join(tmp, f"policy-{version}-{mode}.yaml")
            with open(policy, "w") as f:
                f.write(policy_text(default, version, mode, gates))
            v = subprocess.run([binary, "policy", "validate", policy], capture_output=True, text=True)
            if v.returncode != 0:
                sys.exit(f"fixes: policy {label} is invalid: {v.stderr.strip()}")
            rayjobs = denied = converged = left = edits = 0
            left_by_rule = collections.Counter()
            for path in files:
                first = check(binary, policy, path, "-o", "json")
                if first.returncode == 2:
                    continue  # bad input on purpose (the corpus has some): nothing to fix
                before = findings(first)
                fixed = check(binary, policy, path, "--fix")
                if fixed.returncode == 2:
                    failures.append(f"{label} {path}: check --fix failed: {fixed.stderr.strip()}")
                    continue
                out = os.path.join(tmp, "fixed.yaml")
                with open(out, "w") as f:
                    f.write(fixed.stdout)
                second = check(binary, policy, out, "-o", "json")
                if second.returncode == 2:
                    failures.append(f"{label} {path}: the fixed manifest is bad input: "
                                    f"{second.stderr.strip()[:500]}")
                    continue
                after = findings(second)
                for doc, (allowed, found) in before.items():
                    rayjobs += 1
                    denied += not allowed
                    edits += sum(len(x["fix"]) for x in found)
                    if not found:
                        continue
                    # Findings round 1 had no fix for (same rule, field and message): the
                    # violations left to the tenant, and advisories, which ask for no change.
                    theirs = {key(x) for x in found if not x["fix"]}
                    to_change = {key(x) for x in found if not x["fix"] and x["kind"] == "violation"}
                    found2 = after.get(doc, (False, []))[1]
                    new = [x for x in found2 if key(x) not in theirs]
                    if new:
                        shown = os.path.relpath(path, args.repo) if path.startswith(args.repo) else path
                        failures.append(f"{label} {shown} document {doc}: after one round of fixes:"
                                        "\n      " + "\n      ".join(x["text"] for x in new))
                    elif to_change:
                        left += 1
                        left_by_rule.update({rule for rule, _, _ in to_change})
                    else:
                        converged += 1
            print(f"fixes: policy={label} rayjobs={rayjobs} denied={denied} "
                  f"converged={converged} left-to-tenant={left} edits={edits}" +
                  (" (" + ", ".join(f"{r} {n}" for r, n in left_by_rule.most_common()) + ")" if left else ""))
    for f in failures[:args.show]:
        print(f"  NOT CONVERGED {f}")
    if failures:
        print(f"fixes: {len(failures)} manifests did not converge in one round")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
