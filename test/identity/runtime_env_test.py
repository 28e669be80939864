#!/usr/bin/env python3
"""The runtime_env remedy for bare clusters, for real, with the exact spelling docs/image-contract.md
gives tenants, and image-contract's verdict on it.

usage: run.sh runtime_env_test.py REPO_DIR WORK_DIR RAYJOB_GUARD_BINARY

A Ray head from the stock-like venv (ray[default] RAY_VERSION with the stock 2.41/2.43 images'
botocore 1.29.76 / boto3 1.26.76) runs inside the pods' network namespace with tenant-a's
ray-head token. Runtime-env pip installs come from a local wheelhouse of the tenant image's pins
(PIP_NO_INDEX / PIP_FIND_LINKS in the head's environment, as a cluster's pip mirror would be set):
the namespace has no route to any index.

  1. A job submitted with the docs' runtimeEnvYAML (pip: boto3>=1.35.0, botocore>=1.34.41) imports
     the pinned botocore from its runtime-env virtualenv, gets credentials from the agent and
     writes to tenant-a's bucket; the runner's diagnostics land there too.
  2. The same job without it fails with botocore 1.29.76's "Unsupported host '169.254.170.23'"
     error, and writes nothing.
  3. The pinned runtime env plus an s3:// working_dir fails before the job starts, with the same
     error: Ray's runtime-env agent downloads it with the node's own botocore (the limit the docs
     give, and why image-contract denies s3:// working_dir on stock images).
  4. The notebook spelling (`ray.init(runtime_env={"pip": [...]})` from the docs): the driver keeps
     the image's botocore and is refused, tasks get the pinned one and write.
  5. `rayjob-guard check`: the stock-image example RayJob with the docs' runtimeEnvYAML is admitted
     by image-contract; the same RayJob without the pin is denied by image-contract.
"""
import ast
import os
import re
import subprocess
import sys
import time

import yaml

REPO, WORK, BINARY = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import fail, pinned_versions  # noqa: E402
import podid  # noqa: E402
import rayhead  # noqa: E402

RUNNER = os.path.join(REPO, "images", "ray", "runner.py")
SDK_CHECK = os.path.join(HERE, "jobs", "sdk_check.py")
NOTEBOOK = os.path.join(HERE, "jobs", "notebook_driver.py")
DOC = os.path.join(REPO, "docs", "image-contract.md")
EXAMPLE = os.path.join(REPO, "manifests", "tenant", "rayjobs", "stock-image-pip-pinned.yaml")
UNSUPPORTED = "Unsupported host '169.254.170.23'"
A = "tenant-a"


def docs_spellings():
    """(runtimeEnvYAML text, notebook runtime_env dict) exactly as docs/image-contract.md gives them."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"read verbatim by test/identity/runtime_env_test\.py.*?\n```yaml\n(.*?)```", text, re.S)
    if not m:
        fail(f"{DOC}: no yaml block after the runtime_env_test.py marker")
    block = yaml.safe_load(m.group(1))
    runtime_env_yaml = block["runtimeEnvYAML"]
    m = re.search(r"ray\.init\(runtime_env=(\{.*?\})\)", text)
    if not m:
        fail(f"{DOC}: no ray.init(runtime_env={{...}}) spelling for notebooks")
    return runtime_env_yaml, ast.literal_eval(m.group(1))


def check_policy(runtime_env_yaml):
    """image-contract on the stock-image example with and without the docs' runtimeEnvYAML."""
    with open(EXAMPLE, encoding="utf-8") as f:
        job = yaml.safe_load(f)
    image = job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"]
    pinned = dict(job, spec=dict(job["spec"], runtimeEnvYAML=runtime_env_yaml))
    unpinned = dict(job, spec={k: v for k, v in job["spec"].items() if k != "runtimeEnvYAML"})
    for name, doc, want in (("pinned", pinned, 0), ("unpinned", unpinned, 1)):
        path = os.path.join(WORK, f"rayjob-{name}.yaml")
        with open(path, "w", encoding="utf-8") as f:
            yaml.safe_dump(doc, f, sort_keys=False)
        r = subprocess.run([BINARY, "check", "--namespace", A, path], capture_output=True, text=True, timeout=60)
        out = (r.stdout + r.stderr).strip()
        if r.returncode != want or (want == 1) != ("[image-contract]" in out):
            fail(f"rayjob-guard check on the {name} RayJob ({image}): exit {r.returncode}, want {want}:\n{out}")
        print(f"ok: rayjob-guard check, {image} {name}: exit {r.returncode}"
              + (f"; {out.splitlines()[-1][:160]}" if want else " (admitted)"))


def main():
    os.makedirs(WORK, exist_ok=True)
    runtime_env_yaml, notebook_env = docs_spellings()
    print(f"docs' runtimeEnvYAML:\n{runtime_env_yaml}docs' notebook runtime_env: {notebook_env}")
    check_policy(runtime_env_yaml)

    pins = pinned_versions()
    t0 = time.monotonic()
    stock = podid.venv(REPO, f"ray-{pins['RAY_VERSION']}", f"ray[default]=={pins['RAY_VERSION']}",
                       f"botocore=={pins['RAY_STOCK_BOTOCORE_VERSION']}", f"boto3=={pins['RAY_STOCK_BOTO3_VERSION']}")
    with open(os.path.join(REPO, "images", "ray", "requirements.txt"), encoding="utf-8") as f:
        sdk = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    wheels = podid.wheelhouse("runtime-env-remedy", sdk)
    print(f"stock-like venv and wheelhouse ready in {time.monotonic() - t0:.0f} s: {stock}; {wheels} ({', '.join(sdk)})")
    env_file = os.path.join(WORK, "runtime-env.yaml")
    with open(env_file, "w", encoding="utf-8") as f:
        f.write(runtime_env_yaml)

    with podid.PodIdentityEnv(REPO, WORK, tenants=(A,), expiration_seconds=60) as env:
        head = rayhead.RayHead(env, A, stock, os.path.join(WORK, "ray"),
                               extra_env={"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": wheels})
        bucket = env.bucket(A)
        try:
            def job(name, runtime_env_file):
                results = f"s3://{bucket}/remedy/{name}/"
                head.submit(name, ["python", RUNNER, "--results", results, "--endpoint-url", podid.S3_ENDPOINT, "--",
                                   "python", SDK_CHECK, results + "written.txt", "--endpoint-url", podid.S3_ENDPOINT],
                            runtime_env_file=runtime_env_file)
                doc = head.wait(name, timeout=600)
                return doc, head.logs(name)

            doc, log = job("pinned", env_file)
            m = re.search(r"sdk: botocore (\S+) from (\S+)", log)
            if doc["status"] != "SUCCEEDED" or not m:
                fail(f"the pinned job ended {doc['status']} ({doc.get('message')}):\n{log[-3000:]}")
            version, path = m.groups()
            if tuple(int(x) for x in version.split(".")) < (1, 34, 41) or "runtime_resources" not in path:
                fail(f"the pinned job imported botocore {version} from {path}, not the runtime env's")
            keys = sorted(o["Key"] for o in env.root_s3().list_objects_v2(Bucket=bucket, Prefix="remedy/pinned/").get("Contents", []))
            if "remedy/pinned/written.txt" not in keys or "remedy/pinned/traceback.txt" not in keys:
                fail(f"the pinned job's objects: {keys}")
            print(f"ok: docs' runtimeEnvYAML on the stock-like head: job SUCCEEDED with botocore {version} from its "
                  f"runtime-env virtualenv, credentials from the agent; s3://{bucket}/remedy/pinned/ holds {len(keys)} objects")

            doc, log = job("unpinned", None)
            if doc["status"] != "FAILED" or UNSUPPORTED not in log or "sdk: botocore 1.29.76" not in log:
                fail(f"the unpinned job ended {doc['status']}, want FAILED with {UNSUPPORTED!r}:\n{log[-3000:]}")
            if env.root_s3().list_objects_v2(Bucket=bucket, Prefix="remedy/unpinned/").get("KeyCount", 0):
                fail("the unpinned job wrote to the bucket")
            line = next(ln for ln in log.splitlines() if UNSUPPORTED in ln)
            print(f"ok: the same job without it: FAILED, botocore 1.29.76: {line.strip()[:150]}; nothing written")

            # The documented limit: an s3:// working_dir is fetched by the node's own SDK (Ray's
            # runtime-env agent, outside the job's virtualenv) before the pip pin applies.
            s3_env = os.path.join(WORK, "runtime-env-s3-working-dir.yaml")
            with open(s3_env, "w", encoding="utf-8") as f:
                f.write(f"working_dir: s3://{bucket}/code/job.zip\n" + runtime_env_yaml)
            doc, log = job("s3-working-dir", s3_env)
            message = doc.get("message") or ""
            if doc["status"] != "FAILED" or UNSUPPORTED not in message + log:
                fail(f"the s3:// working_dir job ended {doc['status']}, want FAILED with {UNSUPPORTED!r}: "
                     f"{message[-1500:]}\n{log[-1500:]}")
            print(f"ok: the same pin with an s3:// working_dir: FAILED before the job ran "
                  f"({message.splitlines()[0][:80]}...; {UNSUPPORTED}): the pin cannot help")

            name = "notebook"
            head.submit(name, ["python", NOTEBOOK, f"s3://{bucket}/remedy/notebook/", podid.S3_ENDPOINT, repr(notebook_env)])
            doc = head.wait(name, timeout=600)
            log = head.logs(name)
            driver = re.search(r"driver: (.*)", log)
            task = re.search(r"task: (.*)", log)
            if doc["status"] != "SUCCEEDED" or not driver or not task:
                fail(f"the notebook driver ended {doc['status']}:\n{log[-3000:]}")
            if UNSUPPORTED not in driver.group(1) or "wrote" not in task.group(1):
                fail(f"notebook spelling: driver {driver.group(1)!r}, task {task.group(1)!r}")
            print(f"ok: docs' notebook spelling ray.init(runtime_env=...): the driver keeps botocore 1.29.76 "
                  f"({driver.group(1)[:70]}...), tasks get the pin: {task.group(1)[:90]}")
        finally:
            left = head.stop()
        head.check_stopped(left)
    print("PASS: the docs' runtime_env pin works on a stock-like head, its absence fails as documented, "
          "and image-contract admits the one and denies the other")


if __name__ == "__main__":
    podid.exit_on_signals()
    main()
