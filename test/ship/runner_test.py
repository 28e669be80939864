#!/usr/bin/python3
"""Tests images/ray/runner.py against a real S3-compatible server (npm s3rver) on loopback, with
Debian's boto3 (run with /usr/bin/python3).

usage: runner_test.py REPO_DIR WORK_DIR
Each case prints what it checked; exit 1 on the first failure.
"""
import json
import datetime
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import fail, need, run, stop  # noqa: E402

REPO, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(REPO, "images", "ray", "runner.py")
PY = "/usr/bin/python3"
BUCKET = "diag-bucket"


def start_s3rver():
    node = need("node", "s3rver, the S3 server the runner writes to, runs on Node.js")
    code, out, err = run([os.path.join(HERE, "npm_tool.sh"), "s3rver@3", "s3rver"], timeout=600)
    if code != 0:
        fail(f"cannot install s3rver from npm: {err.strip()[-400:]}")
    modules = os.path.join(out.strip(), "node_modules")
    data = os.path.join(WORK, "s3data")
    os.makedirs(data)
    proc = subprocess.Popen([node, os.path.join(HERE, "start-s3rver.js"), data, BUCKET],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, NODE_PATH=modules))
    line = proc.stdout.readline().strip()
    if not line.isdigit():
        proc.kill()
        fail(f"s3rver did not report a port: {line!r} {proc.stderr.read()[-400:]}")
    return proc, int(line)


def env_for(port):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ACCESS_KEY_ID="S3RVER", AWS_SECRET_ACCESS_KEY="S3RVER", AWS_DEFAULT_REGION="us-east-1",
               AWS_CONFIG_FILE=os.path.join(WORK, "no-aws-config"),
               AWS_SHARED_CREDENTIALS_FILE=os.path.join(WORK, "no-aws-credentials"),
               RAYJOB_NAME="train-ship-test")
    env.pop("RAY_JOB_NAME", None)
    return env


def s3_client(port):
    import boto3
    from botocore.config import Config
    return boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                        aws_access_key_id="S3RVER", aws_secret_access_key="S3RVER",
                        config=Config(s3={"addressing_style": "path"}))


def get(s3, key):
    return s3.get_object(Bucket=BUCKET, Key=key)["Body"].read().decode("utf-8")


def runner(port, results, cmd, **kw):
    return subprocess.run([PY, RUNNER, "--results", results, "--endpoint-url", f"http://127.0.0.1:{port}",
                           "--", *cmd], env=env_for(port), capture_output=True, text=True, timeout=120, **kw)


def vm_hwm_kib(pid):
    """The VmHWM (peak RSS) line of /proc/PID/status in KiB, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return None


def wait_measured(p, timeout):
    """Waits for the Popen `p` (killed after `timeout` s) and returns (exit code or None on
    timeout, the largest VmHWM of p's own PID sampled every 10 ms while it ran, in KiB). VmHWM is
    the kernel's peak RSS of that process alone, counted from its exec; it only grows, so the last
    sample bounds everything before it. (Not getrusage/wait4: their maxrss also counts other
    children, and the parent's pages a child had at fork, before it exec'd.)"""
    deadline = time.monotonic() + timeout
    hwm = 0
    while p.poll() is None:
        if time.monotonic() > deadline:
            p.kill()
            p.wait()
            return None, hwm
        hwm = max(hwm, vm_hwm_kib(p.pid) or 0)
        time.sleep(0.01)
    return p.returncode, hwm


def check_times(doc):
    start = datetime.datetime.fromisoformat(doc["startTime"].replace("Z", "+00:00"))
    end = datetime.datetime.fromisoformat(doc["endTime"].replace("Z", "+00:00"))
    if start.utcoffset() != datetime.timedelta(0) or end < start:
        fail(f"bad start/end times in exit.json: {doc}")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    s3rver, port = start_s3rver()
    try:
        s3 = s3_client(port)
        print(f"s3rver on 127.0.0.1:{port}, bucket {BUCKET}; boto3 from {sys.modules.get('boto3').__file__}")

        # 1. A failing Python command leaves a readable traceback.
        code = ("import sys\nprint('epoch 1 done', flush=True)\nprint('loading data', file=sys.stderr)\n"
                "def load(path):\n    raise FileNotFoundError(path)\n"
                "def train():\n    try:\n        load('/data/shard-7')\n"
                "    except FileNotFoundError as e:\n        raise RuntimeError('training data missing') from e\n"
                "train()\n")
        r = runner(port, f"s3://{BUCKET}/tenant-a/run-fail", [PY, "-c", code])
        if r.returncode != 1:
            fail(f"failing command: runner exited {r.returncode}, want 1; stderr: {r.stderr[-600:]}")
        if "epoch 1 done" not in r.stdout or "RuntimeError: training data missing" not in r.stderr:
            fail("the command's output was not passed through")
        tb = get(s3, "tenant-a/run-fail/traceback.txt")
        for want in ("Traceback (most recent call last):", "FileNotFoundError: /data/shard-7",
                     "The above exception was the direct cause", "RuntimeError: training data missing"):
            if want not in tb:
                fail(f"traceback.txt lacks {want!r}:\n{tb}")
        if "loading data" in tb:
            fail(f"traceback.txt includes log lines from before the traceback:\n{tb}")
        doc = json.loads(get(s3, "tenant-a/run-fail/exit.json"))
        if doc["exitCode"] != 1 or doc["rayJobName"] != "train-ship-test" or doc["rayJobNameSource"] != "RAYJOB_NAME":
            fail(f"exit.json: {doc}")
        check_times(doc)
        if get(s3, "tenant-a/run-fail/stdout.log") != "epoch 1 done\n":
            fail("stdout.log differs from the command's stdout")
        print("ok: failing command -> exit 1, traceback.txt has the chained traceback "
              f"({len(tb.splitlines())} lines), exit.json exitCode 1, rayJobName from RAYJOB_NAME")

        # 2. A succeeding command: exit.json code 0, stdout.log byte for byte, stderr tail as traceback.txt.
        r = runner(port, f"s3://{BUCKET}/tenant-a/run-ok/", ["/bin/sh", "-c", "echo result=42; echo warn >&2"])
        if r.returncode != 0:
            fail(f"succeeding command: runner exited {r.returncode}: {r.stderr[-600:]}")
        doc = json.loads(get(s3, "tenant-a/run-ok/exit.json"))
        if doc["exitCode"] != 0 or doc["signal"] is not None or doc["traceback"]:
            fail(f"exit.json for success: {doc}")
        check_times(doc)
        if get(s3, "tenant-a/run-ok/stdout.log") != "result=42\n":
            fail("stdout.log for success differs")
        tb = get(s3, "tenant-a/run-ok/traceback.txt")
        if "no Python traceback" not in tb or "warn" not in tb:
            fail(f"traceback.txt without a traceback should hold the stderr tail: {tb!r}")
        keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix="tenant-a/run-ok/")["Contents"])
        print(f"ok: succeeding command -> exit 0, exit.json exitCode 0, objects {keys}")

        # 3. Upload failure (missing bucket) never masks the exit code.
        r = runner(port, "s3://no-such-bucket/x/", ["/bin/sh", "-c", "echo partial; exit 3"])
        if r.returncode != 3:
            fail(f"upload failure changed the exit code to {r.returncode}: {r.stderr[-600:]}")
        if "upload of s3://no-such-bucket/x/exit.json failed" not in r.stderr or "NoSuchBucket" not in r.stderr:
            fail(f"upload failure not reported on stderr: {r.stderr[-600:]}")
        print("ok: bad bucket -> exit code 3 kept, 'upload ... failed: ... NoSuchBucket' on stderr")

        # 4. SIGTERM is forwarded to the command, which decides the exit code.
        child = ("import signal, sys, time\n"
                 "def term(*_):\n    print('got SIGTERM, saving checkpoint', flush=True)\n    sys.exit(7)\n"
                 "signal.signal(signal.SIGTERM, term)\nprint('ready', flush=True)\ntime.sleep(60)\n")
        p = subprocess.Popen([PY, RUNNER, "--results", f"s3://{BUCKET}/tenant-a/run-term/",
                              "--endpoint-url", f"http://127.0.0.1:{port}", "--", PY, "-c", child],
                             env=env_for(port), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = p.stdout.readline()
        if first.strip() != "ready":
            p.kill()
            fail(f"term child did not start: {first!r}")
        p.send_signal(signal.SIGTERM)
        try:
            rest, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            fail("runner did not exit after SIGTERM")
        if p.returncode != 7 or "got SIGTERM" not in rest:
            fail(f"SIGTERM: runner exited {p.returncode}, stdout {rest!r}, stderr {err[-400:]}")
        doc = json.loads(get(s3, "tenant-a/run-term/exit.json"))
        if doc["exitCode"] != 7:
            fail(f"exit.json after SIGTERM: {doc}")
        print("ok: SIGTERM forwarded -> the command's handler ran, exit code 7 kept and recorded")

        # 5. A command killed by a signal exits 128+N; a command that cannot start exits 127.
        r = runner(port, f"s3://{BUCKET}/tenant-a/run-kill/", ["/bin/sh", "-c", "kill -KILL $$"])
        doc = json.loads(get(s3, "tenant-a/run-kill/exit.json"))
        if r.returncode != 137 or doc["signal"] != "SIGKILL":
            fail(f"killed command: exit {r.returncode}, exit.json {doc}")
        r = runner(port, f"s3://{BUCKET}/tenant-a/run-missing/", ["/nonexistent/binary"])
        doc = json.loads(get(s3, "tenant-a/run-missing/exit.json"))
        if r.returncode != 127 or not doc["startError"]:
            fail(f"missing command: exit {r.returncode}, exit.json {doc}")
        print("ok: SIGKILLed command -> 137 and signal SIGKILL; unstartable command -> 127 with startError")

        # 6. Output far larger than memory budgets is spilled, not held: 160 MiB of stdout. The
        # figure is the runner's own peak RSS (VmHWM from its /proc/PID/status), never this test's
        # other children, such as the npm install that fetched s3rver on a first run.
        err_path = os.path.join(WORK, "run-big.stderr")
        with open(err_path, "wb") as err_file:
            p = subprocess.Popen([PY, RUNNER, "--results", f"s3://{BUCKET}/tenant-a/run-big/",
                                  "--endpoint-url", f"http://127.0.0.1:{port}", "--", PY, "-c",
                                  "import sys\nb = b'x' * 1048575 + b'\\n'\nfor _ in range(160): sys.stdout.buffer.write(b)\n"],
                                 env=env_for(port), stdout=subprocess.DEVNULL, stderr=err_file)
            code, hwm_kib = wait_measured(p, timeout=300)
        err = open(err_path, encoding="utf-8", errors="replace").read()
        if code is None:
            fail(f"big output: the runner (pid {p.pid}) did not exit within 300 s: {err[-400:]}")
        if code != 0:
            fail(f"big output: exit {code}: {err[-400:]}")
        size = s3.head_object(Bucket=BUCKET, Key="tenant-a/run-big/stdout.log")["ContentLength"]
        if size != 160 * 1048576:
            fail(f"stdout.log has {size} bytes, want {160 * 1048576}")
        if hwm_kib == 0:
            fail(f"no VmHWM sample of the runner (pid {p.pid}) was read while it ran")
        if hwm_kib > 100 * 1024:
            fail(f"runner (pid {p.pid}) peak RSS {hwm_kib} KiB for 160 MiB of output: the output is held in memory")
        print(f"ok: 160 MiB stdout uploaded intact; the runner's own peak RSS (VmHWM of pid {p.pid}) {hwm_kib // 1024} MiB")

        # 7. Both streams in one log, as in a Ray job: a stderr line written in two pieces stays one
        # line although a stdout line is written between the pieces, and a line with no end yet
        # still shows while the command runs, even while more of it keeps coming (a prompt, then a
        # dot every 30 ms).
        pieces = ("import sys, time\nsys.stderr.write('    par'); sys.stderr.flush()\n"
                  "print('STDOUT LINE', flush=True)\ntime.sleep(0.03)\nsys.stderr.write('tial\\n')\n"
                  "sys.stdout.write('prompt> '); sys.stdout.flush()\n"
                  "for _ in range(100):\n    sys.stdout.write('.'); sys.stdout.flush(); time.sleep(0.03)\n")
        log_path = os.path.join(WORK, "one-log.txt")
        with open(log_path, "wb") as one_log:
            p = subprocess.Popen([PY, RUNNER, "--results", f"s3://{BUCKET}/tenant-a/run-lines/",
                                  "--endpoint-url", f"http://127.0.0.1:{port}", "--", PY, "-c", pieces],
                                 env=env_for(port), stdout=one_log, stderr=one_log)
            time.sleep(1.5)
            live = open(log_path, encoding="utf-8").read()
            code, _ = wait_measured(p, timeout=60)
        lines = open(log_path, encoding="utf-8").read().splitlines()
        if code != 0 or "    partial" not in lines or "STDOUT LINE" not in lines:
            fail(f"one log for both streams: exit {code}; a line was cut by the other stream: {lines}")
        if "prompt> ." not in live:
            fail(f"a line with no end yet did not show while the command ran: {live!r}")
        print("ok: stdout and stderr in one log: a stderr line written in two pieces stays whole around "
              "a stdout line; a prompt and dots with no newline show while the command runs")

        # 8. Bad arguments: exit 2 before anything runs.
        for bad in (["--results", "https://x/", "--", "true"], ["--results", f"s3://{BUCKET}/p/"],
                    ["--results", "s3:///p/", "--", "true"]):
            r = subprocess.run([PY, RUNNER, *bad], env=env_for(port), capture_output=True, text=True, timeout=30)
            if r.returncode != 2 or "runner:" not in r.stderr:
                fail(f"bad arguments {bad}: exit {r.returncode}, stderr {r.stderr!r}")
        print("ok: bad --results URLs and a missing command exit 2 with a message")
    finally:
        stop(s3rver)
    print("PASS: runner.py against s3rver")


if __name__ == "__main__":
    import boto3  # noqa: F401 - fail early and clearly when Debian's python3-boto3 is missing
    main()
