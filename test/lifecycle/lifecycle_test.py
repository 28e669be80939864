#!/usr/bin/env python3
"""The lifecycle suite (issue 14): the real KubeRay operator brings quota back to zero after every
kind of run, with no manual deletion, or the suite says which run leaked.

usage: lifecycle_test.py GROUP --binary PATH/rayjob-guard [--keep] [--table FILE]
  GROUP v16: ray-operator v1.6.2 under the built-in default policy (only its time bounds and the
             namespaces' quota changed, checked), the RayJobs' deletion setup from `check --fix`:
             succeeded, app failure (its worker freed at failure, its head kept for the logs
             window), pre-start failures by activeDeadlineSeconds and by
             preRunningDeadlineSeconds, a submission failure, and an InteractiveMode RayJob waiting
             for a jobId (activeDeadlineSeconds passes with no effect; preRunningDeadlineSeconds
             ends it); each back to zero with no manual deletion, within its bound
  GROUP v15: case 1 (the seed's trap, webhook unregistered), case 2 deletionRules on 1.5 (the
             pre-start hole: measured as a leak), case 3 (policy validate refuses deletionRules on
             1.5; reaper and operatorDeletesRayJob on 1.5 bring the same three runs to zero)
  GROUP v14: case 2 deletionPolicy (gate on) and reaper (gate off), case 4 (reap with the
             operator stopped, its finalizer), case 5 (cleanup with the webhook down)
  GROUP kueue: Kueue v0.19.2 beside v1.6.2 under the default policy (kueue_group.py): success,
             app failure, pre-start failure, queueing, and the trap with the reaper stopped
  --table FILE  append one JSON line per run (mode, version, outcome, result, seconds to zero)

Per group: one control plane (test/e2e/cluster.sh, with controller-manager and scheduler), kwok
with this directory's Stages, the pod runner (runner.py: real Ray heads and submitters), the
operator out of cluster on loopback (flags and environment from manifests/kuberay/values.yaml via
values.py, checked against its /proc), and rayjob-guard serve registered from the shipped
manifests/base webhook configuration. Every wait is bounded and names what it waited for; every
process is stopped by its PID in a finally block. Exit 0 pass, 1 fail (a missing tool too: it is never a skip)."""

import argparse
import base64
import copy
import glob
import json
import os
import shutil
import signal
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import (Cluster, Failed, fail, free_port, http_ok, need, read_env,  # noqa: E402
                     run, start, wait_until)
from harness import stop as stop_by_pid  # noqa: E402
import values as values_reader  # noqa: E402
from kube import Kube  # noqa: E402

SHIPPED_VALUES = os.path.join(REPO, "manifests", "kuberay", "values.yaml")
SHIPPED_VWC = os.path.join(REPO, "manifests", "base", "validatingwebhookconfiguration.yaml")
IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.41.0"
ANN = "lifecycle.rayjob-guard.io/"
T0 = time.monotonic()

# The test's own policy bounds: seconds, so a run takes a minute, not an hour.
MAX_SUCCEEDED_TTL = 10
MIN_FAILED_TTL = 20
MAX_FAILED_TTL = 40
TTL_SUCCESS = 5          # the RayJobs' own TTLs, within those bounds
TTL_FAILURE = 20
PRESTART_DEADLINE = 25   # activeDeadlineSeconds of the pre-start failure (head held not-ready)
PRE_RUNNING_DEADLINE = 20  # preRunningDeadlineSeconds of the other pre-start failure (1.6+)
# InteractiveMode (1.6+): activeDeadlineSeconds passes while the RayJob waits for its jobId, with
# no effect; preRunningDeadlineSeconds ends the wait. The head must be up before the first
# (measured on a loaded machine: Waiting 33 s after startTime, so 40 s was too tight a margin).
INTERACTIVE_ACTIVE_DEADLINE = 60
INTERACTIVE_PRE_RUNNING_DEADLINE = 90
RUN_DEADLINE = 600       # activeDeadlineSeconds of the runs that should reach the Ray job
REAP_INTERVAL = 2
# Slack over a bound: garbage collection, the quota controller's resync, the operator's requeue.
SLACK = 20


def say(msg):
    print(f"[lifecycle {time.monotonic() - T0:7.1f}s] {msg}", flush=True)


class Proc:
    """A process we started (test/harness's start()), named in the suite's log and stopped by its
    PID (TERM, then KILL after grace seconds)."""

    def __init__(self, name, cmd, log, env=None, cwd=None, grace=20):
        self.name = name
        self.grace = grace
        self.log = log
        self.p = start(cmd, log, env=env, cwd=cwd)
        say(f"started {name} (pid {self.p.pid})")

    @property
    def pid(self):
        return self.p.pid

    def alive(self):
        return self.p.poll() is None

    def wait_http_ok(self, url, timeout):
        """Until GET url (its health probe) answers 200; fails at once if the process exits."""
        wait_until(lambda: http_ok(url), timeout, f"{self.name}: {url} to answer 200", self.p,
                   self.log, poll=0.5)

    def stop(self):
        if self.alive():
            if stop_by_pid(self.p, timeout=self.grace) == -signal.SIGKILL:
                say(f"{self.name} (pid {self.p.pid}) still ran {self.grace} s after TERM; KILLed")
            say(f"stopped {self.name} (pid {self.p.pid})")


class Suite:
    def __init__(self, args):
        self.args = args
        self.work = tempfile.mkdtemp(prefix="rjg-lifecycle.")
        self.cluster = os.path.join(self.work, "cluster")
        self.control = Cluster(self.cluster, script_env={"RJG_BINARY": args.binary})
        self.logs = os.path.join(self.work, "logs")
        os.makedirs(self.logs)
        self.procs = {}
        self.table = []
        self.cluster_up = False
        self.kueue = False  # Kueue runs (kueue_group.py): owned_left counts Workloads too

    # --- peers ---------------------------------------------------------------------------------
    def peer(self, *what):
        r = run([os.path.join(HERE, "build-peers.sh"), *what], timeout=3600, check=True)
        return r.stdout.strip().splitlines()[-1]

    def up(self, operator_versions, before_runner=None):
        """Peers, control plane, CRDs, kwok, then the pod runner. before_runner(suite), when
        given, runs just before the runner starts and returns extra runner arguments (the
        acceptance case's Pod Identity network namespace: acceptance_test.py)."""
        self.bins = {v: self.peer("operator", v) for v in operator_versions}
        self.kwok_bin = os.path.join(self.peer("kwok"), "kwok")
        self.ray_venv = self.peer("ray")
        self.python = os.path.join(self.ray_venv, "bin", "python")
        say(f"peers: operators {self.bins}, kwok {self.kwok_bin}, Ray {self.ray_venv}")
        # The cluster holds the operator's own CRDs, installed verbatim by cluster.sh.
        self.cluster_up = True
        self.control.up("--controller-manager", "--scheduler",
                        env={"RJG_E2E_CRD": "operator",
                             "RJG_E2E_OPERATOR_VERSION": operator_versions[0]})
        self.env = self.control.env
        self.kubeconfig = os.path.join(self.cluster, "admin.kubeconfig")
        self.kube = Kube(self.kubeconfig)
        self.start_kwok()
        self.hosts = os.path.join(self.work, "hosts")
        with open(self.hosts, "w") as f:
            f.write("127.0.0.1 localhost\n")
        extra = before_runner(self) if before_runner else []
        self.procs["runner"] = Proc("pod runner", [
            self.python, os.path.join(HERE, "runner.py"), "--kubeconfig", self.kubeconfig,
            "--ray-venv", self.ray_venv, "--hosts-file", self.hosts, "--log-dir", self.logs,
            "--max-heads", "2", *extra], os.path.join(self.logs, "runner.log"),
            grace=60)  # it stops each Ray head it runs (up to 25 s each) before it exits

    def kc(self, *a, check=True, stdin=None):
        return self.control.kubectl(*a, stdin=stdin, check=check)

    def start_kwok(self):
        kwok_home = os.path.join(self.work, "kwok-home")
        os.makedirs(kwok_home)
        env = dict(os.environ, HOME=kwok_home, KWOK_WORKDIR=kwok_home)
        self.procs["kwok"] = Proc("kwok", [
            self.kwok_bin, "--kubeconfig", self.kubeconfig,
            "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
            "--node-ip=127.0.0.1", "--cidr=127.0.1.0/24", "--node-lease-duration-seconds=40",
            "--server-address=127.0.0.1:0", "-c", os.path.join(HERE, "stages.yaml")],
            os.path.join(self.logs, "kwok.log"), env=env, cwd=kwok_home)
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": "kwok-node-0", "annotations": {"kwok.x-k8s.io/node": "fake"},
                             "labels": {"kubernetes.io/hostname": "kwok-node-0", "type": "kwok"}},
                "spec": {}}
        self.kc("apply", "-f", "-", stdin=json.dumps(node))

        def ready():
            n = self.kube.get("/api/v1/nodes/kwok-node-0", ok404=True)
            conds = (n or {}).get("status", {}).get("conditions") or []
            return any(c["type"] == "Ready" and c["status"] == "True" for c in conds)

        wait_until(ready, 60, "the kwok node kwok-node-0 to be Ready", poll=0.5)
        say("kwok node kwok-node-0 Ready")

    # --- the operator --------------------------------------------------------------------------
    def start_operator(self, version, extra_values=()):
        files = [SHIPPED_VALUES, *[os.path.join(HERE, "values", v) for v in extra_values]]
        flags, env, problems = values_reader.derive(files)
        if problems:
            fail("; ".join(problems))
        metrics, probe = free_port(), free_port()
        penv = dict(os.environ)
        penv.pop("DELETE_RAYJOB_CR_AFTER_JOB_FINISHES", None)
        penv.update(env)
        binary = os.path.join(self.bins[version], "ray-operator")
        # A private mount namespace whose /etc/hosts is the runner's hosts file: the operator
        # reaches <cluster>-head-svc.<ns>.svc.cluster.local:8265 on the head's 127.0.0.X.
        cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c",
               'mount --bind "$0" /etc/hosts && exec "$@"', self.hosts, binary,
               "--kubeconfig", self.kubeconfig, "--enable-leader-election=false",
               f"--metrics-addr=127.0.0.1:{metrics}", f"--health-probe-bind-address=127.0.0.1:{probe}",
               *flags]
        p = Proc(f"ray-operator {version}", cmd, os.path.join(self.logs, f"operator-{version}.log"),
                 env=penv)
        self.procs["operator"] = p

        p.wait_http_ok(f"http://127.0.0.1:{probe}/healthz", 60)
        # The flags it runs with must be what the values files say (unshare execs the operator).
        argv, environ = values_reader.read_proc(p.pid)
        problems = values_reader.compare(files, argv, environ)
        if problems:
            fail("operator flags disagree with the values: " + "; ".join(problems))
        say(f"ray-operator {version} healthy; runs with {values_reader.gates_flag(argv)} "
            f"env {env or '{}'}, as {' + '.join(os.path.relpath(f, REPO) for f in files)} say")

    def stop_operator(self):
        p = self.procs.pop("operator", None)
        if p:
            p.stop()

    # --- the webhook ---------------------------------------------------------------------------
    def webhook(self, cmd, policy=None):
        self.control.script("webhook.sh", cmd, *(["--no-register"] if cmd == "up" else []),
                            env={"RJG_POLICY": policy} if policy else None)

    def register(self, match_conditions=True):
        """The shipped configuration, pointed at the loopback serve (a URL, not a Service)."""
        with open(SHIPPED_VWC) as f:
            vwc = yaml.safe_load(f)
        wenv = read_env(os.path.join(self.cluster, "webhook", "env"))
        with open(os.path.join(self.cluster, "webhook", "certs", "ca.crt"), "rb") as f:
            ca = base64.b64encode(f.read()).decode()
        wh = vwc["webhooks"][0]
        wh["clientConfig"] = {"url": f"https://127.0.0.1:{wenv['WEBHOOK_PORT']}/validate", "caBundle": ca}
        if not match_conditions:
            wh.pop("matchConditions", None)
        self.kc("apply", "-f", "-", stdin=json.dumps(vwc))
        say(f"webhook registered from manifests/base ({'with' if match_conditions else 'WITHOUT'} "
            f"matchConditions {[m['name'] for m in vwc['webhooks'][0].get('matchConditions', [])]})")

    def unregister(self):
        self.kc("delete", "validatingwebhookconfiguration", "rayjob-guard", "--ignore-not-found")
        say("webhook unregistered")

    def policy(self, name, version, mode, gate, namespaces):
        p = {
            "apiVersion": "rayjob-guard.io/v1", "kind": "Policy",
            "kuberay": {"version": version, "featureGates": {"RayJobDeletionPolicy": gate}},
            "lifecycle": {"mode": mode, "maxSucceededTTLSeconds": MAX_SUCCEEDED_TTL,
                          "minFailedTTLSeconds": MIN_FAILED_TTL, "maxFailedTTLSeconds": MAX_FAILED_TTL,
                          "maxActiveDeadlineSeconds": RUN_DEADLINE, "maxBackoffLimit": 2,
                          "allowClusterSelector": False},
            "images": {"allow": ["*.dkr.ecr.*.amazonaws.com/ray-tenant:*"]},
            "quota": {"unknownNamespace": "deny", "namespaces": {
                ns: {"requests.cpu": "8", "requests.memory": "16Gi", "limits.cpu": "8",
                     "limits.memory": "16Gi", "pods": "10"} for ns in namespaces}},
            "rules": {"image-pinned": "off"},
        }
        path = os.path.join(self.work, f"policy-{name}.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(p, f)
        return path

    def validate_policy(self, path):
        return run([self.args.binary, "policy", "validate", path])

    def check(self, policy, manifest):
        path = os.path.join(self.work, f"check-{manifest['metadata']['name']}.json")
        with open(path, "w") as f:
            json.dump(manifest, f)
        return run([self.args.binary, "check", "--policy", policy, path])

    # --- namespaces, quota, RayJobs -------------------------------------------------------------
    def namespace(self, ns):
        docs = [
            {"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}}},
            {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "tenant", "namespace": ns},
             "spec": {"hard": {"count/rayjobs.ray.io": "2", "count/jobs.batch": "2",
                               "requests.cpu": "8", "requests.memory": "16Gi", "limits.cpu": "8",
                               "limits.memory": "16Gi", "pods": "10"}}},
        ]
        self.kc("apply", "-f", "-", stdin="\n---\n".join(json.dumps(d) for d in docs))
        wait_until(lambda: self.usage(ns, quiet=True) is not None, 60,
                   f"ResourceQuota {ns}/tenant status.hard", poll=0.5)

    def usage(self, ns, quiet=False, label=""):
        q = self.kube.get(f"/api/v1/namespaces/{ns}/resourcequotas/tenant", ok404=True)
        used = (q or {}).get("status", {}).get("used")
        if used is None:
            return None
        keys = ["count/rayjobs.ray.io", "count/jobs.batch", "pods", "requests.cpu", "requests.memory"]
        if not quiet:
            say(f"quota {ns} {label}: " + ", ".join(f"{k}={used.get(k, '?')}" for k in keys))
        return used

    def quota_zero(self, ns):
        u = self.usage(ns, quiet=True) or {}
        return all(u.get(k) in ("0",) for k in ("count/rayjobs.ray.io", "count/jobs.batch", "pods")) \
            and u.get("requests.cpu") in ("0", "0m") and u.get("requests.memory") in ("0",)

    def rayjob(self, ns, name, mode, outcome, version, workers=0):
        """A RayJob of `outcome` (succeeded, appfail, prestart: activeDeadlineSeconds passes with
        the head held not-ready; prerunning: preRunningDeadlineSeconds does; submitfail: `ray job
        submit` fails, its working_dir does not exist; interactive: InteractiveMode, waiting for a
        jobId no one sets) with the deletion setup of lifecycle `mode` (bare: none at all, for
        `check --fix` to add) and `workers` worker pods (1 CPU / 1Gi each)."""
        entry = {
            "succeeded": "python -c \"print('lifecycle run ok')\"",
            "appfail": "python -c \"raise RuntimeError('lifecycle app failure')\"",
            "prestart": "python -c \"print('never runs')\"",
            "prerunning": "python -c \"print('never runs')\"",
            "submitfail": "python -c \"print('never submitted')\"",
            "interactive": "python -c \"print('no one sets the jobId')\"",
        }[outcome]
        held = outcome in ("prestart", "prerunning")
        head_meta = {"annotations": {ANN + "hold": "not-ready"}} if held else {}
        spec = {
            "entrypoint": entry,
            "submissionMode": "K8sJobMode",
            "activeDeadlineSeconds": PRESTART_DEADLINE if outcome == "prestart" else RUN_DEADLINE,
            "backoffLimit": 0,
            "submitterPodTemplate": {"spec": {"restartPolicy": "Never", "containers": [{
                "name": "ray-job-submitter", "image": IMAGE,
                "resources": {"requests": {"cpu": "200m", "memory": "256Mi"},
                              "limits": {"cpu": "200m", "memory": "256Mi"}}}]}},
            "rayClusterSpec": {
                "rayVersion": "2.41.0",
                "headGroupSpec": {
                    "rayStartParams": {},
                    "template": {"metadata": head_meta, "spec": {"containers": [{
                        "name": "ray-head", "image": IMAGE,
                        "resources": {"requests": {"cpu": "1", "memory": "2Gi"},
                                      "limits": {"cpu": "1", "memory": "2Gi"}}}]}}}},
        }
        if outcome == "prerunning":
            spec["preRunningDeadlineSeconds"] = PRE_RUNNING_DEADLINE
        elif outcome == "submitfail":
            # The submitter's own `ray job submit` refuses a working_dir that does not exist, before
            # any Ray job exists; with no retry its Job fails: reason SubmissionFailed.
            spec["runtimeEnvYAML"] = "working_dir: /nonexistent/rjg-lifecycle-working-dir\n"
            spec["submitterConfig"] = {"backoffLimit": 0}
        elif outcome == "interactive":
            spec["submissionMode"] = "InteractiveMode"
            spec.pop("submitterPodTemplate")
            spec["activeDeadlineSeconds"] = INTERACTIVE_ACTIVE_DEADLINE
            spec["preRunningDeadlineSeconds"] = INTERACTIVE_PRE_RUNNING_DEADLINE
        if workers:
            spec["rayClusterSpec"]["workerGroupSpecs"] = [{
                "groupName": "workers", "replicas": workers, "minReplicas": workers,
                "maxReplicas": workers, "rayStartParams": {},
                "template": {"spec": {"containers": [{
                    "name": "ray-worker", "image": IMAGE,
                    "resources": {"requests": {"cpu": "1", "memory": "1Gi"},
                                  "limits": {"cpu": "1", "memory": "1Gi"}}}]}}}]
        meta = {"name": name, "namespace": ns}
        if mode == "bare":
            pass
        elif mode == "sample":
            spec.update(shutdownAfterJobFinishes=True, ttlSecondsAfterFinished=10)
        elif mode == "deletionRules":
            spec["shutdownAfterJobFinishes"] = False
            spec["deletionStrategy"] = {"deletionRules": [
                {"policy": "DeleteSelf", "condition": {"jobStatus": "SUCCEEDED", "ttlSeconds": TTL_SUCCESS}},
                {"policy": "DeleteSelf", "condition": {"jobStatus": "FAILED", "ttlSeconds": TTL_FAILURE}}]}
        elif mode in ("deletionPolicy",):
            spec.update(shutdownAfterJobFinishes=True, ttlSecondsAfterFinished=TTL_SUCCESS,
                        deletionPolicy="DeleteSelf")
        elif mode == "operatorDeletesRayJob":
            spec.update(shutdownAfterJobFinishes=True, ttlSecondsAfterFinished=TTL_SUCCESS)
        elif mode == "reaper":
            spec.update(shutdownAfterJobFinishes=True, ttlSecondsAfterFinished=TTL_SUCCESS)
            meta["annotations"] = {"rayjob-guard.io/ttl-after-success": str(TTL_SUCCESS),
                                   "rayjob-guard.io/ttl-after-failure": str(TTL_FAILURE)}
        else:
            raise ValueError(mode)
        return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": meta, "spec": spec}

    def create(self, manifest, expect_refused=None):
        r = self.kc("create", "-f", "-", stdin=json.dumps(manifest), check=False)
        name = manifest["metadata"]["name"]
        if expect_refused is not None:
            if r.returncode == 0 or expect_refused not in r.stderr:
                fail(f"RayJob {name}: expected a refusal saying '{expect_refused}', got exit "
                     f"{r.returncode}: {r.stderr.strip() or r.stdout.strip()}")
            say(f"RayJob {name} refused, as expected: {r.stderr.strip()[:300]}")
            return
        if r.returncode != 0:
            fail(f"RayJob {name} not admitted: {r.stderr.strip()}")
        say(f"RayJob {name} created ({manifest['metadata']['namespace']})")

    def get_rayjob(self, ns, name):
        return self.kube.get(f"/apis/ray.io/v1/namespaces/{ns}/rayjobs/{name}", ok404=True)

    def owned_left(self, ns, name):
        """What of a RayJob is still stored: the RayJob, its RayClusters, its Job, their pods, and
        with Kueue its Workload."""
        left = []
        if self.get_rayjob(ns, name):
            left.append(f"rayjob/{name}")
        for rc in self.kube.get(f"/apis/ray.io/v1/namespaces/{ns}/rayclusters")["items"]:
            if rc["metadata"]["name"].startswith(name + "-"):
                left.append(f"raycluster/{rc['metadata']['name']}")
        if self.kube.get(f"/apis/batch/v1/namespaces/{ns}/jobs/{name}", ok404=True):
            left.append(f"job/{name}")
        for p in self.kube.get(f"/api/v1/namespaces/{ns}/pods")["items"]:
            pl = p["metadata"].get("labels") or {}
            if pl.get("ray.io/cluster", "").startswith(name + "-") or pl.get("job-name") == name:
                left.append(f"pod/{p['metadata']['name']}")
        if self.kueue:
            for w in self.kube.get(f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{ns}/workloads")["items"]:
                if any(o["kind"] == "RayJob" and o["name"] == name
                       for o in w["metadata"].get("ownerReferences") or []):
                    left.append(f"workload/{w['metadata']['name']}")
        return left

    def wait_gone(self, ns, name, what, timeout):
        """Waits until nothing of RayJob ns/name is stored (owned_left); a timeout names `what`
        and what is left."""
        wait_until(lambda: not self.owned_left(ns, name), timeout, what, poll=1,
                   detail=lambda: f"still there: {self.owned_left(ns, name)}")

    def wait_quota_zero(self, ns, why=""):
        """Waits up to 60 s until the tenant quota's usage is zero; a timeout shows the usage."""
        wait_until(lambda: self.quota_zero(ns), 60, f"quota {ns} used back to 0{why}", poll=1,
                   detail=lambda: f"still there: {self.usage(ns, quiet=True)}")

    def wait_terminal(self, ns, name, timeout):
        def done():
            rj = self.get_rayjob(ns, name)
            st = (rj or {}).get("status", {})
            if st.get("jobDeploymentStatus") in ("Complete", "Failed"):
                return st
            return None
        st = wait_until(done, timeout, f"RayJob {ns}/{name} to reach jobDeploymentStatus Complete or Failed",
                        poll=1)
        say(f"RayJob {name}: jobDeploymentStatus={st.get('jobDeploymentStatus')} "
            f"jobStatus={st.get('jobStatus', '')!r} reason={st.get('reason', '')!r} "
            f"endTime={st.get('endTime')} message={st.get('message', '')[:160]!r}")
        return st, time.time()

    def submitter_log(self, ns, name):
        out = ""
        for f in sorted(os.listdir(self.logs)):
            if f.startswith(f"{ns}.{name}-") and f.endswith(".log") and "-head-" not in f:
                with open(os.path.join(self.logs, f), errors="replace") as fh:
                    out += fh.read()
        return out

    # --- cleanup -------------------------------------------------------------------------------
    def down(self, failed, why=""):
        """Stops everything, by PID. On failure, first prints the tail of every log the failure
        could be read from (long lines cut: CI shows only this output, and may cut its middle),
        then `why` again, last, where it cannot be lost."""
        for name in ("reaper", "kueue", "operator", "runner", "kwok"):
            p = self.procs.pop(name, None)
            if p:
                try:
                    p.stop()
                except Exception as e:  # noqa: BLE001
                    say(f"stopping {name}: {e}")
        if failed:
            # CI shows only this output: every log a failure could be read from, tail first.
            logs = [os.path.join(self.logs, f) for f in sorted(os.listdir(self.logs))
                    if f in ("runner.log", "kwok.log", "kueue.log") or f.startswith(("operator", "reap-"))]
            logs.append(os.path.join(self.cluster, "webhook", "serve.log"))
            # Each pod's output (submitters' `ray job submit`), then the Ray heads' own logs the
            # runner kept: why a job stayed PENDING (the job manager, the raylet) or failed.
            logs += sorted(glob.glob(os.path.join(self.logs, "*.*.log")))
            for name in ("dashboard.log", "raylet.out", "job-driver-*.log"):
                logs += sorted(glob.glob(os.path.join(self.logs, "ray-*", name)))
            for path in dict.fromkeys(logs):  # once each: operator-vX.Y.Z.log matches *.*.log too
                if os.path.exists(path):
                    with open(path, errors="replace") as fh:
                        tail = [line if len(line) <= 300 else line[:300] + " [...]\n"
                                for line in fh.readlines()[-30:]]
                    print(f"----- {os.path.relpath(path, self.work)} (tail) -----\n{''.join(tail)}", flush=True)
            if why:
                say(f"FAIL (repeated after the logs): {why}")
        if self.cluster_up:
            self.control.down()
        if failed or self.args.keep:
            say(f"work directory kept: {self.work}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)


# --- the measured run of one lifecycle mode -------------------------------------------------------

def quantity(text):
    """A Kubernetes quantity as a number (the spellings pods and audit write: 1, 500m, 2Gi...)."""
    units = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    for suffix in sorted(units, key=len, reverse=True):
        if text.endswith(suffix):
            return float(text[:-len(suffix)]) * units[suffix]
    return float(text)


def audit_leak(s, ns, name, policy):
    """`rayjob-guard audit` on what the real operator left behind: the leaked RayJob is the one
    quota hold it reports, with the rule `want`, holding what the apiserver says it holds."""
    r = run([s.args.binary, "audit", "--policy", policy, "-n", ns, "-o", "json",
             "--kubeconfig", s.kubeconfig])
    if r.returncode != 1:
        fail(f"audit -n {ns}: exit {r.returncode}, expected 1 (found):\n{r.stdout}{r.stderr}")
    # -o json: a v1 List of openreports Reports, one per namespace audited (here, one).
    reports = json.loads(r.stdout)["items"]
    if [rep["metadata"]["namespace"] for rep in reports] != [ns]:
        fail(f"audit -n {ns} -o json: expected one Report, of {ns}:\n{r.stdout}")
    waste = [x for x in reports[0]["results"] if x["category"] == "waste"]
    got = [(x["resources"][0]["name"], x["rule"]) for x in waste]
    if got != [(name, "deployment-failed-unmatched")]:
        fail(f"audit -n {ns} reports the holds {got}, expected only "
             f"({name}, deployment-failed-unmatched)")
    rj = s.get_rayjob(ns, name)
    uid = rj["metadata"]["uid"]
    if waste[0]["resources"][0]["uid"] != uid:
        fail(f"audit names uid {waste[0]['resources'][0]['uid']}, the RayJob's is {uid}")
    owners = {uid}
    jobs = 0
    for j in s.kube.get(f"/apis/batch/v1/namespaces/{ns}/jobs")["items"]:
        if any(o["uid"] == uid for o in j["metadata"].get("ownerReferences") or []):
            jobs += 1
            owners.add(j["metadata"]["uid"])
    for rc in s.kube.get(f"/apis/ray.io/v1/namespaces/{ns}/rayclusters")["items"]:
        if any(o["uid"] == uid for o in rc["metadata"].get("ownerReferences") or []):
            owners.add(rc["metadata"]["uid"])
    pods, cpu, mem = 0, 0.0, 0.0
    for p in s.kube.get(f"/api/v1/namespaces/{ns}/pods")["items"]:
        mine = any(o["uid"] in owners for o in p["metadata"].get("ownerReferences") or [])
        if not mine or p.get("status", {}).get("phase") in ("Succeeded", "Failed"):
            continue
        pods += 1
        reqs = [c.get("resources", {}).get("requests", {}) for c in p["spec"]["containers"]]
        cpu += sum(quantity(q.get("cpu", "0")) for q in reqs)
        mem += sum(quantity(q.get("memory", "0")) for q in reqs)
    props = waste[0]["properties"]
    want = {"count/rayjobs.ray.io": 1, "count/jobs.batch": jobs, "pods": pods,
            "requests.cpu": cpu, "requests.memory": mem}
    have = {k: quantity(props[k]) for k in want}
    if have != want or pods == 0:
        fail(f"audit says {ns}/{name} holds {props}; the apiserver says {want}")
    say(f"audit finds the leak the operator left: {name} {waste[0]['rule']}, holding "
        f"{', '.join(f'{k} {props[k]}' for k in want)} (as the apiserver says)")
    table = run([s.args.binary, "audit", "--policy", policy, "-n", ns, "--kubeconfig", s.kubeconfig])
    say("audit's table:\n" + table.stdout.rstrip())


def run_mode(s, ns, mode, version, expect_leak_prestart=False, reaper_policy=None,
             audit_policy=None):
    """Case 2 for one mode: a succeeded run and an application failure (two heads at once), then
    a pre-start failure. Appends its rows to the suite's table as it measures them (a failure
    later keeps the rows measured so far). Quota usage is printed at each step."""
    rows = s.table
    reaper = None
    if reaper_policy:
        reaper = Proc("rayjob-guard reap", [s.args.binary, "reap", "--policy", reaper_policy,
                                             "--namespace", ns, "--interval", str(REAP_INTERVAL),
                                             "--kubeconfig", s.kubeconfig],
                      os.path.join(s.logs, f"reap-{ns}.log"))
        s.procs["reaper"] = reaper
    try:
        s.usage(ns, label="before")
        jobs = {"succeeded": f"{ns}-ok", "appfail": f"{ns}-fail"}
        for outcome, name in jobs.items():
            s.create(s.rayjob(ns, name, mode, outcome, version))
        s.usage(ns, label="two RayJobs running")
        ends = {}
        for outcome, name in jobs.items():
            st, _ = s.wait_terminal(ns, name, 300)
            want = "SUCCEEDED" if outcome == "succeeded" else "FAILED"
            if st.get("jobStatus") != want:
                fail(f"RayJob {name}: jobStatus {st.get('jobStatus')!r}, expected {want}")
            ends[outcome] = parse_time(st["endTime"])
        log = s.submitter_log(ns, jobs["appfail"])
        if "Traceback" not in log or "RuntimeError: lifecycle app failure" not in log:
            fail(f"the app failure's submitter log has no Python traceback:\n{log[-1500:]}")
        say("the app failure's submitter log holds its traceback (RuntimeError: lifecycle app failure)")
        s.usage(ns, label="both finished")
        for outcome, name in jobs.items():
            bound = MAX_SUCCEEDED_TTL if outcome == "succeeded" else MAX_FAILED_TTL
            if mode in ("deletionPolicy", "operatorDeletesRayJob"):
                bound = MAX_SUCCEEDED_TTL
            deadline = ends[outcome] + bound + SLACK - time.time()
            s.wait_gone(ns, name, f"RayJob {name} with its RayCluster, Job and pods to be gone "
                        f"({mode}, bound {bound} s after endTime)", max(deadline, 5))
            gone = time.time() - ends[outcome]
            say(f"RayJob {name} ({outcome}) gone with everything it owned {gone:.1f} s after endTime")
            if outcome == "appfail" and mode in ("deletionRules", "reaper") and gone < MIN_FAILED_TTL:
                fail(f"RayJob {name} failed and was gone {gone:.1f} s after endTime, before "
                     f"minFailedTTLSeconds {MIN_FAILED_TTL}")
            rows.append({"mode": mode, "version": version, "outcome": outcome, "result": "zero",
                         "seconds_after_end": round(gone, 1)})
        s.wait_quota_zero(ns)
        s.usage(ns, label="after the two runs")

        name = f"{ns}-prestart"
        s.create(s.rayjob(ns, name, mode, "prestart", version))
        s.usage(ns, label="pre-start RayJob (head held not-ready)")
        st, _ = s.wait_terminal(ns, name, PRESTART_DEADLINE + 120)
        if st.get("jobDeploymentStatus") != "Failed":
            fail(f"RayJob {name}: expected a Failed deployment, got {st}")
        end = parse_time(st.get("endTime")) if st.get("endTime") else time.time()
        if expect_leak_prestart:
            hold = MAX_FAILED_TTL + SLACK
            say(f"pre-start failure in {mode} on {version}: watching for {hold} s that nothing deletes it")
            time.sleep(max(0, end + hold - time.time()))
            left = s.owned_left(ns, name)
            s.usage(ns, label=f"{hold} s after the pre-start failure")
            if not left:
                fail(f"RayJob {name} was deleted: the pre-start hole of {mode} on {version} is not there")
            say(f"LEAK, as the issue says: {left} still stored {time.time() - end:.0f} s after endTime")
            rows.append({"mode": mode, "version": version, "outcome": "prestart", "result": "leaked",
                         "seconds_after_end": None, "left": left})
            if audit_policy:
                audit_leak(s, ns, name, audit_policy)
            return rows
        bound = MAX_SUCCEEDED_TTL if mode in ("deletionPolicy", "operatorDeletesRayJob") else MAX_FAILED_TTL
        s.wait_gone(ns, name, f"pre-start RayJob {name} with everything it owned to be gone ({mode}, "
                    f"bound {bound} s)", max(end + bound + SLACK - time.time(), 5))
        gone = time.time() - end
        say(f"RayJob {name} (pre-start failure) gone {gone:.1f} s after endTime")
        if mode in ("deletionRules", "reaper") and gone < MIN_FAILED_TTL:
            fail(f"RayJob {name} gone {gone:.1f} s after endTime, before minFailedTTLSeconds")
        s.wait_quota_zero(ns)
        s.usage(ns, label="after all three runs")
        rows.append({"mode": mode, "version": version, "outcome": "prestart", "result": "zero",
                     "seconds_after_end": round(gone, 1)})
        probe = s.rayjob(ns, f"{ns}-next", mode, "succeeded", version)
        r = s.kc("create", "--dry-run=server", "-f", "-", stdin=json.dumps(probe), check=False)
        if r.returncode != 0:
            fail(f"a new RayJob is not admitted after the runs: {r.stderr.strip()}")
        say(f"a new RayJob is admitted (server dry-run) in {ns}")
        return rows
    finally:
        if reaper:
            s.procs.pop("reaper", None)
            reaper.stop()


def parse_time(t):
    import calendar
    return calendar.timegm(time.strptime(t, "%Y-%m-%dT%H:%M:%SZ"))


def cleanup_ns(s, ns):
    """Between cases only (never part of what a case shows): remove what a leak left behind."""
    for rj in s.kube.get(f"/apis/ray.io/v1/namespaces/{ns}/rayjobs")["items"]:
        s.kc("delete", "rayjob", "-n", ns, rj["metadata"]["name"], "--wait=false", check=False)
    s.kc("delete", "jobs", "-n", ns, "--all", "--wait=false", check=False)


# --- the groups ------------------------------------------------------------------------------------

def group_v15(s):
    s.up(["v1.5.0"])
    s.start_operator("v1.5.0")
    nss = ["lc-trap", "lc-rules15", "lc-reaper15", "lc-odr15"]
    for ns in nss:
        s.namespace(ns)

    say("=== case 1: the seed's trap, webhook unregistered (sample form, no deletion API)")
    ns = "lc-trap"
    for i in (1, 2):
        s.create(s.rayjob(ns, f"sample-{i}", "sample", "succeeded", "v1.5.0"))
    for i in (1, 2):
        st, _ = s.wait_terminal(ns, f"sample-{i}", 300)
        if st.get("jobStatus") != "SUCCEEDED":
            fail(f"sample-{i}: jobStatus {st.get('jobStatus')!r}")
    s.usage(ns, label="two sample RayJobs succeeded")
    for i in (1, 2):
        wait_until(lambda i=i: not any(x.startswith("raycluster/") or "-head-" in x
                                       for x in s.owned_left(ns, f"sample-{i}")),
                   10 + SLACK + 30, f"the RayCluster of sample-{i} to be deleted (ttlSecondsAfterFinished 10)",
                   poll=1)
    left = [x for i in (1, 2) for x in s.owned_left(ns, f"sample-{i}")]
    if sorted(left) != sorted([f"rayjob/sample-{i}" for i in (1, 2)] + [f"job/sample-{i}" for i in (1, 2)]
                              + [x for x in left if x.startswith("pod/sample-")]):
        fail(f"after the TTL, expected the RayJobs and submitter Jobs to remain, got {left}")
    s.usage(ns, label="RayClusters gone, RayJobs and Jobs remain")
    s.create(s.rayjob(ns, "sample-3", "sample", "succeeded", "v1.5.0"), expect_refused="exceeded quota")
    s.table.append({"mode": "none (sample form)", "version": "v1.5.0", "outcome": "succeeded",
                    "result": "leaked", "seconds_after_end": None, "left": left})
    cleanup_ns(s, ns)

    say("=== case 2: deletionRules on 1.5 (policy before the remedy, `check` admits the RayJobs)")
    ns = "lc-rules15"
    old = s.policy("rules15", "1.5", "deletionRules", True, nss)
    r = s.validate_policy(old)
    say(f"policy validate (deletionRules on 1.5): exit {r.returncode}: {(r.stdout + r.stderr).strip()[:400]}")
    remedy = r.returncode != 0
    if remedy:
        # Case 3's remedy is in: the webhook refuses this policy, so the 1.5 rules run is measured
        # with the webhook unregistered; `check` with the 1.6 rule set shows what the RayJob holds.
        say("case 3 remedy present: deletionRules on 1.5 is refused; measuring the operator "
            "behaviour with the webhook unregistered")
    else:
        s.webhook("up", old)
        s.register()
    # audit judges by the deletion rules these RayJobs rely on; a policy file that validates (1.6
    # rule set) stands for them, since the 1.5 one is refused.
    audit_policy = s.policy("audit-rules", "1.6", "deletionRules", True, nss)
    run_mode(s, ns, "deletionRules", "v1.5.0", expect_leak_prestart=True, audit_policy=audit_policy)
    cleanup_ns(s, ns)
    if not remedy:
        s.webhook("down")

    say("=== case 3: the remedy for 1.5: policy validate names it; reaper on 1.5 brings all three to zero")
    if not remedy:
        fail("policy validate still accepts lifecycle.mode deletionRules with kuberay.version 1.5")
    text = (r.stdout + r.stderr)
    for want in ("reaper", "operatorDeletesRayJob", "1.6"):
        if want not in text:
            fail(f"the refusal of deletionRules on 1.5 does not name {want}: {text}")
    ns = "lc-reaper15"
    pol = s.policy("reaper15", "1.5", "reaper", True, nss)
    s.webhook("up", pol)
    s.register()
    run_mode(s, ns, "reaper", "v1.5.0", reaper_policy=pol)
    s.webhook("down")

    say("=== case 3: the other mode the refusal names: operatorDeletesRayJob on 1.5")
    s.stop_operator()
    s.start_operator("v1.5.0", ["operator-deletes.yaml"])
    pol = s.policy("odr15", "1.5", "operatorDeletesRayJob", True, nss)
    s.webhook("up", pol)
    s.register()
    run_mode(s, "lc-odr15", "operatorDeletesRayJob", "v1.5.0")


def group_v14(s):
    s.up(["v1.4.0"])
    nss = ["lc-policy14", "lc-reaper14", "lc-down14"]
    for ns in nss:
        s.namespace(ns)

    say("=== case 2: deletionPolicy on 1.4, gate on")
    s.start_operator("v1.4.0")
    pol = s.policy("policy14", "1.4", "deletionPolicy", True, nss)
    s.webhook("up", pol)
    s.register()
    run_mode(s, "lc-policy14", "deletionPolicy", "v1.4.0")

    say("=== case 5: cleanup with the webhook down (deletionPolicy DeleteSelf, finalizer UPDATE)")
    ns = "lc-down14"
    s.register(match_conditions=False)
    name = "down-1"
    rj = s.rayjob(ns, name, "deletionPolicy", "succeeded", "v1.4.0")
    rj["spec"]["ttlSecondsAfterFinished"] = MAX_SUCCEEDED_TTL
    s.create(rj)
    # Stop the webhook while the job runs (the operator only writes status then, which is not
    # reviewed), so it is surely down when DeleteSelf is due.
    wait_until(lambda: (s.get_rayjob(ns, name) or {}).get("status", {}).get("jobDeploymentStatus")
               in ("Running", "Complete"), 300, f"RayJob {ns}/{name} to be Running", poll=0.2)
    s.webhook("stop")
    say("webhook process stopped (registration stays, failurePolicy Fail)")
    st, _ = s.wait_terminal(ns, name, 300)
    end = parse_time(st["endTime"])
    time.sleep(max(0, end + MAX_SUCCEEDED_TTL + SLACK - time.time()))
    rj = s.get_rayjob(ns, name)
    s.usage(ns, label="webhook down, DeleteSelf due")
    if not rj or not rj["metadata"].get("deletionTimestamp"):
        fail(f"expected {name} stuck with a deletionTimestamp while the webhook is down, got {rj and rj['metadata']}")
    say(f"TRAP shown: {name} has deletionTimestamp {rj['metadata']['deletionTimestamp']} and finalizers "
        f"{rj['metadata'].get('finalizers')}; the operator's UPDATE is refused by failurePolicy Fail")
    s.register(match_conditions=True)
    t = time.time()
    # The operator retries its refused UPDATE with controller-runtime's exponential backoff.
    s.wait_gone(ns, name, f"{name} gone once matchConditions skips objects being deleted", 180)
    s.wait_quota_zero(ns, " with the webhook down")
    s.usage(ns, label="webhook still down, matchConditions in")
    say(f"{name} gone {time.time() - t:.1f} s after the shipped matchConditions were registered")
    s.create(s.rayjob(ns, "down-2", "deletionPolicy", "succeeded", "v1.4.0"),
             expect_refused="failed calling webhook")
    s.table.append({"mode": "deletionPolicy, webhook down", "version": "v1.4.0", "outcome": "succeeded",
                    "result": "zero with matchConditions (leaked without)", "seconds_after_end": None})
    s.webhook("start")
    s.webhook("down")
    s.stop_operator()

    say("=== case 2: reaper on 1.4, gate off")
    s.start_operator("v1.4.0", ["gate-off.yaml"])
    pol = s.policy("reaper14", "1.4", "reaper", False, nss)
    s.webhook("up", pol)
    s.register()
    run_mode(s, "lc-reaper14", "reaper", "v1.4.0", reaper_policy=pol)

    say("=== case 4: rayjob-guard reap against operator-made objects, operator stopped")
    ns = "lc-reaper14"
    name = "reap-stopped"
    rj = s.rayjob(ns, name, "reaper", "succeeded", "v1.4.0")
    s.create(rj)
    st, _ = s.wait_terminal(ns, name, 300)
    obj = s.get_rayjob(ns, name)
    say(f"{name}: finalizers {obj['metadata'].get('finalizers')} (set by the operator)")
    if "ray.io/rayjob-finalizer" not in (obj["metadata"].get("finalizers") or []):
        fail(f"{name}: the operator's finalizer is not there: {obj['metadata']}")
    s.stop_operator()
    time.sleep(max(0, parse_time(st["endTime"]) + TTL_SUCCESS + 1 - time.time()))
    r = run([s.args.binary, "reap", "--once", "--policy", pol, "--namespace", ns, "--kubeconfig",
             s.kubeconfig], check=False)
    say(f"reap --once (operator stopped): exit {r.returncode}\n{r.stderr.strip()[-800:]}")
    if r.returncode != 0 or "action=deleted" not in r.stderr:
        fail("reap --once did not delete the finished RayJob")
    obj = s.get_rayjob(ns, name)
    s.usage(ns, label="reaped, operator stopped")
    if not obj or not obj["metadata"].get("deletionTimestamp"):
        fail(f"{name}: expected it held by the finalizer while the operator is stopped")
    say(f"{name} held by its finalizer while the operator is stopped (deletionTimestamp set)")
    r = run([s.args.binary, "reap", "--once", "--policy", pol, "--namespace", ns, "--kubeconfig",
             s.kubeconfig], check=False)
    if r.returncode != 0 or "action=skip" not in r.stderr:
        fail(f"a second pass should skip the terminating RayJob: {r.stderr.strip()[-600:]}")
    say("a second reap pass skips it (deletionTimestamp set)")
    t = time.time()
    s.start_operator("v1.4.0", ["gate-off.yaml"])
    s.wait_gone(ns, name, f"{name} gone once the operator is back", 90)
    s.wait_quota_zero(ns)
    s.usage(ns, label="operator back, finalizer removed")
    say(f"{name} gone {time.time() - t:.1f} s after the operator was started again")


# --- v1.6.2 under the built-in default policy -----------------------------------------------------

# The only keys of `rayjob-guard policy default` the v16 group changes: time bounds in seconds
# instead of hours, and the namespaces' quota.
V16_TIME_BOUNDS = {"maxSucceededTTLSeconds": MAX_SUCCEEDED_TTL, "minFailedTTLSeconds": MIN_FAILED_TTL,
                   "maxFailedTTLSeconds": MAX_FAILED_TTL}


def flatten(obj, prefix=""):
    """{dotted key path: leaf value} of a YAML document (lists are leaves)."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            out.update(flatten(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: obj}


def default_policy(s, name, namespaces):
    """`rayjob-guard policy default` with only the time bounds and the namespaces' quota changed;
    fails unless the difference is exactly those keys. Returns the file's path."""
    base = yaml.safe_load(run([s.args.binary, "policy", "default"], check=True).stdout)
    p = copy.deepcopy(base)
    p["lifecycle"].update(V16_TIME_BOUNDS)
    p["quota"]["namespaces"] = {
        ns: {"requests.cpu": "8", "requests.memory": "16Gi", "limits.cpu": "8",
             "limits.memory": "16Gi", "pods": "10"} for ns in namespaces}
    a, b = flatten(base), flatten(p)
    changed = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    allowed = {f"lifecycle.{k}" for k in V16_TIME_BOUNDS}
    other = [k for k in changed if k not in allowed and not k.startswith("quota.namespaces.")]
    if other:
        fail(f"the v16 policy differs from `policy default` in more than time bounds and quota: {other}")
    say(f"policy {name}: `rayjob-guard policy default` (lifecycle.mode {p['lifecycle']['mode']}, "
        f"kuberay.version {p['kuberay']['version']}) with only these keys changed: "
        + ", ".join(f"{k}: {a.get(k)!r} -> {b.get(k)!r}" for k in changed if k in allowed)
        + f", quota.namespaces -> {sorted(p['quota']['namespaces'])}")
    path = os.path.join(s.work, f"policy-{name}.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(p, f)
    r = s.validate_policy(path)
    if r.returncode != 0:
        fail(f"policy validate {path}: {(r.stdout + r.stderr).strip()}")
    return path


def fixed(s, policy, manifest):
    """The manifest as `rayjob-guard check --fix` leaves it (what a new user submits): every
    finding must have had its literal fix (exit 0)."""
    path = os.path.join(s.work, f"bare-{manifest['metadata']['name']}.json")
    with open(path, "w") as f:
        json.dump(manifest, f)
    r = run([s.args.binary, "check", "--fix", "--policy", policy, path])
    if r.returncode != 0:
        fail(f"check --fix {path}: exit {r.returncode}: {r.stderr.strip()[-800:]}")
    docs, cur = [], []
    for line in r.stdout.splitlines() + ["---"]:
        if line.strip() == "---":
            if "".join(cur).strip():
                docs.append(json.loads("\n".join(cur)))
            cur = []
        else:
            cur.append(line)
    if len(docs) != 1:
        fail(f"check --fix printed {len(docs)} documents, expected 1")
    return docs[0]


def pods_of(s, ns, name, node_type):
    return [p["metadata"]["name"] for p in s.kube.get(f"/api/v1/namespaces/{ns}/pods")["items"]
            if (p["metadata"].get("labels") or {}).get("ray.io/node-type") == node_type
            and (p["metadata"].get("labels") or {}).get("ray.io/cluster", "").startswith(name + "-")]


def measure(s, ns, name, outcome, want, workers=False, before=None,
            mode="deletionRules (policy default)"):
    """One RayJob of the v16 group from creation to nothing stored: before(), when given, first;
    its terminal status must be `want` (jobDeploymentStatus, reason, jobStatus); with `workers`,
    its worker pods must go at failure while its head stays; then the bound of its outcome, and for
    a failure the logs window. Returns its row for the table."""
    if before:
        before()
    st, _ = s.wait_terminal(ns, name, 300 + INTERACTIVE_PRE_RUNNING_DEADLINE)
    got = (st.get("jobDeploymentStatus"), st.get("reason", ""), st.get("jobStatus", ""))
    if got != want:
        fail(f"RayJob {name} ({outcome}): (jobDeploymentStatus, reason, jobStatus) {got}, expected {want}")
    end = parse_time(st["endTime"])
    failed = want[0] == "Failed"
    row = {"mode": mode, "version": "v1.6.2", "outcome": outcome,
           "reason": want[1], "result": "zero"}
    if outcome == "appfail":
        log = s.submitter_log(ns, name)
        if "Traceback" not in log or "RuntimeError: lifecycle app failure" not in log:
            fail(f"the app failure's submitter log has no Python traceback:\n{log[-1500:]}")
        say(f"{name}: the submitter log holds the traceback (RuntimeError: lifecycle app failure)")
    if workers:
        # DeleteWorkers at 0 s: the workers' quota comes back at failure, the head stays.
        wait_until(lambda: not pods_of(s, ns, name, "worker"), SLACK,
                   f"the worker pods of {name} to be gone (DeleteWorkers on jobDeploymentStatus Failed, "
                   f"ttlSeconds 0)", poll=0.5, detail=lambda: f"still there: {pods_of(s, ns, name, 'worker')}")
        row["workers_gone_after_end"] = round(time.time() - end, 1)
        heads = pods_of(s, ns, name, "head")
        if not heads:
            fail(f"{name}: the head pod went with the workers; it should stay for the logs window")
        say(f"{name}: worker pods gone {row['workers_gone_after_end']} s after endTime; head "
            f"{heads[0]} stays for the logs window")
        s.usage(ns, label=f"{name}: workers gone, head kept")
    bound = MAX_FAILED_TTL if failed else MAX_SUCCEEDED_TTL
    s.wait_gone(ns, name, f"RayJob {name} ({outcome}) with its RayCluster, Job and pods to be gone "
                f"(bound {bound} s after endTime)", max(end + bound + SLACK - time.time(), 5))
    gone = time.time() - end
    say(f"RayJob {name} ({outcome}, {want[1] or want[2]}) gone with everything it owned {gone:.1f} s after endTime")
    if failed and gone < MIN_FAILED_TTL:
        fail(f"RayJob {name} failed and was gone {gone:.1f} s after endTime, before "
             f"minFailedTTLSeconds {MIN_FAILED_TTL} (the kubectl logs window)")
    row["seconds_after_end"] = round(gone, 1)
    return row


def run_concurrently(s, cases, mode="deletionRules (policy default)"):
    """cases: [(ns, name, outcome, want[, workers[, before]])], created before this is called;
    measured at once, one thread each, their rows' mode `mode`. Appends the rows to the table in
    the order given; the first failure is raised."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(len(cases)) as pool:
        futures = [pool.submit(measure, s, *c, mode=mode) for c in cases]
        rows, errors = [], []
        for f in futures:
            try:
                rows.append(f.result())
            except Failed as e:
                errors.append(e.message)
    s.table.extend(rows)
    if errors:
        fail("; ".join(errors))
    for ns in dict.fromkeys(c[0] for c in cases):
        s.wait_quota_zero(ns)
        s.usage(ns, label="after its runs")


def interactive_waits(s, ns, name):
    """An InteractiveMode RayJob waits in Waiting with its RayCluster up; activeDeadlineSeconds
    passes there with no effect (checked only in Initializing and Running)."""
    def waiting():
        st = (s.get_rayjob(ns, name) or {}).get("status", {})
        if st.get("jobDeploymentStatus") in ("Failed", "Complete"):
            fail(f"{name} ended before it was seen Waiting: {st}")
        return st if st.get("jobDeploymentStatus") == "Waiting" else None
    st = wait_until(waiting, 300, f"RayJob {ns}/{name} (InteractiveMode) to be Waiting", poll=0.5)
    heads = [p for p in s.kube.get(f"/api/v1/namespaces/{ns}/pods")["items"]
             if (p["metadata"].get("labels") or {}).get("ray.io/cluster", "").startswith(name + "-")
             and p.get("status", {}).get("phase") == "Running"]
    if not heads:
        fail(f"{name} is Waiting but no pod of its RayCluster is Running")
    start = parse_time(st["startTime"])
    s.usage(ns, label=f"{name} Waiting for spec.jobId, RayCluster up")
    say(f"{name}: Waiting {time.time() - start:.0f} s after startTime with its RayCluster up "
        f"({len(heads)} pod(s) Running); activeDeadlineSeconds {INTERACTIVE_ACTIVE_DEADLINE}, "
        f"preRunningDeadlineSeconds {INTERACTIVE_PRE_RUNNING_DEADLINE}")
    time.sleep(max(0, start + INTERACTIVE_ACTIVE_DEADLINE + 5 - time.time()))
    st = (s.get_rayjob(ns, name) or {}).get("status", {})
    if st.get("jobDeploymentStatus") != "Waiting":
        fail(f"{name}: {INTERACTIVE_ACTIVE_DEADLINE + 5} s after startTime it is "
             f"{st.get('jobDeploymentStatus')} ({st.get('reason')}), expected still Waiting: "
             f"activeDeadlineSeconds is not checked in Waiting")
    say(f"{name}: still Waiting {time.time() - start:.0f} s after startTime, past its "
        f"activeDeadlineSeconds {INTERACTIVE_ACTIVE_DEADLINE}: that deadline does not bound the wait")
    return start


def group_v16(s):
    s.up(["v1.6.2"])
    s.start_operator("v1.6.2")
    nss = ["lc-v16", "lc-v16-pre", "lc-v16-b"]
    for ns in nss:
        s.namespace(ns)
    pol = default_policy(s, "default16", nss)
    s.webhook("up", pol)
    s.register()

    def create_fixed(ns, name, outcome, workers=0):
        rj = fixed(s, pol, s.rayjob(ns, name, "bare", outcome, "v1.6.2", workers=workers))
        rules = rj["spec"].get("deletionStrategy", {}).get("deletionRules")
        say(f"{name}: check --fix wrote deletionRules {json.dumps(rules)}")
        s.create(rj)
        return rj

    say("=== v16: InteractiveMode without preRunningDeadlineSeconds is refused (nothing else bounds its wait)")
    bare = fixed(s, pol, s.rayjob("lc-v16-b", "v16-interactive-unbounded", "bare", "interactive", "v1.6.2"))
    bare["spec"].pop("preRunningDeadlineSeconds")
    s.create(bare, expect_refused="[active-deadline] spec.preRunningDeadlineSeconds: not set")

    say("=== v16 phase 1: succeeded, app failure with a worker, and the two pre-start failures, at once")
    rj = create_fixed("lc-v16", "v16-fail", "appfail", workers=1)
    policies = [r["policy"] for r in rj["spec"]["deletionStrategy"]["deletionRules"]]
    if "DeleteWorkers" not in policies:
        fail(f"check --fix did not add a DeleteWorkers rule to a RayJob with workers: {policies}")
    create_fixed("lc-v16", "v16-ok", "succeeded")
    create_fixed("lc-v16-pre", "v16-deadline", "prestart")
    create_fixed("lc-v16-pre", "v16-prerunning", "prerunning")
    s.usage("lc-v16", label="succeeded + app failure (1 worker) created")
    s.usage("lc-v16-pre", label="two pre-start RayJobs (heads held not-ready)")
    run_concurrently(s, [
        ("lc-v16", "v16-ok", "succeeded", ("Complete", "", "SUCCEEDED")),
        ("lc-v16", "v16-fail", "appfail", ("Failed", "AppFailed", "FAILED"), True),
        ("lc-v16-pre", "v16-deadline", "prestart (activeDeadlineSeconds)", ("Failed", "DeadlineExceeded", "")),
        ("lc-v16-pre", "v16-prerunning", "prestart (preRunningDeadlineSeconds)",
         ("Failed", "PreRunningDeadlineExceeded", "")),
    ])

    say("=== v16 phase 2: a submission failure and an InteractiveMode RayJob no one gives a jobId, at once")
    create_fixed("lc-v16-b", "v16-submit", "submitfail")
    create_fixed("lc-v16-b", "v16-interactive", "interactive")
    run_concurrently(s, [
        ("lc-v16-b", "v16-submit", "submission failure", ("Failed", "SubmissionFailed", "")),
        ("lc-v16-b", "v16-interactive", "InteractiveMode, no jobId",
         ("Failed", "PreRunningDeadlineExceeded", ""), False,
         lambda: interactive_waits(s, "lc-v16-b", "v16-interactive")),
    ])
    probe = fixed(s, pol, s.rayjob("lc-v16", "v16-next", "bare", "succeeded", "v1.6.2"))
    r = s.kc("create", "--dry-run=server", "-f", "-", stdin=json.dumps(probe), check=False)
    if r.returncode != 0:
        fail(f"a new RayJob is not admitted after the runs: {r.stderr.strip()}")
    say("a new RayJob is admitted (server dry-run) in lc-v16")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("group", choices=["v16", "v15", "v14", "kueue"])
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "rayjob-guard"))
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--table")
    args = ap.parse_args()
    args.binary = os.path.abspath(args.binary)
    if not os.access(args.binary, os.X_OK):
        print(f"lifecycle: no rayjob-guard binary at {args.binary} (use --binary)", file=sys.stderr)
        return 1
    # A missing tool fails the test (test/harness need()); it is never a skip.
    for tool in ("unshare", "jq", "curl"):
        need(tool, "the lifecycle suite drives its control plane with it; "
             "scripts/install-deps.sh installs it")
    s = Suite(args)
    failed, why = True, ""
    try:
        if args.group == "kueue":
            # kueue_group imports this file as lifecycle_test: the same module, not a second copy
            # (its Suite and helpers are this run's).
            sys.modules.setdefault("lifecycle_test", sys.modules[__name__])
            from kueue_group import group_kueue
            group_kueue(s)
        else:
            {"v16": group_v16, "v15": group_v15, "v14": group_v14}[args.group](s)
        failed = False
    except Failed as e:  # fail() printed it; down() repeats it after the logs
        why = e.message
    finally:
        say("table:")
        for row in s.table:
            print("  " + json.dumps(row), flush=True)
        if args.table:
            with open(args.table, "a") as f:
                for row in s.table:
                    f.write(json.dumps(row) + "\n")
        s.down(failed, why)
    say("PASS" if not failed else "FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
