#!/usr/bin/env python3
"""`rayjob-guard check --fix` is a fixed point after one round, and its exit status says so.

Inputs: every corpus, tenant and golden RayJob manifest of the repository, every RayJob sample of
the KubeRay operator modules under test (config/samples/ray-job.*.yaml, given with --samples),
and --variants seeded variants per KubeRay version from variants.py (the conformance generator:
every single-field mutation of its base RayJobs, then random combinations of two to four).

Policies: the default policy at every KubeRay version 1.0 to 1.7, under every lifecycle mode the
policy accepts there, with the RayJobDeletionPolicy feature gate on and off where the version has
it, and at 1.7 once more with the gates that decide RayCluster fields (RayClusterHistoryServer,
RayClusterNetworkPolicy, RayClusterMTLS, GCSFaultToleranceEmbeddedStorage) turned on.

For each policy, all inputs go through three calls of the binary (batches, not one process per
manifest; two policies, and steps 2 and 3, run at a time):
  1. `check --fix INPUTS...`   -> OUT1, exit E1
  2. `check --fix -` on OUT1   -> OUT2, exit E2
  3. `check -o json -` on OUT1 -> the verdict of every printed RayJob
and the test fails unless
  - E1 is not 2 (no fixes that contradict, no fix that cannot be applied);
  - OUT2 == OUT1, byte for byte: a second round changes nothing;
  - no finding of step 3 carries a literal fix: one round reached a state every rule accepts,
    and what is left is the tenant's to choose (which image, how much memory: no literal fix);
  - E1 is 1 exactly when some printed RayJob still has a violation (denied, or a warn-level rule
    that still asks for a change), else 0; E2 == E1; and stderr of step 1 names each of those
    violations once (`yours to change:`).
Prints, per policy,
  fixes: policy=1.6/deletionRules+RayJobDeletionPolicy=on rayjobs=N allowed=A left-to-tenant=T \
         exit=X (rule n, ...)
where allowed counts the RayJobs admitted after the round, and left-to-tenant those that keep a violation (by rule: how many RayJobs keep one of that rule's).

    fix_convergence_test.py --rayjob-guard BIN --repo ROOT [--samples DIR]... [--variants N]
"""
import argparse
import collections
import concurrent.futures
import difflib
import glob
import json
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, fail, run  # noqa: E402
from conformance_test import repo_manifests  # noqa: E402
import variants  # noqa: E402

VERSIONS = [f"1.{m}" for m in range(8)]  # every version the policy accepts
MODES = ["deletionRules", "deletionPolicy", "operatorDeletesRayJob", "reaper"]
# Versions that have the RayJobDeletionPolicy gate (policy/kuberay/catalogue.cpp): 1.3 to 1.7.
DELETION_GATE_FROM = 3
# 1.7 gates that decide whether RayCluster fields are accepted (kuberay-schema removes them
# otherwise), all off by default.
CLUSTER_GATES_1_7 = ["RayClusterHistoryServer", "RayClusterNetworkPolicy", "RayClusterMTLS",
                     "GCSFaultToleranceEmbeddedStorage"]
NAMESPACE = "tenant-a"  # has a quota entry in the default policy
TIMEOUT = 300


def policy_text(default, version, mode, gates):
    """The default policy at `version` and `mode` with `gates` ({name: bool}) set."""
    gate_lines = "".join(f"\n    {g}: {'true' if on else 'false'}" for g, on in gates.items())
    if gate_lines:
        gate_lines = "\n  featureGates:" + gate_lines
    text, n1 = re.subn(r'(?m)^(  version: )"[0-9.]+"', rf'\1"{version}"{gate_lines}', default)
    text, n2 = re.subn(r'(?m)^(  mode: )\w+', rf'\g<1>{mode}', text)
    assert n1 == 1 and n2 == 1, "the default policy no longer has kuberay.version/lifecycle.mode"
    return text


def policies(version):
    """(label, gates) of every gate setting tried at `version`."""
    minor = int(version.split(".")[1])
    sets = [{}]
    if minor >= DELETION_GATE_FROM:
        sets = [{"RayJobDeletionPolicy": True}, {"RayJobDeletionPolicy": False}]
    if version == "1.7":
        sets.append(dict({"RayJobDeletionPolicy": True}, **{g: True for g in CLUSTER_GATES_1_7}))
    for gates in sets:
        yield gates


def rjg(binary, args, stdin=None):
    """`rayjob-guard ARGS`, its output as bytes; one still running after TIMEOUT fails."""
    return run([binary, *args], stdin=stdin, timeout=TIMEOUT, text=False)


def documents(out):
    """The documents `check --fix` printed (each `---` line then a JSON document)."""
    text = out.decode()
    if not text:
        return []
    if not text.startswith("---\n"):
        raise ValueError(f"check --fix output does not start with ---: {text[:200]!r}")
    return text[4:].split("\n---\n")


def describe(doc):
    try:
        o = json.loads(doc)
    except ValueError:
        return doc[:200]
    meta = o.get("metadata") if isinstance(o, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
    variant = labels.get("conformance/variant")
    return f"{o.get('kind')}/{meta.get('name')}" + (f" (variant {variant})" if variant else "")


def is_violation(finding):
    return finding["kind"] == "violation"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rayjob-guard", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--samples", action="append", default=[],
                    help="a KubeRay config/samples directory (its ray-job.*.yaml)")
    ap.add_argument("--variants", type=int, default=1500,
                    help="generated RayJobs per KubeRay version (variants.py)")
    ap.add_argument("--versions", default=",".join(VERSIONS),
                    help="the KubeRay versions to try (default: all)")
    ap.add_argument("--show", type=int, default=20, help="failure kinds shown")
    args = ap.parse_args()
    binary = args.rayjob_guard
    started = time.monotonic()

    _, default, _ = run([binary, "policy", "default"], check=True)
    failures = []
    with tempfile.TemporaryDirectory(prefix="rjg-fixes-") as tmp:
        files = repo_manifests(args.repo, tmp)
        samples = []
        for d in args.samples:
            samples += sorted(glob.glob(os.path.join(d, "ray-job.*.yaml")))
        if args.samples and not samples:
            fail(f"fixes: no ray-job.*.yaml in {args.samples}")
        # Bad input on purpose (the corpus has some) has nothing to fix; everything else must
        # be readable, or the batch would stop at it.
        inputs = []
        for path in files + samples:
            if rjg(binary, ["check", "-n", NAMESPACE, "-o", "json", path]).returncode != 2:
                inputs.append(path)
        print(f"fixes: {len(inputs)} manifests ({len(files)} repository, {len(samples)} KubeRay "
              f"samples, {len(files) + len(samples) - len(inputs)} bad input left out), "
              f"{args.variants} generated per version")

        jobs = []  # (label, policy file, inputs), run two at a time below
        for version in args.versions.split(","):
            minor = int(version.split(".")[1])
            generated = os.path.join(tmp, f"variants-{version}.yaml")
            objs = variants.generate(minor, args.variants, 15 + minor)
            with open(generated, "w") as f:
                for i, o in enumerate(objs):
                    o["metadata"].setdefault("labels", {})["conformance/variant"] = str(i)
                    f.write("---\n" + json.dumps(o, sort_keys=True) + "\n")
            for gates in policies(version):
                for mode in MODES:
                    label = f"{version}/{mode}" + "".join(
                        f"+{g}={'on' if on else 'off'}" for g, on in gates.items())
                    policy = os.path.join(tmp, f"policy-{len(jobs)}.yaml")
                    with open(policy, "w") as f:
                        f.write(policy_text(default, version, mode, gates))
                    if rjg(binary, ["policy", "validate", policy]).returncode != 0:
                        continue  # a mode this version (or gate) cannot carry out
                    jobs.append((label, policy, inputs + [generated]))
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for summary, found in pool.map(lambda j: one_policy(binary, *j), jobs):
                print(summary)
                failures += found
        tried = len(jobs)
        print(f"fixes: {tried} policies in {time.monotonic() - started:.1f} s")
    # Failures of one kind (the same fields changed in round 2, the same rules contradicting)
    # are counted together and shown once.
    kinds = collections.OrderedDict()
    for signature, text in failures:
        kinds.setdefault(signature, []).append(text)
    for signature, texts in list(kinds.items())[:args.show]:
        more = f" (and {len(texts) - 1} more like it)" if len(texts) > 1 else ""
        print(f"  NOT A FIXED POINT {texts[0]}{more}")
    check(tried > 0, "fixes: no policy was valid")
    check(not failures, f"fixes: {len(failures)} failures of {len(kinds)} kinds (above)")


def one_policy(binary, label, policy, inputs):
    """Returns the summary line of one policy and its failures ((kind, text) pairs)."""
    base = ["check", "--policy", policy, "-n", NAMESPACE]
    first = rjg(binary, base + ["--fix", *inputs])
    if first.returncode not in (0, 1):
        # Name each document that could not be fixed (contradicting fixes, a fix that cannot
        # be applied), by what went wrong with the numbers taken out.
        out = []
        for line in first.stderr.decode().splitlines():
            if ": yours to change: " not in line:
                what = line.split(": ", 2)[-1]
                out.append((f"{label}: exit {first.returncode}: " + re.sub(r"\d+", "N", what)[:300],
                            f"{label}: check --fix exited {first.returncode}: {line[:1500]}"))
        return f"fixes: policy={label} exit={first.returncode}", out or [
            (label, f"{label}: check --fix exited {first.returncode}")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        second, judged = pool.map(lambda a: rjg(binary, base + a, stdin=first.stdout),
                                  [["--fix", "-"], ["-o", "json", "-"]])
    if judged.returncode == 2:
        return f"fixes: policy={label} bad output", [(label + " bad", f"{label}: the fixed "
                                                      f"manifests are bad input: "
                                                      f"{judged.stderr.decode()[:2000]}")]
    failures = []
    docs1, docs2 = documents(first.stdout), documents(second.stdout)
    if first.stdout != second.stdout:
        if len(docs1) != len(docs2):
            failures.append((label + " count", f"{label}: round 2 printed {len(docs2)} documents, "
                             f"round 1 {len(docs1)}"))
        for d1, d2 in zip(docs1, docs2):
            if d1 != d2:
                diff = difflib.unified_diff(d1.splitlines(), d2.splitlines(), "round 1",
                                            "round 2", n=1, lineterm="")
                lines = list(diff)[2:40]
                changed = sorted({k for line in lines if line[:1] in "+-"
                                  for k in re.findall(r'"([^"]+)":', line)})
                failures.append((f"{label} round 2 changes {changed}",
                                 f"{label} {describe(d1)}: a second round changes it:\n      " +
                                 "\n      ".join(lines)))
    results = json.loads(judged.stdout)
    if len(results) != len(docs1):
        failures.append((label + " judged", f"{label}: check judged {len(results)} documents "
                         f"of {len(docs1)}"))
    rayjobs = allowed = left = violations = 0
    left_by_rule = collections.Counter()
    for r, doc in zip(results, docs1):
        if r.get("skipped"):
            continue
        rayjobs += 1
        allowed += r["allowed"]
        found = r["denials"] + r["warnings"]
        fixable = [x for x in found if x["fix"]]
        if fixable:
            failures.append((f"{label} still fixable {sorted({x['rule'] for x in fixable})}",
                             f"{label} {describe(doc)}: after one round a finding still has a "
                             "literal fix:\n      " + "\n      ".join(x["text"] for x in fixable)))
        kept = [x for x in found if is_violation(x)]
        violations += len(kept)
        if kept:
            left += 1
            left_by_rule.update({x["rule"] for x in kept})
    expected = 1 if violations else 0
    if first.returncode != expected:
        failures.append((label + " exit", f"{label}: check --fix exited {first.returncode}, but "
                         f"{violations} violations are left in what it printed (expected exit "
                         f"{expected})"))
    if second.returncode != first.returncode:
        failures.append((label + " exit 2", f"{label}: round 2 exited {second.returncode}, "
                         f"round 1 {first.returncode}"))
    named = first.stderr.decode().count(": yours to change: ")
    if named != violations:
        failures.append((label + " named", f"{label}: check --fix named {named} findings on "
                         f"stderr as yours to change, but {violations} violations are left in "
                         "what it printed"))
    return (f"fixes: policy={label} rayjobs={rayjobs} allowed={allowed} "
            f"left-to-tenant={left} exit={first.returncode}" +
            (" (" + ", ".join(f"{r} {n}" for r, n in left_by_rule.most_common()) + ")"
             if left else "")), failures


if __name__ == "__main__":
    main()
