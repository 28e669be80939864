"""A local Ray head (from a PyPI venv) inside the pods' network namespace, with a tenant's Pod
Identity environment, and its job API.

    head = RayHead(env, "tenant-a", venv_dir, work)     # `ray start --head --block` in env.ns
    head.submit("job-1", ["python", "x.py"], runtime_env_file=None)
    status = head.wait("job-1", timeout=300)           # SUCCEEDED / FAILED / STOPPED
    head.logs("job-1"); head.stop()                     # stop(): by PID, then nothing may remain

The head's processes (GCS, raylet, dashboard, the job supervisor and drivers) all run inside the
namespace, so they see the agent at 169.254.170.23 and S3 at podid.S3_ENDPOINT, and nothing else;
the dashboard and the job API are reachable only from inside it, so `ray job` commands run there
too. Ports are Ray's defaults, given explicitly: no other process shares the namespace. One head at
a time per machine (a flock in the cache directory), as the brief of these tests asks.
"""
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time

import netns
import podid
from harness import fail

DASHBOARD = "http://127.0.0.1:8265"
DASHBOARD_AGENT = "http://127.0.0.1:52365"  # Ray's dashboard agent (--dashboard-agent-listen-port)
SUBMIT_ATTEMPTS = 4


class RayHead:
    def __init__(self, env, tenant, venv_dir, work, extra_env=None, start_timeout=240):
        self.env, self.venv = env, venv_dir
        self.work = work
        os.makedirs(work, exist_ok=True)
        lock_path = os.path.join(podid.cache_dir(), "ray-head.lock")
        os.makedirs(os.path.dirname(lock_path), exist_ok=True)
        self.lock = open(lock_path, "w")
        t0 = time.monotonic()
        while True:  # bounded: another test's head may hold the machine's one head
            try:
                fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() - t0 > 900:
                    raise TimeoutError(f"another Ray head held {lock_path} for 900 s")
                time.sleep(1)
        # Ray puts unix sockets under the temp dir: keep its path short. Its path is kept in the
        # work directory, so a run killed before stop() has its temp dir removed by the next one.
        record = os.path.join(work, "ray-temp-dir")
        if os.path.exists(record):
            stale = open(record, encoding="utf-8").read().strip()
            if stale.startswith("/tmp/rjg-ray-"):
                shutil.rmtree(stale, ignore_errors=True)
        self.temp = tempfile.mkdtemp(prefix="rjg-ray-", dir="/tmp")
        with open(record, "w", encoding="utf-8") as f:
            f.write(self.temp + "\n")
        self.pod_env = env.pod_env(tenant)
        self.pod_env.update(PATH=f"{venv_dir}/bin:" + self.pod_env.get("PATH", "/usr/bin:/bin"),
                            RAY_USAGE_STATS_ENABLED="0", PYTHONUNBUFFERED="1")
        self.pod_env.update(extra_env or {})
        self.log_path = os.path.join(work, "ray-head.log")
        argv = [os.path.join(venv_dir, "bin", "ray"), "start", "--head", "--block",
                "--node-ip-address=127.0.0.1", "--port=6379", "--ray-client-server-port=10001",
                "--node-manager-port=6380", "--object-manager-port=6381", "--min-worker-port=20000",
                "--max-worker-port=20100", "--dashboard-host=127.0.0.1", "--dashboard-port=8265",
                "--dashboard-agent-listen-port=52365", "--dashboard-agent-grpc-port=52366",
                "--metrics-export-port=8090", "--num-cpus=2", "--object-store-memory=100000000",
                f"--temp-dir={self.temp}", "--disable-usage-stats", "--include-dashboard=true"]
        with open(self.log_path, "ab") as logf:
            self.proc = subprocess.Popen(env.pod_argv(argv), env=self.pod_env, stdout=logf, stderr=subprocess.STDOUT)
        try:
            podid.wait_for("the Ray head's job API on " + DASHBOARD, self._ready, start_timeout, interval=1)
        except BaseException:
            self.stop()
            raise
        podid.log(f"Ray head up in {time.monotonic() - t0:.0f} s (pid {self.proc.pid}, {venv_dir})")

    def _ready(self):
        if self.proc.poll() is not None:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                tail = f.read()[-1500:]
            raise RuntimeError(f"ray start exited {self.proc.returncode}:\n{tail}")
        # The readiness probe KubeRay gives a head pod: the dashboard agent's raylet check and the
        # dashboard's GCS check. /api/version alone answers before the job agent is registered.
        agent_code, agent = self.api("/api/local_raylet_healthz", base=DASHBOARD_AGENT)
        gcs_code, gcs = self.api("/api/gcs_healthz")
        return agent_code == 200 and "success" in agent and gcs_code == 200 and "success" in gcs

    def api(self, path, base=DASHBOARD):
        """GET on the dashboard (or `base`) from inside the namespace: (HTTP status, body)."""
        r = subprocess.run(self.env.pod_argv(["curl", "-sS", "--max-time", "10", "-o", "-", "-w", "\n%{http_code}",
                                              base + path]), capture_output=True, text=True, timeout=30)
        body, _, code = r.stdout.rpartition("\n")
        return int(code or 0), body

    def ray(self, *args, timeout=120):
        """`ray ARGS` (the venv's CLI) inside the namespace."""
        return subprocess.run(self.env.pod_argv([os.path.join(self.venv, "bin", "ray"), *args]),
                              env=self.pod_env, capture_output=True, text=True, timeout=timeout)

    def submit(self, submission_id, entrypoint, runtime_env_file=None, runtime_env_json=None):
        args = ["job", "submit", f"--address={DASHBOARD}", f"--submission-id={submission_id}", "--no-wait"]
        if runtime_env_file:
            args.append(f"--runtime-env={runtime_env_file}")
        if runtime_env_json:
            args.append(f"--runtime-env-json={json.dumps(runtime_env_json)}")
        # Like KubeRay's submitter Job (backoffLimit), a submission the dashboard refused with a
        # server error before it created the job is tried again, a bounded number of times: the
        # head's dashboard can still be looking up its job agent in GCS just after readiness.
        for attempt in range(1, SUBMIT_ATTEMPTS + 1):
            r = self.ray(*args, "--", *entrypoint)
            if r.returncode == 0:
                break
            transient = "Request failed with status code 5" in r.stderr and self.api(f"/api/jobs/{submission_id}")[0] == 404
            if not transient or attempt == SUBMIT_ATTEMPTS:
                raise RuntimeError(f"ray job submit {submission_id}: exit {r.returncode} (attempt {attempt}): {r.stderr[-1500:]}")
            podid.log(f"ray job submit {submission_id}: server error before the job existed (attempt {attempt}); again in 2 s")
            time.sleep(2)
        podid.log(f"submitted Ray job {submission_id}")

    def status(self, submission_id):
        code, body = self.api(f"/api/jobs/{submission_id}")
        if code != 200:
            raise RuntimeError(f"job {submission_id}: GET /api/jobs answered {code}: {body[:300]}")
        return json.loads(body)

    def wait(self, submission_id, timeout):
        doc = podid.wait_for(f"Ray job {submission_id} to finish",
                             lambda: (lambda d: d if d["status"] in ("SUCCEEDED", "FAILED", "STOPPED") else None)(
                                 self.status(submission_id)), timeout, interval=2)
        podid.log(f"Ray job {submission_id}: {doc['status']}" + (f" ({doc['message'].splitlines()[0][:120]})" if doc.get("message") else ""))
        return doc

    def logs(self, submission_id):
        code, body = self.api(f"/api/jobs/{submission_id}/logs")
        if code != 200:
            raise RuntimeError(f"job {submission_id}: GET logs answered {code}: {body[:300]}")
        return json.loads(body)["logs"]

    def stop(self):
        """Stops the head by its PID (ray start --block stops what it started), then every process
        still in the namespace (job drivers that outlived it). Returns the PIDs left after the
        head's own stop."""
        left = []
        if self.proc is not None:
            if self.proc.poll() is None:
                netns.stop_pid(self.proc.pid, "ray start --head", timeout=60)
            self.proc = None
            try:
                # Ray's own shutdown of its raylet, GCS, dashboard and job supervisors can take
                # tens of seconds on a loaded 2-core machine; whatever is left after a minute is
                # stopped by PID below (only processes this test started are in the namespace).
                podid.wait_for("the Ray processes to leave the namespace", lambda: not self.env.ns.pids(), 60, interval=0.5)
            except TimeoutError:
                left = self.env.ns.stop_processes(timeout=15)
                podid.log(f"stopped {len(left)} Ray process(es) that outlived the head: {left}")
        shutil.rmtree(self.temp, ignore_errors=True)
        if self.lock is not None:
            self.lock.close()
            self.lock = None
        return left

    def check_stopped(self, left):
        """After stop() returned `left`: says how many Ray processes outlived the head's own stop
        (not a failure: a slow Ray shutdown is visible, and they were stopped by PID), then fails
        the test if any process is still in the pods' namespace."""
        if left:
            print(f"note: {len(left)} Ray process(es) outlived the head's own stop by 60 s and were "
                  f"stopped by PID: {left}")
        if self.env.ns.pids():
            fail(f"processes remain in {self.env.ns.name} after the head stopped: {self.env.ns.pids()}")
