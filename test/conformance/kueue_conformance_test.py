#!/usr/bin/env python3
"""The Kueue conformance test: kueue-webhook (with reap-self and kuberay-schema, which own two of
Kueue's refusals) against Kueue's own webhook code (kueue-oracle, built by build-kueue-oracle.sh).

Inputs, all judged by both sides:
  - CREATE: every corpus, golden and tenant RayJob and the generated variants of variants.py
    (KubeRay 1.6, the version Kueue v0.19.2 is built against), each as written and labelled for
    Kueue (kueue.x-k8s.io/queue-name, spec.suspend: true as Kueue's mutating webhook sets it),
    plus variants aimed at each refusal of Kueue's: shutdownAfterJobFinishes, clusterSelector with
    or without rayClusterSpec, in-tree autoscaling with and without the elastic-job annotation,
    15 to 18 worker groups in every submission mode, worker group names Kueue's Workload cannot
    hold (head, HEAD, submitter, under_score, duplicates, 64 characters), queue names that are not
    DNS-1123 subdomains, max-exec-time-seconds labels Kueue does not parse;
  - UPDATE: AdmissionReviews with oldObject, the queue-name, priority-class, max-exec-time-seconds
    labels and the elastic-job annotation added, changed and removed, old and new object each
    suspended or not, and seeded combinations of those with spec changes Kueue refuses.
Kueue's side is the oracle's verdict; "refuses" also counts a RayJob Kueue admits but can never
build a Workload for (more than 18 PodSets with the K8sJobMode submitter, PodSet names the
Workload CRD refuses). Our side is `rayjob-guard check -o json` (CREATE) and `rayjob-guard review`
(UPDATE) under a policy with kueue-webhook and kuberay-schema enforced, and a second one adding
reap-self (which then owns shutdownAfterJobFinishes); every other rule is off.

A RayJob agrees when each of Kueue's errors is covered by a finding (denial or, on an UPDATE the
old object already had it, a ratcheted warning) of those rules at the same field (Kueue's
spec.rayClusterSpec.enableInTreeAutoscaling is our elastic-job annotation; a Workload error is a
kueue-webhook finding on the worker groups; an error without a field, such as a panic, is covered
by any finding), and when Kueue admits it, kueue-webhook denies nothing. Findings of reap-self and
kuberay-schema that Kueue does not check are not disagreements. A RayJob the apiserver refuses
through the RayJob CRD reaches no webhook and is counted apart. Prints, per policy and Kueue
setting,
  kueue-conformance: policy=kueue-webhook+kuberay-schema kueue=queue-label manifests=N agree=N
      disagree=0 (create=C update=U kueue-refuses=R workload-impossible=W crd-refused=K)
and fails listing the first disagreements with both verdicts.

Not generated (kueue-webhook does not restate them, docs/rules.md): the prebuilt-workload name,
the admission-gated-by annotation, topology annotations on pod templates, pod template contents
the apiserver would refuse in the pods too (negative quantities, invalid label keys), and a
queue-name label removed in a namespace with a default LocalQueue (a refusal that depends on the
cluster).

    kueue_conformance_test.py --rayjob-guard BIN --repo ROOT --oracle PATH
                              [--count 3000] [--seed 25] [--show 20]
"""
import argparse
import copy
import itertools
import json
import os
import random
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import check, fail, run  # noqa: E402
import conformance_test  # noqa: E402  (repo_manifests, check_verdicts, RULES, OFF, TIMEOUT)
import variants  # noqa: E402  (generate, job, cluster_spec, worker_group)

KUBERAY_MINOR = 6  # Kueue v0.19.2 requires ray-operator v1.6.2
QUEUE = "kueue.x-k8s.io/queue-name"
PRIORITY = "kueue.x-k8s.io/priority-class"
MAX_EXEC = "kueue.x-k8s.io/max-exec-time-seconds"
ELASTIC = "kueue.x-k8s.io/elastic-job"
RESTATING = ("kueue-webhook", "kuberay-schema", "reap-self")
ALL_RULES = conformance_test.RULES + ["kueue-webhook"]
WORKER_GROUPS = "spec.rayClusterSpec.workerGroupSpecs"
# Kueue's field -> ours, where they differ.
FIELD_MAP = {"spec.rayClusterSpec.enableInTreeAutoscaling": f"metadata.annotations[{ELASTIC}]"}


def policy_yaml(enforced, manage_all):
    rules = ", ".join(f"{r}: {'enforce' if r in enforced else conformance_test.OFF}"
                      for r in ALL_RULES)
    return ("apiVersion: rayjob-guard.io/v1\nkind: Policy\nkuberay:\n  version: \"1.6\"\n"
            f"kueue:\n  manageJobsWithoutQueueName: {str(manage_all).lower()}\n"
            f"rules: {{{rules}}}\n")


def labelled(obj, queue="team-a"):
    """obj as Kueue's mutating webhook leaves it: the queue label, suspend: true."""
    o = copy.deepcopy(obj)
    o.setdefault("metadata", {}).setdefault("labels", {})[QUEUE] = queue
    o.setdefault("spec", {})["suspend"] = True
    return o


def unlabelled(obj):
    o = copy.deepcopy(obj)
    labels = o.get("metadata", {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(QUEUE, None)
    return o


def kueue_base(name="kq", **spec):
    """A RayJob in the form Kueue accepts (labelled, suspended, shutdownAfterJobFinishes)."""
    s = {"entrypoint": "python /app/main.py", "shutdownAfterJobFinishes": True,
         "rayClusterSpec": variants.cluster_spec()}
    s.update(spec)
    return labelled(variants.job(name, s))


def groups(n, names=None):
    names = names or [f"g{i}" for i in range(n)]
    return [variants.worker_group(x) for x in names]


def refusal_variants():
    """CREATE variants aimed at each of Kueue's refusals (labelled; unlabelled forms are added)."""
    out = []
    add = out.append
    for shutdown in (False, None):
        o = kueue_base()
        if shutdown is None:
            del o["spec"]["shutdownAfterJobFinishes"]
        else:
            o["spec"]["shutdownAfterJobFinishes"] = shutdown
        add(o)
    o = kueue_base()
    o["spec"]["clusterSelector"] = {"ray.io/cluster": "shared"}
    add(o)
    for shutdown in (True, False):
        o = kueue_base(shutdownAfterJobFinishes=shutdown)
        del o["spec"]["rayClusterSpec"]
        add(copy.deepcopy(o))
        o["spec"]["clusterSelector"] = {"ray.io/cluster": "shared"}
        add(o)
    for annotation in (None, "true", "false", "True", ""):
        o = kueue_base()
        o["spec"]["rayClusterSpec"]["enableInTreeAutoscaling"] = True
        o["spec"]["rayClusterSpec"]["autoscalerOptions"] = {"version": "v2"}
        if annotation is not None:
            o["metadata"]["annotations"] = {ELASTIC: annotation}
        add(o)
    o = kueue_base()
    o["metadata"]["annotations"] = {ELASTIC: "true"}
    add(o)
    for n in (15, 16, 17, 18):
        for mode in (None, "K8sJobMode", "HTTPMode", "SidecarMode", "InteractiveMode"):
            o = kueue_base()
            o["spec"]["rayClusterSpec"]["workerGroupSpecs"] = groups(n)
            if mode:
                o["spec"]["submissionMode"] = mode
            if mode == "InteractiveMode":
                del o["spec"]["entrypoint"]
            add(o)
    names = [["head"], ["Head"], ["HEAD"], ["submitter"], ["Submitter"], ["main"], ["g_1"],
             ["g.1"], ["G1"], ["a" * 63], ["a" * 64], ["-g"], ["g-"], ["1g"], [""], ["", ""],
             ["a", "A"], ["a", "b", "a"], ["head", "submitter"], ["gpu-workers", "cpu_workers"]]
    for ns in names:
        for mode in ("K8sJobMode", "HTTPMode"):
            o = kueue_base(submissionMode=mode)
            o["spec"]["rayClusterSpec"]["workerGroupSpecs"] = groups(len(ns), ns)
            add(o)
    for queue in ("team-a", "team.a", "Team-A", "team_a", "1team", "team-", "a" * 63, ""):
        add(labelled(kueue_base(), queue))
    for value in ("600", "1", "007", "0", "00", "1e3", "600s", "1.5", "2147483648",
                  "99999999999999999999", ""):
        o = kueue_base()
        o["metadata"]["labels"][MAX_EXEC] = value
        add(o)
    for value in ("high", ""):
        o = kueue_base()
        o["metadata"]["labels"][PRIORITY] = value
        add(o)
    return out


def create_inputs(repo, tmp, count, seed):
    """(files for both sides, number of RayJobs) of every CREATE input."""
    files = conformance_test.repo_manifests(repo, tmp)
    repo_objs = []
    for f in files:
        with open(f) as fh:
            docs = [json.load(fh)] if f.endswith(".json") else list(yaml.safe_load_all(fh))
        repo_objs += [d for d in docs if isinstance(d, dict) and d.get("kind") == "RayJob"]
    generated = variants.generate(KUBERAY_MINOR, count, seed + KUBERAY_MINOR) + refusal_variants()
    forms = []
    # The repository's files are judged as written (below) and in the other form; a generated
    # RayJob in both forms.
    for i, o in enumerate(repo_objs + generated):
        if i >= len(repo_objs):
            forms.append(o)
        has_queue = QUEUE in (o.get("metadata", {}).get("labels") or {})
        forms.append(unlabelled(o) if has_queue else labelled(o))
    out_dir = os.path.join(tmp, "create")
    os.makedirs(out_dir, exist_ok=True)
    seen = set()
    written = list(files)  # the repository's files as written, YAML and all
    for form in forms:
        key = json.dumps(form, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        path = os.path.join(out_dir, f"{len(written):05d}.json")
        with open(path, "w") as fh:
            json.dump(form, fh, sort_keys=True)
        written.append(path)
    return written


def review(obj, old):
    """An AdmissionReview UPDATE request, the shape of test/golden's."""
    meta = obj.get("metadata", {})
    gvk = {"group": "ray.io", "version": "v1", "kind": "RayJob"}
    gvr = {"group": "ray.io", "version": "v1", "resource": "rayjobs"}
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "00000000-0000-4000-8000-00000000c0de", "kind": gvk,
                        "resource": gvr, "requestKind": gvk, "requestResource": gvr,
                        "name": meta.get("name", ""),
                        "namespace": meta.get("namespace", "tenant-a"),
                        "operation": "UPDATE",
                        "userInfo": {"username": "system:serviceaccount:tenant-a:jupyter-notebook"},
                        "object": obj, "oldObject": old, "dryRun": False}}


def set_meta(o, where, key, value):
    m = o.setdefault("metadata", {}).setdefault(where, {})
    if value is None:
        m.pop(key, None)
    else:
        m[key] = value


def spec_change(rng, spec):
    """Applies to `spec` one change Kueue refuses, or none."""
    rc = spec.get("rayClusterSpec")
    change = rng.randrange(6)
    if change == 0:
        spec["shutdownAfterJobFinishes"] = False
    elif change == 1:
        spec["clusterSelector"] = {"ray.io/cluster": "shared"}
    elif rc and change == 2:
        rc["enableInTreeAutoscaling"] = True
    elif rc and change == 3:
        rc["workerGroupSpecs"] = groups(1, ["head"])
    elif rc and change == 4:
        rc["workerGroupSpecs"] = groups(17)


def update_pairs(seed):
    """(old, new) RayJob pairs."""
    bases = []
    for b in variants.bases(KUBERAY_MINOR):
        spec = copy.deepcopy(b["spec"])
        spec["shutdownAfterJobFinishes"] = True
        if spec.get("rayClusterSpec", {}).get("enableInTreeAutoscaling"):
            b = copy.deepcopy(b)
            b.setdefault("metadata", {})["annotations"] = {ELASTIC: "true"}
        bases.append(dict(copy.deepcopy(b), spec=spec))
    pairs = []
    dims = [("labels", QUEUE, [None, "team-a", "team-b"]),
            ("labels", PRIORITY, [None, "high", "low"]),
            ("labels", MAX_EXEC, [None, "600", "1200"]),
            ("annotations", ELASTIC, [None, "true", "false"])]
    for base in bases:
        for where, key, values in dims:
            for before, after, old_s, new_s in itertools.product(values, values, (True, False),
                                                                 (True, False)):
                old = copy.deepcopy(base)
                if key != QUEUE:
                    set_meta(old, "labels", QUEUE, "team-a")
                set_meta(old, where, key, before)
                old["spec"]["suspend"] = old_s
                new = copy.deepcopy(old)
                set_meta(new, where, key, after)
                new["spec"]["suspend"] = new_s
                pairs.append((old, new))
    # Seeded combinations: every dimension at once, and a spec change Kueue refuses (or none).
    rng = random.Random(seed)
    for _ in range(600):
        old = copy.deepcopy(rng.choice(bases))
        new = copy.deepcopy(old)
        for where, key, values in dims:
            set_meta(old, where, key, rng.choice(values))
            set_meta(new, where, key, rng.choice(values))
        old["spec"]["suspend"] = rng.choice((True, False))
        new["spec"]["suspend"] = rng.choice((True, False))
        spec_change(rng, new["spec"])
        pairs.append((old, new))
    return pairs


def update_inputs(tmp, seed):
    out_dir = os.path.join(tmp, "update")
    os.makedirs(out_dir, exist_ok=True)
    files, seen = [], set()
    for old, new in update_pairs(seed):
        key = json.dumps([old, new], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        path = os.path.join(out_dir, f"{len(files):05d}.json")
        with open(path, "w") as fh:
            json.dump(review(new, old), fh, sort_keys=True)
        files.append(path)
    return files


def oracle_verdicts(oracle, manage_all, files, tmp):
    listfile = os.path.join(tmp, "list-oracle")
    with open(listfile, "w") as f:
        f.write("\n".join(files) + "\n")
    cmd = [oracle, "--list", listfile]
    if manage_all:
        cmd.append("--manage-jobs-without-queue-name")
    code, printed, err = run(cmd, timeout=conformance_test.TIMEOUT)
    if code != 0:
        fail(f"kueue-conformance: the oracle failed ({code}): {err.strip()[:2000]}")
    out = {}
    for line in printed.splitlines():
        f, _doc, name, op, verdict, errors, workload = line.split("\t")
        out.setdefault(f, []).append({
            "name": name, "op": op, "verdict": verdict, "errors": json.loads(errors),
            "workload": json.loads(workload) if workload else None})
    return out


def review_verdicts(binary, policy, files):
    """Per file, the findings of `rayjob-guard review`: denials and warnings, as (rule, field)."""
    out = {}
    for f in files:
        code, printed, err = run([binary, "review", "--policy", policy, f],
                                 timeout=conformance_test.TIMEOUT)
        if code != 0:
            fail(f"kueue-conformance: rayjob-guard review {f} failed ({code}): {err.strip()[:2000]}")
        resp = json.loads(printed)["response"]
        denials = []
        for c in ((resp.get("status") or {}).get("details") or {}).get("causes", []):
            rule = c["message"][1:c["message"].index("]")]
            denials.append({"rule": rule, "field": c["field"], "message": c["message"]})
        warnings = []
        for w in resp.get("warnings", []):
            if w.startswith("[") and "] " in w:
                rule, _, rest = w[1:].partition("] ")
                warnings.append({"rule": rule, "field": rest.partition(": ")[0], "message": w})
        out[f] = [{"denials": denials, "warnings": warnings, "allowed": resp["allowed"]}]
    return out


def kueue_refusals(o):
    """Kueue's errors on a RayJob (the webhook's, or why its Workload is impossible), each
    tagged 'webhook' or 'workload'; [] when Kueue takes it."""
    if o["verdict"] == "rejected":
        return [("webhook", e) for e in o["errors"]]
    if o["workload"] and o["workload"]["errors"]:
        return [("workload", e) for e in o["workload"]["errors"]]
    return []


def covered(source, err, ours):
    if not err["field"]:
        return bool(ours)
    if source == "workload":
        return any(f["rule"] == "kueue-webhook" and f["field"].startswith(WORKER_GROUPS)
                   for f in ours)
    want = FIELD_MAP.get(err["field"], err["field"])
    return any(f["field"] == want for f in ours)


def compare(label, oracle, ours, files, show):
    agree, disagree = 0, []
    counts = {"create": 0, "update": 0, "kueue-refuses": 0, "workload-impossible": 0,
              "crd-refused": 0}
    for f in files:
        ov, cv = oracle.get(f, []), ours.get(f, [])
        if len(ov) != len(cv):
            disagree.append((f, "?", f"oracle judged {len(ov)} RayJobs", f"we judged {len(cv)}"))
            continue
        for o, c in zip(ov, cv):
            if o["verdict"] in ("crd-refused", "undecodable"):
                counts["crd-refused"] += 1
                continue
            counts["create" if o["op"] == "CREATE" else "update"] += 1
            findings = [d for d in c["denials"] + c["warnings"] if d["rule"] in RESTATING]
            refusals = kueue_refusals(o)
            if refusals:
                counts["kueue-refuses"] += 1
                counts["workload-impossible"] += refusals[0][0] == "workload"
                missed = [e for src, e in refusals if not covered(src, e, findings)]
                if not missed:
                    agree += 1
                    continue
                kueue = "; ".join(f"{e['field'] or '-'}: {e['detail']}" for e in missed)
                kind = "Workload impossible" if refusals[0][0] == "workload" else "refuses"
                disagree.append((f, o["name"], f"Kueue {o['op']} {kind}: {kueue}",
                                 "ours: " + ("; ".join(f"[{d['rule']}] {d['field']}"
                                                       for d in findings) or "nothing")))
                continue
            ours_deny = [d for d in c["denials"] if d["rule"] == "kueue-webhook"]
            if not ours_deny:
                agree += 1
                continue
            pods = o["workload"]["podSets"] if o["workload"] else None
            disagree.append((f, o["name"],
                             f"Kueue {o['op']} accepts" + (f" (PodSets {pods})" if pods else ""),
                             "kueue-webhook denies: " + "; ".join(
                                 f"{d['field']}: {d['message']}" for d in ours_deny)))
    n = agree + len(disagree)
    print(f"kueue-conformance: {label} manifests={n} agree={agree} disagree={len(disagree)} "
          f"(create={counts['create']} update={counts['update']} "
          f"kueue-refuses={counts['kueue-refuses']} "
          f"workload-impossible={counts['workload-impossible']} "
          f"crd-refused={counts['crd-refused']})")
    for f, name, a, b in disagree[:show]:
        print(f"  DISAGREE {f} ({name}):\n    {a}\n    {b}")
    return len(disagree)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rayjob-guard", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--show", type=int, default=20)
    a = ap.parse_args()
    total = 0
    with tempfile.TemporaryDirectory(prefix="rjg-kueue-conformance-") as tmp:
        creates = create_inputs(a.repo, tmp, a.count, a.seed)
        updates = update_inputs(tmp, a.seed)
        for manage_all in (False, True):
            oracle = oracle_verdicts(a.oracle, manage_all, creates + updates, tmp)
            for enforced in (("kueue-webhook", "kuberay-schema"),
                             ("kueue-webhook", "kuberay-schema", "reap-self")):
                policy = os.path.join(tmp, f"policy-{len(enforced)}-{manage_all}.yaml")
                with open(policy, "w") as f:
                    f.write(policy_yaml(enforced, manage_all))
                ours = conformance_test.check_verdicts(a.rayjob_guard, policy, creates)
                ours.update(review_verdicts(a.rayjob_guard, policy, updates))
                label = (f"policy={'+'.join(enforced)} "
                         f"kueue={'manage-all' if manage_all else 'queue-label'}")
                total += compare(label, oracle, ours, creates + updates, a.show)
    check(total == 0, f"kueue-conformance: {total} disagreements (above)")


if __name__ == "__main__":
    main()
