#!/usr/bin/env python3
"""The acceptance test end to end (issue 16): the three product acceptance points in one run.

usage: run.sh acceptance --binary PATH/rayjob-guard [--keep]

On the real ray-operator v1.6.2 under the configuration a new user runs: the built-in default
policy (`rayjob-guard policy default`, lifecycle mode deletionRules) with only its time bounds
(seconds) and the namespaces' quota changed, and the RayJob's deletion setup written by `rayjob-guard
check --fix`. One tenant-a RayJob whose entrypoint is the diagnostics runner (images/ray/runner.py)
wrapping a failing training program (test/identity/jobs/train.py):

  2. Pod Identity: the pod runner runs the RayJob's Ray head and its submitter inside the EKS Pod
     Identity network namespace of test/identity/podid.py (runner.py --netns-pods), with tenant-a's
     ray-head Pod Identity variables and the tenant image's SDK (the ray-RAY_VERSION-tenant venv).
     The runner's uploads get their credentials from the agent stand-in at 169.254.170.23, which
     must have answered tenant-a's ray-head token (its log). The operator reaches the head at its
     service name through the hosts file as in the other cases, and a reverse relay on the host's
     127.0.0.X:8265 into the namespace.
  1. Quota back to zero: the run fails, the operator's DeleteSelf rule for jobStatus FAILED
     (ttlSeconds minFailedTTLSeconds, 20 s) deletes the RayJob and the garbage collector its
     RayCluster, submitter Job and pods, with no manual deletion. Quota usage is printed at each
     step and must return to 0.
  3. A readable traceback after the pods are gone: once nothing of the RayJob is stored and no
     process is left in the pods' namespace, a new "pod" with tenant-a's identity reads
     traceback.txt and exit.json back from tenant-a's bucket; tenant-b's identity is refused them.

The same control plane, kwok, pod runner, operator and webhook as lifecycle_test.py (its Suite),
plus MinIO, the agent and the network namespace (podid.PodIdentityEnv on that control plane).
Every wait is bounded and names what it waited for; everything is stopped by PID and the network
namespace is removed in finally blocks, also on SIGTERM (ctest's timeout). Exit 0 pass, 1 fail
(not root, or ip/curl/unshare/jq missing, is a failure too: never a skip)."""

import argparse
import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
IDENTITY = os.path.join(REPO, "test", "identity")
sys.path.insert(0, HERE)
sys.path.insert(1, IDENTITY)
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import Failed, fail, need, pinned_versions, wait_until  # noqa: E402
import lifecycle_test as lc  # noqa: E402
import podid  # noqa: E402
from lifecycle_test import parse_time, say  # noqa: E402

A, B = "tenant-a", "tenant-b"
NAME = "accept-fail"
RUNNER = os.path.join(REPO, "images", "ray", "runner.py")
TRAIN = os.path.join(IDENTITY, "jobs", "train.py")
READER = os.path.join(IDENTITY, "jobs", "s3_read.py")
PREFIX = f"rayjobs/{NAME}/"
OPERATOR = "v1.6.2"


def tenant_venv():
    """Ray as the tenant image has it: the stock pins, then images/ray/requirements.txt (the SDK
    that speaks EKS Pod Identity), as test/identity/ray_runner_test.py makes it."""
    pins = pinned_versions()
    with open(os.path.join(REPO, "images", "ray", "requirements.txt"), encoding="utf-8") as f:
        sdk = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    return podid.venv(REPO, f"ray-{pins['RAY_VERSION']}-tenant", f"ray[default]=={pins['RAY_VERSION']}", *sdk)


def read_as(env, tenant, python, key):
    """s3://tenant-a's bucket/key read in a fresh process with tenant's Pod Identity."""
    r = env.run_in_pod(tenant, [python, READER, "--endpoint-url", podid.S3_ENDPOINT, env.bucket(A), key],
                       timeout=120, capture_output=True, text=True)
    if r.returncode == 0:
        return True, r.stdout
    return False, (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]


def acceptance_rayjob(s, env, policy):
    """The tenant's RayJob with no deletion setup, then as `check --fix` completes it."""
    results = f"s3://{env.bucket(A)}/{PREFIX}"
    rj = s.rayjob(A, NAME, "bare", "appfail", OPERATOR)
    spec = rj["spec"]
    spec["entrypoint"] = (f"python {RUNNER} --results {results} --endpoint-url {podid.S3_ENDPOINT} -- "
                          f"python {TRAIN} --results {results} --endpoint-url {podid.S3_ENDPOINT}")
    spec["runtimeEnvYAML"] = f"env_vars:\n  RAYJOB_NAME: {NAME}\n"
    # The pods' identity: tenant-a's ray-head service account (the Pod Identity association's).
    spec["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["serviceAccountName"] = podid.POD_SA
    spec["submitterPodTemplate"]["spec"]["serviceAccountName"] = podid.POD_SA
    rj = lc.fixed(s, policy, rj)
    say(f"{NAME}: check --fix wrote deletionRules "
        f"{json.dumps(rj['spec']['deletionStrategy']['deletionRules'])}")
    return rj


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "rayjob-guard"))
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    args.binary = os.path.abspath(args.binary)
    args.table = None
    if not os.access(args.binary, os.X_OK):
        print(f"acceptance: no rayjob-guard binary at {args.binary} (use --binary)", file=sys.stderr)
        return 1
    # A missing prerequisite fails the test (test/harness); it is never a skip.
    if os.geteuid() != 0:
        fail("acceptance: needs root (ip netns, setns, unshare -m)")
    for tool in ("unshare", "ip", "curl", "jq"):
        need(tool, "the acceptance run needs it; scripts/install-deps.sh installs it")
    podid.exit_on_signals()
    t_start = time.monotonic()
    venv = tenant_venv()
    python = os.path.join(venv, "bin", "python")
    say(f"tenant Ray venv (the tenant image's SDK): {venv}")
    s = lc.Suite(args)
    holder = {}
    failed, why = True, ""
    timings = {}

    def before_runner(suite):
        t = time.monotonic()
        env = podid.PodIdentityEnv(REPO, os.path.join(suite.work, "podid"), tenants=(A, B),
                                   expiration_seconds=60, cluster_dir=suite.cluster)
        holder["env"] = env
        env.__enter__()
        timings["pod identity env up (MinIO, agent, netns)"] = time.monotonic() - t
        cfg = {A: {"netns": env.ns.name, "venv": venv, "relay": os.path.join(IDENTITY, "relay.py"),
                   "env": dict(env.pod_env(A, base={}), PYTHONUNBUFFERED="1")}}
        path = os.path.join(suite.work, "netns-pods.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(cfg, f, indent=1)
        say(f"pods of {A} run in network namespace {env.ns.name} with {A}'s Pod Identity "
            f"(token {env.token_file(A)}, agent {podid.AGENT_URI})")
        return ["--netns-pods", path]

    try:
        t = time.monotonic()
        s.up([OPERATOR], before_runner=before_runner)
        env = holder["env"]
        s.start_operator(OPERATOR)
        for ns in (A, B):
            s.namespace(ns)
        pol = lc.default_policy(s, "accept", [A, B])
        s.webhook("up", pol)
        s.register()
        timings["setup (control plane, kwok, runner, operator, webhook)"] = time.monotonic() - t

        say(f"=== acceptance: {A} RayJob {NAME}, entrypoint the diagnostics runner wrapping a failing program")
        s.usage(A, label="before")
        t_create = time.time()
        s.create(acceptance_rayjob(s, env, pol))
        s.usage(A, label="RayJob created")

        def head_running():
            for p in s.kube.get(f"/api/v1/namespaces/{A}/pods")["items"]:
                if (p["metadata"].get("labels") or {}).get("ray.io/node-type") == "head" and \
                        p.get("status", {}).get("phase") == "Running":
                    return True
            return False
        wait_until(head_running, 300, f"the Ray head pod of {NAME} to be Running (a real head in {env.ns.name})",
                   poll=1)
        timings["created -> head Running"] = time.time() - t_create
        s.usage(A, label="head Running")
        st, _ = s.wait_terminal(A, NAME, 300)
        if st.get("jobStatus") != "FAILED":
            fail(f"RayJob {NAME}: jobStatus {st.get('jobStatus')!r}, expected FAILED")
        end = parse_time(st["endTime"])
        timings["created -> RayJob Failed"] = time.time() - t_create
        s.usage(A, label="RayJob failed")
        log = s.submitter_log(A, NAME)
        for want in ("RuntimeError: training data shard 7 is missing", f"runner: uploaded {'s3://' + env.bucket(A) + '/' + PREFIX}traceback.txt"):
            if want not in log:
                fail(f"the submitter's log (the Ray job's log) lacks {want!r}:\n{log[-2500:]}")
        say("the Ray job's log shows the chained traceback and the runner's upload of traceback.txt")

        # Acceptance point 2: the head and the submitter ran in the pods' network namespace (the
        # runner's log), the operator reached the head through the relay (it read the job's
        # status), and the runner's credentials came from the agent, for tenant-a's token.
        with open(os.path.join(s.logs, "runner.log"), errors="replace") as f:
            rlog = f.read()
        for want in ("starting Ray head on 127.0.0.", f"ip netns exec {env.ns.name} {venv}/bin/ray start --head",
                     "-> 127.0.0.", f":8265 in {env.ns.name}", f"{A}/{NAME}-"):
            if want not in rlog:
                fail(f"the pod runner's log lacks {want!r}: the pods did not run in {env.ns.name}:\n{rlog[-2500:]}")
        subm = [ln for ln in rlog.splitlines() if "running the submitter" in ln and f"{A}/{NAME}-" in ln]
        if not subm or f"ip netns exec {env.ns.name} " not in subm[0]:
            fail(f"the pod runner did not run {NAME}'s submitter in {env.ns.name}: {subm}")
        say(f"the Ray head ran as `ip netns exec {env.ns.name} .../ray start --head ...` with {A}'s Pod Identity "
            f"env, reached by the operator through the relay; the submitter ran there too")
        hits = [r for r in env.agent_requests() if r.get("status") == 200]
        users = sorted({r.get("user") for r in hits})
        if users != [f"system:serviceaccount:{A}:{podid.POD_SA}"] or \
                env.current_token_sha(A) not in {r["tokenSha"] for r in hits}:
            fail(f"the agent answered {len(hits)} requests for {users} "
                 f"(want only {A}'s {podid.POD_SA} token {env.current_token_sha(A)}): {env.agent_requests()}")
        say(f"POINT 2: the Pod Identity agent answered {len(hits)} credential request(s), all for "
            f"{users[0]} with its current token ({env.current_token_sha(A)})")

        # Acceptance point 1: everything goes with no manual deletion; quota back to 0.
        bound = lc.MAX_FAILED_TTL + lc.SLACK
        last = [None]

        def gone():
            left = s.owned_left(A, NAME)
            if left != last[0]:
                say(f"  {time.time() - end:5.1f} s after endTime, stored: {left or 'nothing'}")
                s.usage(A, label="  ")
                last[0] = left
            return not left
        wait_until(gone, max(end + bound - time.time(), 5),
                   f"RayJob {NAME} with its RayCluster, submitter Job and pods to be gone (DeleteSelf "
                   f"rule, ttlSeconds {lc.MIN_FAILED_TTL}, bound {bound} s after endTime)",
                   poll=1, detail=lambda: f"still there: {s.owned_left(A, NAME)}")
        after_end = time.time() - end
        timings["endTime -> everything deleted"] = after_end
        if after_end < lc.MIN_FAILED_TTL:
            fail(f"RayJob {NAME} gone {after_end:.1f} s after endTime, before minFailedTTLSeconds")
        s.wait_quota_zero(A)
        timings["endTime -> quota 0"] = time.time() - end
        s.usage(A, label="after the run (no manual deletion)")
        say(f"POINT 1: quota {A} back to 0 {timings['endTime -> quota 0']:.1f} s after endTime, nothing deleted by hand")
        wait_until(lambda: not env.ns.pids(), 60, f"no process left in the pods' network namespace {env.ns.name}",
                   poll=1)
        say(f"no process left in {env.ns.name} (the Ray head and submitter are gone)")

        # Acceptance point 3: the traceback is readable with tenant-a's identity, not tenant-b's.
        t = time.monotonic()
        ok, tb = read_as(env, A, python, PREFIX + "traceback.txt")
        if not ok:
            fail(f"{A} could not read its traceback back: {tb}")
        for want in ("Traceback (most recent call last):", "in load_shard",
                     "The above exception was the direct cause of the following exception:",
                     "RuntimeError: training data shard 7 is missing; the run cannot continue"):
            if want not in tb:
                fail(f"traceback.txt lacks {want!r}:\n{tb}")
        # The job's log interleaves the program's stdout and stderr (the runner passes both through
        # live), so the traceback's lines must appear there in order, not necessarily adjacent.
        if not podid.in_order(tb.strip().splitlines(), log.splitlines()):
            fail(f"traceback.txt is not the traceback of the Ray job's log:\n{tb}")
        ok, text = read_as(env, A, python, PREFIX + "exit.json")
        record = json.loads(text) if ok else None
        if not record or record.get("exitCode") != 1 or record.get("rayJobName") != NAME:
            fail(f"exit.json: {text}")
        timings["read back traceback.txt + exit.json"] = time.monotonic() - t
        say(f"POINT 3: after the RayJob, its RayCluster and pods are gone, {A} reads traceback.txt "
            f"({len(tb.splitlines())} lines, in order in the job's log) and exit.json (exitCode 1, "
            f"rayJobName {NAME})\n    " + "\n    ".join(tb.strip().splitlines()[-2:]))
        ok, why = read_as(env, B, python, PREFIX + "traceback.txt")
        if ok or "AccessDenied" not in why:
            fail(f"{B}'s identity read {A}'s traceback: {ok} {why}")
        say(f"{B}'s identity is refused {A}'s traceback: {why[:120]}")
        failed = False
    except Failed as e:  # fail() printed it; s.down() repeats it after the logs
        why = e.message
    except SystemExit:
        say("stopped by a signal: stopping everything it started")
        raise
    except Exception as e:  # noqa: BLE001 - any error fails the test after the cleanup below
        why = f"{type(e).__name__}: {e}"
        say(f"FAIL: {why}\n{traceback.format_exc()}")
    finally:
        # The runner first (it stops the Ray head and submitter in the namespace), then the Pod
        # Identity environment (the namespace, agent, relays, MinIO), then the rest of the suite.
        runner = s.procs.pop("runner", None)
        if runner:
            runner.stop()
        env = holder.get("env")
        if env is not None:
            try:
                env.close()
            except Exception as e:  # noqa: BLE001
                why = why or f"closing the Pod Identity environment: {e}"
                say(f"closing the Pod Identity environment: {e}")
                failed = True
        s.down(failed, why)
    timings["total"] = time.monotonic() - t_start
    say("timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
    say("PASS: quota back to 0, credentials through EKS Pod Identity, traceback read back after the pods "
        "are gone" if not failed else "FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
