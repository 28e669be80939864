#!/usr/bin/env python3
"""Seeded, deterministic RayJob variants for the KubeRay conformance test.

Starts from RayJobs the operator of the given version accepts and mutates them: every known field
set to a valid value, unset, set out of range, and random combinations of two to four such
mutations. Only fields that version's API knows are touched (a field the version does not know is
pruned by the apiserver, which is not the operator's verdict), and only values the version's CRD
schema admits are written (types, enums, minItems, CEL): what reaches the operator. The 1.6
oracle runs the CRD itself, so a value crd_admits lets through wrongly shows up there as
crd-refused. runtimeEnvYAML, rayVersion, spec.metadata and submitterPodTemplate get the values
that reach the operator's YAML-to-JSON conversion, its two version parsers and its submitter.

    variants.py --version 1.5 --count 10000 --seed 15 --out DIR

writes DIR/NNNNN.json, one RayJob per file (JSON is YAML), and prints the number written.
Same arguments, same files, byte for byte.
"""
import argparse
import copy
import json
import os
import random
import sys

DEL = object()  # "unset this field"


def head_container(**extra):
    c = {
        "name": "ray-head",
        "image": "rayproject/ray:2.46.0",
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"},
                      "limits": {"cpu": "1", "memory": "2Gi"}},
    }
    c.update(extra)
    return c


def worker_group(name="small"):
    return {
        "groupName": name,
        "replicas": 1,
        "minReplicas": 1,
        "maxReplicas": 2,
        "rayStartParams": {},
        "template": {"spec": {"containers": [{
            "name": "ray-worker",
            "image": "rayproject/ray:2.46.0",
            "resources": {"requests": {"cpu": "1", "memory": "2Gi"},
                          "limits": {"cpu": "1", "memory": "2Gi"}},
        }]}},
    }


def cluster_spec():
    return {
        "rayVersion": "2.46.0",
        "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [head_container()]}}},
        "workerGroupSpecs": [worker_group()],
    }


def job(name, spec):
    return {"apiVersion": "ray.io/v1", "kind": "RayJob",
            "metadata": {"name": name, "namespace": "tenant-a"}, "spec": spec}


def bases(minor):
    """Valid RayJobs (the operator of 1.<minor> accepts them with the gates at their defaults)."""
    out = [
        job("plain", {"entrypoint": "python /app/main.py", "rayClusterSpec": cluster_spec()}),
        job("shutdown", {"entrypoint": "python /app/main.py", "shutdownAfterJobFinishes": True,
                         "ttlSecondsAfterFinished": 60, "activeDeadlineSeconds": 3600,
                         "backoffLimit": 1, "submissionMode": "K8sJobMode",
                         "runtimeEnvYAML": "pip:\n  - requests==2.26.0\n",
                         "rayClusterSpec": cluster_spec()}),
        job("selector", {"entrypoint": "python /app/main.py",
                         "clusterSelector": {"ray.io/cluster": "shared"}}),
        job("autoscale", dict(entrypoint="python /app/main.py",
                              rayClusterSpec=dict(cluster_spec(), enableInTreeAutoscaling=True,
                                                  autoscalerOptions={"version": "v2"}))),
        job("interactive", {"submissionMode": "InteractiveMode", "rayClusterSpec": cluster_spec()}),
        job("http", {"entrypoint": "python /app/main.py", "submissionMode": "HTTPMode",
                     "rayClusterSpec": cluster_spec()}),
    ]
    if minor >= 5:
        out.append(job("sidecar", {"entrypoint": "python /app/main.py", "submissionMode": "SidecarMode",
                                   "rayClusterSpec": cluster_spec()}))
    return out


def mutations(minor):
    """(path, value) pairs; value DEL unsets. Each is a single field change."""
    m = []

    def add(path, *values):
        for v in values:
            m.append((tuple(path), v))

    S = ["spec"]
    RC = S + ["rayClusterSpec"]
    HEAD = RC + ["headGroupSpec"]
    HPOD = HEAD + ["template", "spec"]
    HC = HPOD + ["containers", 0]
    W = RC + ["workerGroupSpecs", 0]
    WPOD = W + ["template", "spec"]

    add(["metadata", "name"], "j" * 47, "j" * 48, "1" * 47, "a1", "x-y", "ab-", "-ab", "7up",
        "a" * 63, "a" * 64)
    add(["metadata", "annotations"], {"ray.io/ft-enabled": "true"}, {"ray.io/ft-enabled": "TRUE"},
        {"ray.io/ft-enabled": "false"}, {"ray.io/external-storage-namespace": "ns1"},
        {"ray.io/ft-enabled": "true", "ray.io/external-storage-namespace": "ns1"}, {"team": "a"}, DEL)
    add(S + ["entrypoint"], DEL, "", "python x.py")
    add(S + ["suspend"], True, False, DEL)
    add(S + ["shutdownAfterJobFinishes"], True, False, DEL)
    add(S + ["ttlSecondsAfterFinished"], -5, -1, 0, 1, 10, 86400, DEL)
    add(S + ["activeDeadlineSeconds"], -1, 0, 1, 3600, DEL)
    add(S + ["backoffLimit"], -1, 0, 1, 2, DEL)
    modes = ["K8sJobMode", "HTTPMode", "InteractiveMode"] + (["SidecarMode"] if minor >= 5 else [])
    add(S + ["submissionMode"], *modes, DEL)
    submitter = {"name": "submit", "image": "rayproject/ray:2.46.0"}
    add(S + ["submitterPodTemplate"], {"spec": {"restartPolicy": "Never", "containers": [submitter]}},
        {"spec": {"restartPolicy": "Never", "containers": []}},
        {"spec": {"restartPolicy": "OnFailure", "containers": [
            dict(submitter, command=["ray", "job", "submit", "--", "python", "x.py"])]}},
        {"spec": {"restartPolicy": "Never", "containers": [submitter, {"name": "log", "image": "busybox:1.36"}]}},
        {"metadata": {"labels": {"a": "b"}}, "spec": {"restartPolicy": "Never", "containers": []}},
        DEL)
    add(S + ["submitterConfig"], {"backoffLimit": 1}, {}, DEL)
    add(S + ["clusterSelector"], {"ray.io/cluster": "shared"}, {"ray.io/cluster": ""},
        {"other": "x"}, {}, {"ray.io/cluster": "c", "team": "a"}, DEL)
    add(S + ["rayClusterSpec"], DEL, cluster_spec())
    add(S + ["runtimeEnvYAML"], "pip: [requests]", "invalid_yaml_str", "- a\n- b", "a: [", "",
        "42", "null", "{}", "env_vars:\n  A: b\n", "a: b\n  c: d", DEL, *RUNTIME_ENVS)
    add(S + ["jobId"], "raysubmit_1", DEL)
    add(S + ["metadata"], {"k": "v"}, {"owner": "team-a", "run": "7"}, {}, DEL)
    add(S + ["entrypointNumCpus"], 1.5, DEL)
    if minor >= 6:
        add(S + ["preRunningDeadlineSeconds"], -1, 0, 1, 60, 3600, DEL)
        add(RC + ["upgradeStrategy"], {"type": "Recreate"}, {"type": "None"}, {}, DEL)
    if minor in (3, 4):
        add(S + ["deletionPolicy"], "DeleteCluster", "DeleteWorkers", "DeleteSelf", "DeleteNone", DEL)
    if minor >= 5:
        def rule(policy, status, ttl=None, deployment=None):
            c = {"jobStatus": status} if status else {}
            if deployment:
                c["jobDeploymentStatus"] = deployment
            if ttl is not None:
                c["ttlSeconds"] = ttl
            return {"policy": policy, "condition": c}
        pol = ["DeleteCluster", "DeleteWorkers", "DeleteSelf", "DeleteNone"]
        for a in pol:
            for b in pol:
                add(S + ["deletionStrategy"], {"onSuccess": {"policy": a}, "onFailure": {"policy": b}})
        add(S + ["deletionStrategy"],
            {"onSuccess": {"policy": "DeleteSelf"}, "onFailure": {}},
            {"onSuccess": {}, "onFailure": {"policy": "DeleteSelf"}},
            {"deletionRules": [rule("DeleteSelf", "SUCCEEDED", 10)]},
            {"deletionRules": [rule("DeleteSelf", "SUCCEEDED")]},
            {"deletionRules": [rule("DeleteWorkers", "FAILED", 0)]},
            {"deletionRules": [rule("DeleteCluster", "FAILED", 60)]},
            {"deletionRules": [rule("DeleteNone", "FAILED", 60)]},
            {"deletionRules": [rule("DeleteSelf", "SUCCEEDED", 10), rule("DeleteSelf", "SUCCEEDED", 20)]},
            {"deletionRules": [rule("DeleteWorkers", "SUCCEEDED", 10), rule("DeleteCluster", "SUCCEEDED", 20),
                               rule("DeleteSelf", "SUCCEEDED", 30), rule("DeleteSelf", "FAILED", 0)]},
            {"deletionRules": [rule("DeleteWorkers", "SUCCEEDED", 20), rule("DeleteCluster", "SUCCEEDED", 10)]},
            {"deletionRules": [rule("DeleteCluster", "FAILED", 20), rule("DeleteSelf", "FAILED", 10)]},
            {"deletionRules": [rule("DeleteWorkers", "FAILED", 30), rule("DeleteSelf", "FAILED", 10)]},
            {"deletionRules": [rule("DeleteNone", "FAILED", 30), rule("DeleteSelf", "FAILED", 10)]},
            {"deletionRules": [rule("DeleteSelf", "SUCCEEDED", 60), rule("DeleteSelf", "FAILED", 600)]},
            DEL)
    if minor >= 6:
        failed = "Failed"
        add(S + ["deletionStrategy"],
            {"deletionRules": [rule("DeleteSelf", None, 60, failed)]},
            {"deletionRules": [rule("DeleteCluster", None, 0, failed), rule("DeleteSelf", None, 600, failed)]},
            {"deletionRules": [rule("DeleteSelf", None, 10, failed), rule("DeleteCluster", None, 60, failed)]},
            {"deletionRules": [rule("DeleteSelf", None, 10, failed), rule("DeleteSelf", None, 20, failed)]},
            {"deletionRules": [rule("DeleteWorkers", None, 5, failed), rule("DeleteSelf", "SUCCEEDED", 60)]},
            {"deletionRules": [rule("DeleteNone", None, 5, failed)]},
            {"deletionRules": [rule("DeleteSelf", "SUCCEEDED", 60), rule("DeleteSelf", "FAILED", 600),
                               rule("DeleteSelf", None, 600, failed)]},
            {"deletionRules": [rule("DeleteSelf", "FAILED", 60, failed)]},
            {"deletionRules": [rule("DeleteSelf", None, 60)]})
    add(RC + ["enableInTreeAutoscaling"], True, False, DEL)
    add(RC + ["autoscalerOptions"], {"version": "v2"}, {"version": "v1"}, {}, DEL)
    add(RC + ["rayVersion"], "2.46.0", "", DEL, *RAY_VERSIONS)
    add(RC + ["gcsFaultToleranceOptions"], {"redisAddress": "redis:6379"},
        {"redisAddress": "redis:6379", "externalStorageNamespace": "ns1"}, DEL)
    add(RC + ["headServiceAnnotations"], {"a": "b"})
    add(HPOD + ["restartPolicy"], "Always", "Never", "OnFailure", DEL)
    add(HPOD + ["containers"], [], [head_container(), {"name": "side", "image": "busybox:1.36"}])
    env_values = [
        [{"name": "RAY_REDIS_ADDRESS", "value": "redis:6379"}],
        [{"name": "REDIS_PASSWORD", "value": "p"}],
        [{"name": "REDIS_USERNAME", "value": "u"}],
        [{"name": "RAY_enable_autoscaler_v2", "value": "1"}],
        [{"name": "RAY_enable_autoscaler_v2", "value": "true"}],
        [{"name": "RAY_enable_autoscaler_v2", "value": "0"}],
        [{"name": "RAY_enable_autoscaler_v2", "value": "True"}],
        [{"name": "OTHER", "value": "1"}],
        DEL,
    ]
    add(HC + ["env"], *env_values)
    add(HEAD + ["rayStartParams"], {"num-cpus": "1"}, {"memory": "1000"}, {"resources": '"{}"'},
        {"num-gpus": "0"}, {"labels": "a=b"}, {"redis-password": "p"}, {"redis-username": "u"},
        {"num-cpus": ""}, {"dashboard-host": "0.0.0.0"}, {})
    add(W + ["replicas"], -1, 0, 1, 3, DEL)
    add(W + ["minReplicas"], -1, 0, 1, 3, DEL)
    add(W + ["maxReplicas"], -1, 0, 1, 3, DEL)
    add(W + ["numOfHosts"], 1, 2)
    add(W + ["suspend"], True, False, DEL)
    add(W + ["groupName"], "g2", "")
    add(WPOD + ["containers"], [])
    add(WPOD + ["restartPolicy"], "Always", "Never", DEL)
    add(W + ["rayStartParams"], {"num-cpus": "1"}, {"labels": "a=b"}, {"resources": '"{}"'}, {})
    add(W + ["idleTimeoutSeconds"], 60)
    add(RC + ["workerGroupSpecs"], [], [worker_group("a"), worker_group("b")], DEL)
    if minor >= 5:
        for grp in (HEAD, W):
            add(grp + ["resources"], {"CPU": "1"}, {}, DEL)
            add(grp + ["labels"], {"team": "a"}, {"ray.io/x": "y"}, {"bad key": "v"}, {"k": "bad value!"},
                {"k": "-v"}, {"a/b/c": "v"}, {"k" * 64: "v"}, {"k": "v" * 64}, {}, DEL)
    return m


def apply(obj, path, value):
    cur = obj
    for i, k in enumerate(path[:-1]):
        nxt = path[i + 1]
        if isinstance(cur, list):
            if k >= len(cur):
                return False
            cur = cur[k]
            continue
        if k not in cur or not isinstance(cur[k], (dict, list)):
            if value is DEL:
                return True
            if isinstance(nxt, int):
                return False  # never invent list items
            cur[k] = {}
        cur = cur[k]
    last = path[-1]
    if isinstance(cur, list):
        if last >= len(cur):
            return False
        if value is DEL:
            cur.pop(last)
        else:
            cur[last] = copy.deepcopy(value)
        return True
    if value is DEL:
        cur.pop(last, None)
    else:
        cur[last] = copy.deepcopy(value)
    return True


# runtimeEnvYAML the operator's YAML-to-JSON conversion (sigs.k8s.io/yaml over go-yaml v2) takes
# or refuses: null and non-scalar keys, values JSON cannot hold, YAML 1.1 scalars, aliases and
# merges, tags, more than one document, whitespace.
RUNTIME_ENVS = [
    "~: a", "null: a", "env_vars:\n  ~: b", "? [a, b]\n: c", "? {a: 1}\n: c", "a: {? [x] : y}",
    "a: .nan", "a: .inf", "a: -.inf", "a: [1, .NaN]", "env_vars:\n  A: .Inf", ".nan: a", ".inf: 1",
    "a: 1e400", "a: 1e3", "a: 0x1F", "a: 0o17", "a: 017", "a: 1_000", "a: 12345678901234567890",
    "a: 123456789012345678901234", "yes: 1", "on: [a]", "1: a", "1.5: a", "a: 2001-12-14",
    "a: !!binary aGVsbG8=", "a: !!str 1", "a: !custom x", "a: !!float 1", "a: &x [1]\nb: *x",
    "base: &b {x: 1}\nc:\n  <<: *b\n  y: 2", "a: 1\na: 2", "\"\": 1", "a:\n  - b: c",
    "a: 1\n---\nb: .nan", "---\na: 1\n...\n", "# only a comment", "   ", "a:\tb", "a: 'x'\n",
    "pip:\n  - requests==2.26.0\n  - ~\n", "pip: {packages: [a], pip_check: false}",
    "working_dir: s3://bucket/x.zip\nenv_vars: {K: v}", "a: \"\\u0000\"", "a: |\n  x\n  y\n",
]

# rayVersion for the operator's two parsers: k8s.io ParseGeneric (authOptions) and Masterminds
# semver with ">= 2.6.0" (spec.metadata, when it builds the submitter).
RAY_VERSIONS = [
    " 2.46.0", "\t2.52.0", "2.46.0 ", "v2.46.0", "V2.46.0", "2.5.0", "2.6.0", "2.6", "2", "2.5.99",
    "2.46.0-rc1", "2.46.0+build.1", "2.46.0-rc.01", "2.46.0-", "02.46.0", "2.046.0", "2.46.0.1",
    "latest", "nightly", "2.x", "99999999999999999999.0.0", "3.0.0", "2.52.0", "2.60.0",
]


def crd_admits(obj, minor):
    """What the version's CRD schema refuses before the operator sees it (v1.0-v1.6 CEL)."""
    spec = obj.get("spec", {})
    if minor <= 2 and "entrypoint" not in spec:
        return False
    rc = spec.get("rayClusterSpec")
    if rc is not None:
        # Required: headGroupSpec, its template and the template's containers (a mutation of a
        # cluster field writes a partial rayClusterSpec where there was none).
        if "containers" not in rc.get("headGroupSpec", {}).get("template", {}).get("spec", {}):
            return False
        for g in rc.get("workerGroupSpecs", []):
            if "groupName" not in g:
                return False
    ds = spec.get("deletionStrategy")
    if ds is not None and minor >= 5:
        legacy = "onSuccess" in ds or "onFailure" in ds
        if legacy and "deletionRules" in ds:
            return False
        if not (("onSuccess" in ds and "onFailure" in ds) or "deletionRules" in ds):
            return False
        for k in ("onSuccess", "onFailure"):
            if k in ds and "policy" not in ds[k]:
                return False  # policy is required in the CRD
        for r in ds.get("deletionRules", []):
            c = r.get("condition", {})
            # 1.5: jobStatus is required; 1.6: exactly one of jobStatus, jobDeploymentStatus.
            if minor == 5 and "jobStatus" not in c:
                return False
            if minor >= 6 and ("jobStatus" in c) == ("jobDeploymentStatus" in c):
                return False
    if minor >= 6 and spec.get("preRunningDeadlineSeconds", 1) < 1:
        return False  # minimum: 1
    return True


def generate(minor, count, seed):
    rng = random.Random(seed)
    base = bases(minor)
    muts = mutations(minor)
    seen = set()
    out = []

    def emit(obj):
        key = json.dumps(obj, sort_keys=True)
        if key in seen or not crd_admits(obj, minor):
            return
        seen.add(key)
        out.append(obj)

    for b in base:
        emit(copy.deepcopy(b))
    # Every single mutation of every base.
    for b in base:
        for path, value in muts:
            o = copy.deepcopy(b)
            if apply(o, path, value):
                emit(o)
    # Combinations of two to four mutations until `count`.
    attempts = 0
    while len(out) < count and attempts < count * 50:
        attempts += 1
        o = copy.deepcopy(rng.choice(base))
        for path, value in rng.sample(muts, rng.choice((2, 2, 3, 4))):
            apply(o, path, value)
        emit(o)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--version", required=True, help="KubeRay minor version, e.g. 1.5")
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    major, _, minor = a.version.partition(".")
    if major != "1" or not minor.isdigit() or not 0 <= int(minor) <= 7:
        sys.exit(f"variants.py: --version must be 1.0 to 1.7, got {a.version!r}")
    objs = generate(int(minor), a.count, a.seed + int(minor))
    os.makedirs(a.out, exist_ok=True)
    for i, o in enumerate(objs):
        o["metadata"].setdefault("labels", {})["conformance/variant"] = str(i)
        with open(os.path.join(a.out, f"{i:05d}.json"), "w") as f:
            json.dump(o, f, sort_keys=True)
            f.write("\n")
    print(len(objs))


if __name__ == "__main__":
    main()
