#!/usr/bin/env python3
"""The diagnostics runner as a real Ray job's entrypoint, with credentials from EKS Pod Identity,
writing to MinIO under the tenant boundary; the traceback is read back after the Ray head is gone.

usage: run.sh ray_runner_test.py REPO_DIR WORK_DIR

The Ray head (ray[default] RAY_VERSION from PyPI, with images/ray/requirements.txt installed over
the stock pins, as images/ray/Dockerfile does) runs inside the pods' network namespace with
tenant-a's ray-head token. Its token is rotated and the first one invalidated before any job.

  1. `ray job submit` of runner.py wrapping jobs/train.py, which writes its result manifest and
     fails with a chained exception: the job FAILS; stdout.log, stderr.log, traceback.txt (the
     real traceback, as Ray's job log shows it) and exit.json land beside manifest.json.
  2. The same runner told to write into tenant-b's bucket: the upload is refused (AccessDenied),
     the job's exit code is kept, nothing lands in tenant-b's bucket.
  3. The Ray head is stopped: no process of it remains. Then, in a new "pod" with tenant-a's
     identity, the traceback is read back from S3 and is the one the job printed; tenant-b's
     identity is refused it.
"""
import json
import os
import sys
import time
import urllib.request

REPO, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import fail, pinned_versions  # noqa: E402
import podid  # noqa: E402
import rayhead  # noqa: E402

RUNNER = os.path.join(REPO, "images", "ray", "runner.py")
TRAIN = os.path.join(HERE, "jobs", "train.py")
READER = os.path.join(HERE, "jobs", "s3_read.py")
A, B = "tenant-a", "tenant-b"


def tenant_venv(repo):
    """Ray as the tenant image has it: the stock pins, then images/ray/requirements.txt."""
    pins = pinned_versions()
    with open(os.path.join(repo, "images", "ray", "requirements.txt"), encoding="utf-8") as f:
        sdk = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    return podid.venv(repo, f"ray-{pins['RAY_VERSION']}-tenant", f"ray[default]=={pins['RAY_VERSION']}", *sdk), sdk


def read_as(env, tenant, python, bucket, key):
    """Reads s3://bucket/key in a fresh process with tenant's Pod Identity: (ok, text or error)."""
    r = env.run_in_pod(tenant, [python, READER, "--endpoint-url", podid.S3_ENDPOINT, bucket, key],
                       timeout=120, capture_output=True, text=True)
    if r.returncode == 0:
        return True, r.stdout
    return False, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"


def main():
    t0 = time.monotonic()
    venv, sdk = tenant_venv(REPO)
    python = os.path.join(venv, "bin", "python")
    print(f"tenant Ray venv ready in {time.monotonic() - t0:.0f} s: {venv} ({', '.join(sdk)})")
    with podid.PodIdentityEnv(REPO, WORK, expiration_seconds=60) as env:
        head = rayhead.RayHead(env, A, venv, os.path.join(WORK, "ray"))
        try:
            # The dashboard from the host, as an operator polls it (env.expose: a reverse relay).
            port = env.expose(8265)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/version", timeout=10) as r:
                version = json.load(r).get("ray_version")
            if version != pinned_versions()["RAY_VERSION"]:
                fail(f"the head's dashboard, from the host, says ray_version {version!r}")
            print(f"ok: the head's job API is reachable from the host through env.expose (127.0.0.1:{port}, Ray {version})")
            old = env.rotate(A)
            env.invalidate(A, old)
            prefix = "jobs/train-2026-12-01/"
            results = f"s3://{env.bucket(A)}/{prefix}"
            runtime_env = {"env_vars": {"RAYJOB_NAME": "train-2026-12-01"}}
            head.submit("train-fail", ["python", RUNNER, "--results", results, "--endpoint-url", podid.S3_ENDPOINT,
                                       "--", "python", TRAIN, "--results", results, "--endpoint-url", podid.S3_ENDPOINT],
                        runtime_env_json=runtime_env)
            doc = head.wait("train-fail", timeout=300)
            job_log = head.logs("train-fail")
            if doc["status"] != "FAILED":
                fail(f"the failing job ended {doc['status']}:\n{job_log[-2000:]}")
            for want in ("RuntimeError: training data shard 7 is missing", f"runner: uploaded {results}traceback.txt"):
                if want not in job_log:
                    fail(f"the job's Ray log lacks {want!r}:\n{job_log[-3000:]}")
            keys = sorted(o["Key"][len(prefix):] for o in
                          env.root_s3().list_objects_v2(Bucket=env.bucket(A), Prefix=prefix).get("Contents", []))
            want_keys = ["exit.json", "manifest.json", "stderr.log", "stdout.log", "traceback.txt"]
            if keys != want_keys:
                fail(f"objects under {results}: {keys}, want {want_keys}")
            print(f"ok: Ray job train-fail FAILED ({doc.get('message', '')[:80]}); {results} holds {keys}")

            head.submit("cross-tenant", ["python", RUNNER, "--results", f"s3://{env.bucket(B)}/stolen/",
                                         "--endpoint-url", podid.S3_ENDPOINT, "--", "python", "-c",
                                         "import sys; print('tenant-a job output'); sys.exit(3)"])
            doc = head.wait("cross-tenant", timeout=300)
            cross_log = head.logs("cross-tenant")
            if doc["status"] != "FAILED" or "exit code 3" not in (doc.get("message") or ""):
                fail(f"the cross-tenant job ended {doc['status']} ({doc.get('message')}), want FAILED with exit code 3")
            if f"upload of s3://{env.bucket(B)}/stolen/exit.json failed" not in cross_log or "AccessDenied" not in cross_log:
                fail(f"the runner did not report the refused upload:\n{cross_log[-2000:]}")
            if env.root_s3().list_objects_v2(Bucket=env.bucket(B)).get("KeyCount", 0):
                fail(f"tenant-a's job wrote into {env.bucket(B)}")
            print(f"ok: runner in tenant-a's job -> s3://{env.bucket(B)}/: AccessDenied reported, exit code 3 kept, "
                  f"{env.bucket(B)} empty")
        finally:
            left = head.stop()
        # What matters is that nothing of the "pod" is left when the traceback is read back.
        head.check_stopped(left)
        print("ok: Ray head stopped; no process left in the pods' namespace")

        ok, tb = read_as(env, A, python, env.bucket(A), prefix + "traceback.txt")
        if not ok:
            fail(f"tenant-a could not read its traceback back: {tb}")
        ok, exit_json = read_as(env, A, python, env.bucket(A), prefix + "exit.json")
        record = json.loads(exit_json) if ok else fail(f"tenant-a could not read exit.json: {exit_json}")
        ok, manifest = read_as(env, A, python, env.bucket(A), prefix + "manifest.json")
        if not ok or json.loads(manifest)["credentials"] != "container-role":
            fail(f"manifest.json: {manifest}")
        for want in ("Traceback (most recent call last):", f'File "{TRAIN}"', "in load_shard",
                     "FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/shard-00007.parquet'",
                     "The above exception was the direct cause of the following exception:",
                     "RuntimeError: training data shard 7 is missing; the run cannot continue"):
            if want not in tb:
                fail(f"traceback.txt lacks {want!r}:\n{tb}")
        if not podid.in_order(tb.strip().splitlines(), job_log.splitlines()):
            fail(f"traceback.txt is not the traceback in the job's log:\n{tb}\n--- job log:\n{job_log[-3000:]}")
        if record["exitCode"] != 1 or record["rayJobName"] != "train-2026-12-01" or not record["traceback"]:
            fail(f"exit.json: {record}")
        print(f"ok: after the head is gone, tenant-a reads back traceback.txt ({len(tb.splitlines())} lines, the "
              f"job log's traceback, line by line), exit.json (exitCode 1, rayJobName {record['rayJobName']}), manifest.json")
        print("    " + "\n    ".join(tb.strip().splitlines()[-3:]))
        ok, why = read_as(env, B, python, env.bucket(A), prefix + "traceback.txt")
        if ok or "AccessDenied" not in why:
            fail(f"tenant-b's identity read tenant-a's traceback: {ok} {why}")
        print(f"ok: tenant-b's identity is refused tenant-a's traceback: {why[:100]}")
        hits = [r for r in env.agent_requests() if r["status"] == 200]
        print(f"agent: {len(hits)} credential requests answered, "
              f"{len({r['tokenSha'] for r in hits})} distinct tokens")
    print("PASS: runner as a Ray job entrypoint with Pod Identity; traceback read back after the head is gone; "
          "tenant boundary kept")


if __name__ == "__main__":
    podid.exit_on_signals()
    main()
