#!/usr/bin/env python3
"""The KubeRay conformance test: kuberay-schema against the operator's own validation code.

For each served KubeRay version (the oracles built by build-oracle.sh), every corpus, golden and
tenant manifest plus the seeded variants of variants.py go through both
  - the oracle (the operator's ValidateRayJobMetadata + ValidateRayJobSpec at that version; at
    1.6 also the apiserver's pruning, defaults, schema and CEL rules of the RayJob CRD before, and
    after it the RayCluster the operator creates and the submitter it builds), and
  - `rayjob-guard check` with every rule off except kuberay-schema, at that kuberay.version,
with the feature gates of the same policy file. A RayJob agrees when "the operator rejects" equals
"kuberay-schema denies". One exception is counted apart, never as agreement by default: a
kuberay-schema denial that only says the version's API does not know a field, when the operator's
own Go types at that version indeed do not have it (the apiserver prunes it; the oracle's strict
decode names it), or that the version's CRD schema refuses (the apiserver refuses it before the
operator sees it): those are counted as apiserver-only, and so is every object the 1.6 oracle's
CRD refuses (crd-refused: no webhook and no operator sees it). Prints, per version and gate
setting (the version's defaults; from 1.6 also every gate on),
  conformance: version=1.5 gates=default manifests=N agree=N disagree=0 apiserver-only=K
and fails listing the first disagreements with both verdicts. Then every RayJob kuberay-schema
denies gets one round of `check --fix`: one whose findings all had a literal fix must be accepted
by the operator and admitted by kuberay-schema; one with findings left to the tenant may keep only
those. Prints
  fixes: version=1.5 gates=default denied=N fixed=F operator-accepts-fixed=F left-to-tenant=T failures=0

    conformance_test.py --rayjob-guard BIN --repo ROOT --oracle 1.4=PATH --oracle 1.5=PATH
                        [--count 10000] [--seed 15] [--show 20]
"""
import argparse
import glob
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import check, fail, run  # noqa: E402
RULES = ["kuberay-schema", "submission-mode", "reap-self", "reap-ttl", "active-deadline",
         "backoff-limit", "cluster-selector", "resources-declared", "quota-fit", "image-contract",
         "image-pinned"]
UNKNOWN_FIELD = "API does not know this field"
CRD_REFUSES = "CRD refuses this RayJob at the apiserver"
OFF = '"off"'  # quoted: a bare off is a YAML boolean
TIMEOUT = 600  # seconds for one batch through one program


def policy_yaml(version, gates):
    rules = ", ".join(f"{r}: {'enforce' if r == 'kuberay-schema' else OFF}" for r in RULES)
    text = (f"apiVersion: rayjob-guard.io/v1\nkind: Policy\nkuberay:\n  version: \"{version}\"\n")
    if gates:
        text += "  featureGates:\n" + "".join(f"    {k}: {str(v).lower()}\n" for k, v in gates.items())
    text += f"lifecycle:\n  mode: reaper\nrules: {{{rules}}}\n"
    return text


def repo_manifests(repo, tmp):
    """Every corpus, golden (request.object) and tenant RayJob manifest of the repository."""
    files = sorted(glob.glob(os.path.join(repo, "test/corpus/*.yaml")))
    files += sorted(glob.glob(os.path.join(repo, "manifests/tenant/rayjobs/*.yaml")))
    gdir = os.path.join(tmp, "golden")
    os.makedirs(gdir, exist_ok=True)
    for req in sorted(glob.glob(os.path.join(repo, "test/golden/cases/*/request.json"))):
        with open(req) as f:
            review = json.load(f)
        obj = (review.get("request") or {}).get("object")
        if isinstance(obj, dict) and obj.get("kind") == "RayJob":
            out = os.path.join(gdir, os.path.basename(os.path.dirname(req)) + ".json")
            with open(out, "w") as f:
                json.dump(obj, f)
            files.append(out)
    return files


def oracle_verdicts(oracle, policy, listfile):
    code, printed, err = run([oracle, "--policy", policy, "--list", listfile], timeout=TIMEOUT)
    if code != 0:
        fail(f"conformance: the oracle failed ({code}): {err.strip()[:2000]}")
    out = {}
    for line in printed.splitlines():
        parts = line.split("\t")
        f, verdict = parts[0], parts[3]
        out.setdefault(f, []).append({"name": parts[2], "verdict": verdict,
                                      "message": parts[4] if len(parts) > 4 else "",
                                      "unknown": parts[5] if len(parts) > 5 else ""})
    return out


def oracle_gates(oracle):
    """Every feature gate the operator's own code registers (the oracle's --print-gates)."""
    code, printed, err = run([oracle, "--print-gates"], timeout=TIMEOUT)
    if code != 0:
        fail(f"conformance: the oracle failed ({code}): {err.strip()[:2000]}")
    gates = [line.split("=")[0] for line in printed.splitlines() if "=" in line]
    # k8s.io/component-base registers its own gates (AllAlpha, AllBeta, logging): not KubeRay's.
    return [g for g in gates if not g.startswith(("All", "Logging", "Contextual"))]


def check_verdicts(binary, policy, files):
    out = {}
    for i in range(0, len(files), 4000):
        batch = files[i:i + 4000]
        code, printed, err = run([binary, "check", "--policy", policy, "-o", "json"] + batch,
                                 timeout=TIMEOUT)
        if code not in (0, 1, 2) or not printed.strip():
            fail(f"conformance: rayjob-guard check failed ({code}): {err.strip()[:2000]}")
        for o in json.loads(printed):
            if o.get("skipped"):
                continue
            out.setdefault(o["file"], []).append(o)
        if code == 2:
            print(f"note: rayjob-guard check reported bad input: {err.strip()[:2000]}")
    return out


def compare(version, gates_label, oracle, checked, files, show):
    agree, disagree, pruned, pruned_shown, crd_refused = 0, [], 0, [], 0
    for f in files:
        ov = oracle.get(f, [])
        cv = checked.get(f, [])
        if len(ov) != len(cv):
            disagree.append((f, "?", f"oracle judged {len(ov)} RayJobs", f"check judged {len(cv)}"))
            continue
        for o, c in zip(ov, cv):
            denials = [d for d in c["denials"] if d["rule"] == "kuberay-schema"]
            if o["verdict"] == "crd-refused":
                crd_refused += 1
                pruned += 1
                pruned_shown.append((f, o["name"], "crd-refused", o["message"][:160]))
                continue
            check_denies = bool(denials)
            rejects = o["verdict"] != "accepted"
            if check_denies == rejects:
                agree += 1
                continue
            # Refused before the operator could see it: a field the version's CRD prunes (the
            # operator's own types at that version do not have it: its strict decode names one)
            # or a CRD schema rule. The operator's code gives no verdict on such an object.
            apiserver = check_denies and all(
                UNKNOWN_FIELD in d["message"] or CRD_REFUSES in d["message"] for d in denials)
            if apiserver and (o["unknown"] or any(CRD_REFUSES in d["message"] for d in denials)):
                pruned += 1
                pruned_shown.append((f, o["name"], denials[0]["field"], o["unknown"]))
                continue
            cmsg = "; ".join(f"{d['field']}: {d['message']}" for d in denials) or "allowed"
            disagree.append((f, o["name"], f"operator {o['verdict']} {o['message']}".strip(),
                             f"kuberay-schema {'denies: ' + cmsg if check_denies else 'allows'}"))
    n = agree + len(disagree) + pruned
    print(f"conformance: version={version} gates={gates_label} manifests={n} agree={agree} "
          f"disagree={len(disagree)} apiserver-only={pruned} (crd-refused={crd_refused}, "
          f"judged by the operator={n - crd_refused})")
    for f, name, field, unknown in pruned_shown[:3]:
        print(f"  apiserver-only e.g. {os.path.basename(f)} ({name}): {field} {unknown}".rstrip())
    for f, name, a, b in disagree[:show]:
        print(f"  DISAGREE {f} ({name}):\n    {a}\n    {b}")
    return len(disagree)


def fixes_agree(version, gates_label, binary, oracle, policy, checked, files, tmp, show):
    """One round of `check --fix` on every RayJob kuberay-schema denies; then the operator must
    accept each one whose findings all had a literal fix, and kuberay-schema must admit it; a
    RayJob with findings left to the tenant may keep only those. Returns the failures."""
    # One JSON object per file (the variants and golden objects), so the documents `check --fix`
    # prints line up with its files; the corpus's multi-document files are conformance.fixes'.
    denied = [f for f in files if f.endswith(".json") and len(checked.get(f, [])) == 1 and
              any(d["rule"] == "kuberay-schema" for d in checked[f][0]["denials"])]
    fixed_dir = os.path.join(tmp, f"fixed-{version}-{gates_label}")
    os.makedirs(fixed_dir, exist_ok=True)
    fixed = []
    for i in range(0, len(denied), 4000):
        batch = denied[i:i + 4000]
        code, printed, err = run([binary, "check", "--policy", policy, "--fix"] + batch,
                                 timeout=TIMEOUT)
        docs = [d for d in printed.split("---\n") if d.strip()]
        if code == 2 or len(docs) != len(batch):
            fail(f"conformance: check --fix failed ({code}, {len(docs)} documents for "
                 f"{len(batch)} files): {err.strip()[:2000]}")
        for f, d in zip(batch, docs):
            out = os.path.join(fixed_dir, os.path.basename(f) + ".json")
            with open(out, "w") as w:
                w.write(d)
            fixed.append(out)
    listfile = os.path.join(tmp, f"list-fixed-{version}-{gates_label}")
    with open(listfile, "w") as f:
        f.write("\n".join(fixed) + "\n")
    ov = oracle_verdicts(oracle, policy, listfile) if fixed else {}
    cv = check_verdicts(binary, policy, fixed) if fixed else {}
    complete = accepted = left = 0
    failures = []
    for src, out in zip(denied, fixed):
        before = [d for d in checked[src][0]["denials"] if d["rule"] == "kuberay-schema"]
        theirs = {(d["field"], d["message"]) for d in before if not d["fix"]}
        after = [d for d in cv.get(out, [{"denials": []}])[0]["denials"] if d["rule"] == "kuberay-schema"]
        verdict = ov.get(out, [{"verdict": "missing", "message": ""}])[0]
        new = [d for d in after if (d["field"], d["message"]) not in theirs]
        if new:
            failures.append((src, "kuberay-schema still denies after the fix: " +
                             "; ".join(f"{d['field']}: {d['message']}" for d in new)))
        elif theirs:
            left += 1
        else:
            complete += 1
            if verdict["verdict"] == "accepted":
                accepted += 1
            else:
                failures.append((src, f"the operator {verdict['verdict']} the fixed manifest: "
                                      f"{verdict['message']}"))
    print(f"fixes: version={version} gates={gates_label} denied={len(denied)} fixed={complete} "
          f"operator-accepts-fixed={accepted} left-to-tenant={left} failures={len(failures)}")
    for f, why in failures[:show]:
        print(f"  FIX FAILS {f}:\n    {why}")
    return len(failures)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rayjob-guard", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--oracle", action="append", required=True, help="VERSION=PATH, e.g. 1.5=/x/oracle")
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--show", type=int, default=20)
    a = ap.parse_args()
    total = 0
    with tempfile.TemporaryDirectory(prefix="rjg-conformance-") as tmp:
        corpus = repo_manifests(a.repo, tmp)
        for spec in a.oracle:
            version, _, oracle = spec.partition("=")
            vdir = os.path.join(tmp, "v" + version)
            run([sys.executable, os.path.join(HERE, "variants.py"), "--version", version,
                 "--count", str(a.count), "--seed", str(a.seed), "--out", vdir],
                timeout=TIMEOUT, check=True)
            files = corpus + sorted(glob.glob(os.path.join(vdir, "*.json")))
            listfile = os.path.join(tmp, f"list-{version}")
            with open(listfile, "w") as f:
                f.write("\n".join(files) + "\n")
            gate_sets = [("default", {})]
            minor = int(version.split(".")[1])
            if 3 <= minor <= 5:
                gate_sets.append(("RayJobDeletionPolicy=true", {"RayJobDeletionPolicy": True}))
            if minor >= 6:
                gate_sets.append(("all-on", {g: True for g in oracle_gates(oracle)}))
            for label, gates in gate_sets:
                policy = os.path.join(tmp, f"policy-{version}-{len(gates)}.yaml")
                with open(policy, "w") as f:
                    f.write(policy_yaml(version, gates))
                ov = oracle_verdicts(oracle, policy, listfile)
                cv = check_verdicts(a.rayjob_guard, policy, files)
                total += compare(version, label, ov, cv, files, a.show)
                total += fixes_agree(version, label, a.rayjob_guard, oracle, policy, cv, files,
                                     tmp, a.show)
    check(total == 0, f"conformance: {total} disagreements and fix failures (above)")


if __name__ == "__main__":
    main()
