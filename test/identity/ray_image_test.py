#!/usr/bin/env python3
"""images/ray/Dockerfile built for real with podman, over a local stock-like Ray base image.

usage: run.sh ray_image_test.py REPO_DIR WORK_DIR

  1. The stock-like base (stock-like/Containerfile: debootstrap Debian 12, Python, ray[default]
     RAY_VERSION, botocore RAY_STOCK_BOTOCORE_VERSION, boto3 RAY_STOCK_BOTO3_VERSION from PyPI) is
     built once and kept: tag plus a stamp (image id and a hash of its inputs) in the cache. It
     is checked to be stock-like: its botocore is the stock one, and the assertion refuses it,
     naming 169.254.170.23.
  2. `podman build images/ray` with RAY_REPO/RAY_TAG naming that base and requirements.txt: the
     build passes its assertion step, and the image imports the botocore that passed (version and
     path), whose assertion passes inside the image; the runner is in place.
  3. The same build with pins below the floor (IMAGE_BELOW_FLOOR_PINS): the build fails at the
     assertion step, and its log gives the reason and the fix.
The pins come from local wheelhouses (PIP_NO_INDEX/PIP_FIND_LINKS build args, a read-only volume;
the tenant builds run with --network=none), so a warm run downloads nothing.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

REPO, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import fail, pinned_versions  # noqa: E402
import podid  # noqa: E402

DEBIAN = "localhost/rayjob-guard/debian:bookworm"
TENANT_IMAGE = "localhost/rayjob-guard/ray-tenant:identity-test"
BELOW_FLOOR_IMAGE = "localhost/rayjob-guard/ray-tenant:identity-test-below-floor"
CONTAINERS_CONF = os.path.join(REPO, "containers.conf")


def podman(*args, timeout=600, check=True, log=None):
    env = dict(os.environ, CONTAINERS_CONF=CONTAINERS_CONF)
    if log:
        with open(log, "w", encoding="utf-8") as f:
            r = subprocess.run(["podman", *args], stdout=f, stderr=subprocess.STDOUT, env=env, timeout=timeout)
        r.stdout = open(log, encoding="utf-8", errors="replace").read()
    else:
        r = subprocess.run(["podman", *args], capture_output=True, text=True, env=env, timeout=timeout)
    if check and r.returncode != 0:
        fail(f"podman {' '.join(args[:3])}...: exit {r.returncode}: {(r.stdout or '')[-2000:]}{getattr(r, 'stderr', '') or ''}")
    return r


def image_id(tag):
    r = podman("image", "inspect", "--format", "{{.Id}}", tag, check=False)
    return r.stdout.strip() if r.returncode == 0 else None


def stock_like_base(pins):
    """Builds (or finds cached) the stock-like base; returns (repo, tag). Its pip step installs
    from a wheelhouse downloaded on the host (the build itself reaches only Debian's mirror)."""
    repo = "localhost/rayjob-guard/ray-stock-like"
    tag = f"{pins['RAY_VERSION']}-botocore-{pins['RAY_STOCK_BOTOCORE_VERSION']}"
    containerfile = os.path.join(HERE, "stock-like", "Containerfile")
    args = {"BASE_IMAGE": DEBIAN, "RAY_VERSION": pins["RAY_VERSION"],
            "BOTOCORE_VERSION": pins["RAY_STOCK_BOTOCORE_VERSION"], "BOTO3_VERSION": pins["RAY_STOCK_BOTO3_VERSION"]}
    inputs = hashlib.sha256(open(containerfile, "rb").read() + json.dumps(args, sort_keys=True).encode()
                            + (image_id(DEBIAN) or "").encode()).hexdigest()
    stamp_path = os.path.join(podid.cache_dir(), "images", "ray-stock-like.stamp")
    os.makedirs(os.path.dirname(stamp_path), exist_ok=True)
    current = image_id(f"{repo}:{tag}")
    try:
        stamp = json.load(open(stamp_path, encoding="utf-8"))
    except (OSError, ValueError):
        stamp = {}
    if current and stamp.get("id") == current and stamp.get("inputs") == inputs:
        print(f"stock-like base {repo}:{tag} cached ({current[:12]})")
        return repo, tag
    t0 = time.monotonic()
    wheels = podid.wheelhouse("stock-like-ray", [f"ray[default]=={args['RAY_VERSION']}",
                                                 f"botocore=={args['BOTOCORE_VERSION']}", f"boto3=={args['BOTO3_VERSION']}"])
    build_args = [a for k, v in args.items() for a in ("--build-arg", f"{k}={v}")]
    log = os.path.join(WORK, "stock-like-build.log")
    r = podman("build", "--pull=never", "--layers", *build_args, "--build-arg", "PIP_NO_INDEX=1",
               "--build-arg", "PIP_FIND_LINKS=/wheels", "--volume", f"{wheels}:/wheels:ro",
               "-t", f"{repo}:{tag}", "-f", containerfile, os.path.dirname(containerfile),
               timeout=3600, check=False, log=log)
    if r.returncode != 0:
        fail(f"the stock-like base did not build (log {log}):\n{r.stdout[-3000:]}")
    with open(stamp_path + ".tmp", "w", encoding="utf-8") as f:
        json.dump({"tag": f"{repo}:{tag}", "id": image_id(f"{repo}:{tag}"), "inputs": inputs}, f)
    os.replace(stamp_path + ".tmp", stamp_path)
    print(f"stock-like base {repo}:{tag} built in {time.monotonic() - t0:.0f} s")
    return repo, tag


def build_tenant(context, base, wheels, tag, log):
    t0 = time.monotonic()
    # --no-cache: the assertion step runs on every run (a cached layer would only say it passed
    # once); the pins come from the wheelhouse, so nothing is downloaded. --force-rm: a failed
    # build leaves no container behind.
    r = podman("build", "--pull=never", "--no-cache", "--force-rm", "--network=none",
               "--build-arg", f"RAY_REPO={base[0]}", "--build-arg", f"RAY_TAG={base[1]}",
               "--build-arg", "PIP_NO_INDEX=1", "--build-arg", "PIP_FIND_LINKS=/wheels", "--volume", f"{wheels}:/wheels:ro",
               "-t", tag, context, timeout=1800, check=False, log=log)
    return r, time.monotonic() - t0


def main():
    if os.path.isdir(WORK):
        shutil.rmtree(WORK)
    os.makedirs(WORK)
    pins = pinned_versions()
    t0 = time.monotonic()
    r = subprocess.run([os.path.join(REPO, "test", "ship", "debian_base.sh"), DEBIAN],
                       env=dict(os.environ, CONTAINERS_CONF=CONTAINERS_CONF), timeout=1800)
    if r.returncode != 0:
        fail("test/ship/debian_base.sh failed")
    base = stock_like_base(pins)
    print(f"base images ready in {time.monotonic() - t0:.0f} s")
    assertion = open(os.path.join(REPO, "images", "ray", "assert-pod-identity.py"), encoding="utf-8").read()

    r = podman("run", "--rm", "--network=none", f"{base[0]}:{base[1]}", "python", "-c",
               "import ray, boto3, botocore; print(ray.__version__, boto3.__version__, botocore.__version__)")
    want = f"{pins['RAY_VERSION']} {pins['RAY_STOCK_BOTO3_VERSION']} {pins['RAY_STOCK_BOTOCORE_VERSION']}"
    if r.stdout.strip() != want:
        fail(f"the stock-like base has ray, boto3, botocore {r.stdout.strip()!r}, want {want!r}")
    r = subprocess.run(["podman", "run", "--rm", "-i", "--network=none", f"{base[0]}:{base[1]}", "python", "-"],
                       input=assertion, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, CONTAINERS_CONF=CONTAINERS_CONF))
    if r.returncode != 1 or "169.254.170.23 (EKS Pod Identity agent) is missing" not in r.stdout:
        fail(f"the assertion on the stock-like base: exit {r.returncode}, want 1 naming the host:\n{r.stdout}{r.stderr}")
    print(f"ok: stock-like base has ray/boto3/botocore {want}; the assertion refuses it (exit 1, names 169.254.170.23)")

    with open(os.path.join(REPO, "images", "ray", "requirements.txt"), encoding="utf-8") as f:
        sdk = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    good_wheels = podid.wheelhouse("tenant-image", sdk)
    below = pins["IMAGE_BELOW_FLOOR_PINS"].split(",")
    below_wheels = podid.wheelhouse("tenant-image-below-floor", below)

    for tag in (TENANT_IMAGE, BELOW_FLOOR_IMAGE):  # this test's own tags, from an earlier run
        podman("rmi", "-f", tag, check=False)
    log = os.path.join(WORK, "tenant-build.log")
    r, secs = build_tenant(os.path.join(REPO, "images", "ray"), base, good_wheels, TENANT_IMAGE, log)
    if r.returncode != 0:
        fail(f"podman build images/ray with requirements.txt failed (log {log}):\n{r.stdout[-3000:]}")
    versions = {p.split("==")[0]: p.split("==")[1] for p in sdk}
    for want in ("assert-pod-identity: EKS Pod Identity supported (host, token file, token refresh)",
                 f"boto3 {versions['boto3']} botocore {versions['botocore']}"):
        if want not in r.stdout:
            fail(f"the build log lacks {want!r} (log {log})")
    print(f"ok: podman build images/ray ({', '.join(sdk)}) over {base[0]}:{base[1]}: passed its assertion step "
          f"in {secs:.0f} s")
    r = podman("run", "--rm", "--network=none", TENANT_IMAGE, "python", "-c",
               "import botocore; print(botocore.__version__, botocore.__file__)")
    version, path = r.stdout.split()
    if version != versions["botocore"] or not path.startswith("/home/ray/anaconda3/"):
        fail(f"the built image imports botocore {version} from {path}")
    r = podman("run", "--rm", "--network=none", TENANT_IMAGE, "python", "/home/ray/assert-pod-identity.py", check=False)
    if r.returncode != 0 or f"botocore {version} from {path}" not in r.stdout:
        fail(f"the assertion inside the built image: exit {r.returncode}:\n{r.stdout}{r.stderr}")
    r = podman("run", "--rm", "--network=none", TENANT_IMAGE, "python", "/home/ray/runner.py", check=False)
    if r.returncode != 2 or "usage: runner.py" not in r.stderr:
        fail(f"the runner in the image: exit {r.returncode}: {r.stderr}")
    user = podman("image", "inspect", "--format", "{{.Config.User}}", TENANT_IMAGE).stdout.strip()
    print(f"ok: the image imports botocore {version} from {path}, the one that passed; its assertion passes "
          f"inside the image; runner.py is there (user {user or 'unset'})")

    context = os.path.join(WORK, "below-floor-context")
    shutil.copytree(os.path.join(REPO, "images", "ray"), context)
    with open(os.path.join(context, "requirements.txt"), "w", encoding="utf-8") as f:
        f.write("# below the floor: host and token file, no token refresh\n" + "\n".join(below) + "\n")
    log = os.path.join(WORK, "below-floor-build.log")
    bad_tag = BELOW_FLOOR_IMAGE
    r, secs = build_tenant(context, base, below_wheels, bad_tag, log)
    if r.returncode == 0:
        fail(f"podman build with {', '.join(below)} passed (log {log})")
    below_versions = {p.split("==")[0]: p.split("==")[1] for p in below}
    for want in (f"assert-pod-identity: botocore {below_versions['botocore']} from",
                 "FAIL token-refresh", "install botocore>=1.34.41 and boto3>=1.35.0 in the image",
                 "python /home/ray/assert-pod-identity.py"):
        if want not in r.stdout:
            fail(f"the failed build's log lacks {want!r} (log {log}):\n{r.stdout[-3000:]}")
    step = next((ln for ln in r.stdout.splitlines() if "building at STEP" in ln), "")
    if "assert-pod-identity.py" not in step:
        fail(f"the build did not fail at the assertion step: {step!r} (log {log})")
    if image_id(bad_tag):
        fail(f"{bad_tag} exists after a failed build")
    # The failed build committed its steps before the assertion as untagged images: remove the
    # topmost (podman removes its untagged parents with it), so runs do not pile them up.
    committed = [ln.split()[1] for ln in r.stdout.splitlines() if ln.startswith("--> ")]
    if committed:
        podman("rmi", committed[-1], check=False)
    reason = next(ln for ln in r.stdout.splitlines() if "cannot use EKS Pod Identity" in ln)
    print(f"ok: the same build with {', '.join(below)} fails at the assertion step in {secs:.0f} s; the log says:")
    print(f"    {reason.strip()}")
    podman("rmi", "-f", TENANT_IMAGE, check=False)
    print("PASS: the tenant image builds over a stock-like base with requirements.txt, refuses pins below the floor, "
          "and imports the botocore that passed")


if __name__ == "__main__":
    podid.exit_on_signals()
    main()
