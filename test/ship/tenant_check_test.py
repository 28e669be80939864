#!/usr/bin/python3
"""Checks every example RayJob in manifests/tenant/rayjobs/ with `rayjob-guard check` against the
verdict recorded on its first lines, and validates the example policies with `policy validate`.

Header format (comment lines before the YAML):
  # expect: allowed                       exit 0, no rule id mentioned
  # expect: allowed warn=RULE[,RULE]      exit 0, the warned rule ids mentioned
  # expect: denied RULE[,RULE...]         exit 1, exactly these rule ids mentioned
  # policy: MODE                          check against manifests/tenant/policies/MODE.yaml
                                          (default: manifests/base/policy.yaml)
usage: tenant_check_test.py REPO_DIR RAYJOB_GUARD_BINARY
"""
import glob
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, run  # noqa: E402

REPO, BINARY = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
RULE_IDS = ["kuberay-schema", "submission-mode", "reap-self", "reap-ttl", "active-deadline", "backoff-limit",
            "cluster-selector", "resources-declared", "quota-fit", "image-contract", "image-pinned"]
failures = []


def header(path):
    expect, policy = None, None
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            m = re.match(r"#\s*expect:\s*(allowed|denied)\s*(.*)$", line.strip())
            if m:
                expect = (m.group(1), m.group(2).strip())
            m = re.match(r"#\s*policy:\s*(\S+)\s*$", line.strip())
            if m:
                policy = m.group(1)
    return expect, policy


def mentioned(output):
    return {r for r in RULE_IDS if f"[{r}]" in output}


def main():
    policies = [os.path.join(REPO, "manifests", "base", "policy.yaml")] + \
        sorted(glob.glob(os.path.join(REPO, "manifests", "tenant", "policies", "*.yaml")))
    for p in policies:
        code, out, err = run([BINARY, "policy", "validate", p], timeout=30)
        rel = os.path.relpath(p, REPO)
        if code != 0:
            failures.append(f"policy validate {rel}: exit {code}: {(err or out).strip()}")
            print(f"FAIL policy validate {rel}: {(err or out).strip()}")
        else:
            print(f"ok   policy validate {rel}")

    files = sorted(glob.glob(os.path.join(REPO, "manifests", "tenant", "rayjobs", "*.yaml")))
    if len(files) < 10:
        failures.append(f"only {len(files)} example RayJobs")
    modes_covered = set()
    for path in files:
        rel = os.path.relpath(path, REPO)
        expect, mode = header(path)
        if expect is None:
            failures.append(f"{rel}: no '# expect:' line")
            continue
        policy = os.path.join(REPO, "manifests", "tenant", "policies", f"{mode}.yaml") if mode else policies[0]
        if not os.path.exists(policy):
            failures.append(f"{rel}: policy {policy} does not exist")
            continue
        with open(path) as f:
            obj = yaml.safe_load(f)
        ns = obj["metadata"].get("namespace", "default")
        code, stdout, stderr = run([BINARY, "check", "--policy", policy, "--namespace", ns, path], timeout=30)
        out = stdout + stderr
        found = mentioned(out)
        verdict, detail = expect
        # A file check skipped (not a RayJob) also exits 0: insist the object itself was judged.
        judged = f"rayjob.ray.io/{obj['metadata']['name']}" in out
        if verdict == "allowed":
            warn = set(detail.split("=", 1)[1].split(",")) if detail.startswith("warn=") else set()
            ok = code == 0 and found == warn and judged
            want = f"exit 0, rule ids {sorted(warn)}"
        else:
            denied = set(detail.split(","))
            ok = code == 1 and found == denied and judged
            want = f"exit 1, rule ids {sorted(denied)}"
        if verdict == "allowed" and ok:
            modes_covered.add(mode or "deletionRules")
        status = "ok  " if ok else "FAIL"
        print(f"{status} {rel} [{ns}, policy {os.path.basename(policy)}]: exit {code}, "
              f"rule ids {sorted(found)}; want {want}")
        if not ok:
            print("     output: " + out.strip().replace("\n", "\n             ")[:1500])
            failures.append(rel)
    missing = {"deletionRules", "deletionPolicy", "operatorDeletesRayJob", "reaper"} - modes_covered
    if missing:
        failures.append(f"no compliant example for lifecycle mode(s) {sorted(missing)}")
    check(not failures, f"{len(failures)} problem(s): {failures}")
    print(f"PASS: {len(files)} example RayJobs and {len(policies)} policies give their recorded verdicts")


if __name__ == "__main__":
    main()
