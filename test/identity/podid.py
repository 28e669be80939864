"""EKS Pod Identity, for real, on one machine: the reusable pieces of the identity tests.

    with PodIdentityEnv(repo, work) as env:          # or PodIdentityEnv(..., cluster_dir=DIR)
        env.run_in_pod("tenant-a", [python, "job.py"])       # a "pod" of tenant-a's ray-head SA
        env.rotate("tenant-a"); env.invalidate(old_secret)  # the kubelet's token rotation
        env.root_s3().get_object(...)                        # the test's own view of the bucket

What a PodIdentityEnv runs, and stops (by PID, in reverse order, also when the test fails):

- a Kubernetes control plane (test/e2e/cluster.sh; or an existing one passed as cluster_dir),
  namespaces tenant-a and tenant-b, a service account `ray-head` in each (the Ray pods' identity)
  and `kube-system/eks-pod-identity-agent` bound to system:auth-delegator (TokenReview);
- MinIO (test/peers/minio/build.sh) on the host's 127.0.0.1 with a bucket, a user and a policy
  per tenant: user `<tenant>-ray` may read and write only `<tenant>-results`;
- a network namespace (the pods' network) with 169.254.170.23 on its loopback, holding the agent
  stand-in (agent.py) on port 80 and a relay to MinIO at S3_ENDPOINT (127.0.0.1:9000);
- per tenant, a token file (the projected service-account token: TokenRequest, audience
  pods.eks.amazonaws.com, bound to a Secret so that it can be invalidated, like an expired token).

Entry points for other suites (the lifecycle suite's application-failure case):
  PodIdentityEnv(repo, work, tenants=..., expiration_seconds=60, cluster_dir=DIR)
      with cluster_dir, the suite's own running cluster is used (and left running)
  env.pod_argv(argv), env.pod_env(tenant)   run a pod's process in the pods' network with the
                                            Pod Identity variables of tenant's ray-head SA
  env.run_in_pod(tenant, argv, timeout)     the same, waited for (e.g. jobs/s3_read.py)
  env.expose(port) -> host port             reach a server in the pods' network from the host
  env.rotate(tenant) / env.invalidate(...)  the kubelet's token rotation; the old token's end
  env.bucket(tenant), S3_ENDPOINT           where the runner writes (--endpoint-url S3_ENDPOINT)
  env.root_s3(), env.agent_requests()       the test's own view of the bucket and the agent
  rayhead.RayHead(env, tenant, venv, work)  a Ray head in the pods' network, with its job API
  jobs/train.py                             an application that writes its manifest, then fails

Every wait is bounded and names what it waited for. Runs with the identity-tools venv's Python
(minio, boto3, PyYAML: test/identity/run.sh).
"""
import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import harness  # noqa: E402  (Cluster, free_port)
import netns  # noqa: E402

AUDIENCE = "pods.eks.amazonaws.com"
AGENT_URI = f"http://{netns.AGENT_HOST}/v1/credentials"
S3_ENDPOINT = "http://127.0.0.1:9000"  # the S3 endpoint as the pods see it (inside the netns)
TENANTS = ("tenant-a", "tenant-b")
POD_SA = "ray-head"


def log(msg):
    print(f"[podid] {msg}", flush=True)


def exit_on_signals():
    """SIGTERM/SIGINT/SIGHUP (ctest's timeout, ^C) become SystemExit in the main thread, so the
    `with PodIdentityEnv` and `finally` blocks stop everything the test started."""
    def handler(signum, _frame):
        raise SystemExit(128 + signum)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, handler)


def cache_dir():
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rayjob-guard")


def venv(repo, name, *requirements):
    """test/peers/venv.sh NAME REQ...: the cached venv's directory."""
    r = subprocess.run([os.path.join(repo, "test", "peers", "venv.sh"), name, *requirements],
                       stdout=subprocess.PIPE, text=True, timeout=1800)
    if r.returncode != 0:
        raise RuntimeError(f"venv.sh {name} failed (exit {r.returncode})")
    return r.stdout.strip().splitlines()[-1]


def wheelhouse(name, requirements):
    """A cached directory of wheels for `requirements` and their dependencies (pip download with
    this interpreter), for installs that must not reach an index: the pods' namespace has no route
    to one. Made once under the cache directory; reused while the requirement list is unchanged."""
    import fcntl
    root = os.path.join(cache_dir(), "wheels")
    d = os.path.join(root, name)
    os.makedirs(root, exist_ok=True)
    want = "\n".join(requirements) + "\n"
    with open(os.path.join(root, f".{name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = os.path.join(d, ".rjg-requirements")
        if os.path.exists(stamp) and open(stamp, encoding="utf-8").read() == want:
            return d
        shutil.rmtree(d, ignore_errors=True)
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                        "--only-binary=:all:", "--dest", d, *requirements], check=True, timeout=900)
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(want)
        log(f"wheelhouse {name}: {len(os.listdir(d)) - 1} wheels in {time.monotonic() - t0:.0f} s")
        return d


def wait_for(what, predicate, timeout, interval=0.1):
    """Polls predicate() until it returns a true value (returned) or `timeout` s pass (raises,
    naming `what`)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not after {timeout} s")
        time.sleep(interval)


def wait_file(path, what, timeout, proc=None):
    def ready():
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what}: exited {proc.returncode} before it was ready")
        return os.path.exists(path)
    wait_for(what, ready, timeout)


def in_order(lines, within):
    """Whether every line of `lines` appears in `within`, in that order. A job's log interleaves
    the program's stdout and stderr, so a traceback is checked line by line, not as one block."""
    it = iter(within)
    return all(any(line == w for w in it) for line in lines)


def sha(token):
    return hashlib.sha256(token.encode()).hexdigest()[:16]


class Cluster:
    """The control plane: started with test/e2e/cluster.sh (test/harness's Cluster; stopped by
    down()), or an existing one in `dir` (left running)."""

    def __init__(self, dir, start):
        self.control, self.started = harness.Cluster(dir), False
        if start:
            t0 = time.monotonic()
            for attempt in (1, 2, 3):
                # cluster.sh stops what it started when `up` fails. Its `kubectl wait` for the CRDs
                # can fail at once when it reads a CRD before the apiserver set any condition
                # (".status.conditions accessor error"): a race outside this suite, so try again.
                code = self.control.up(check=False)
                if code == 0:
                    break
                if attempt == 3:
                    raise RuntimeError(f"test/e2e/cluster.sh up {dir} failed 3 times (exit {code})")
                log(f"cluster.sh up failed (exit {code}, attempt {attempt}); trying again")
            self.started = True
            log(f"cluster up in {time.monotonic() - t0:.1f} s")
        self.env = self.control.env
        self.kubeconfig = os.path.join(dir, "admin.kubeconfig")
        self.url = self.env["APISERVER_URL"]
        self.ca = self.env.get("APISERVER_CA") or self.kubectl(
            "config", "view", "--raw", "-o", "jsonpath={.clusters[0].cluster.certificate-authority}")

    def kubectl(self, *args, input=None, check=True):
        """kubectl's stdout as admin; a failure raises (the caller may clean up and go on)."""
        code, out, err = self.control.kubectl(*args, stdin=input, timeout=60)
        if check and code != 0:
            raise RuntimeError(f"kubectl {' '.join(args)}: exit {code}: {err.strip()}")
        return out

    def apply(self, doc):
        self.kubectl("apply", "-f", "-", input=json.dumps(doc))

    def token(self, namespace, sa, audience=None, secret=None, seconds=600):
        """A TokenRequest token for namespace/sa (bound to Secret `secret` when given)."""
        args = ["create", "token", sa, "-n", namespace, f"--duration={seconds}s"]
        if audience:
            args.append(f"--audience={audience}")
        if secret:
            args += ["--bound-object-kind=Secret", f"--bound-object-name={secret}"]
        return self.kubectl(*args).strip()

    def review(self, token, audience=AUDIENCE):
        """TokenReview as the admin: (authenticated, username or error)."""
        out = self.kubectl("create", "-o", "json", "-f", "-", input=json.dumps({
            "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
            "spec": {"token": token, "audiences": [audience]}}))
        status = json.loads(out).get("status", {})
        return bool(status.get("authenticated")), status.get("user", {}).get("username") or status.get("error")

    def down(self):
        if self.started:
            self.control.down()
            self.started = False


class Minio:
    """MinIO on the host's loopback with a bucket, user and policy per tenant."""

    def __init__(self, repo, work, tenants):
        r = subprocess.run([os.path.join(repo, "test", "peers", "minio", "build.sh")],
                           stdout=subprocess.PIPE, text=True, timeout=3600)
        if r.returncode != 0:
            raise RuntimeError(f"test/peers/minio/build.sh failed (exit {r.returncode})")
        self.binary = r.stdout.strip().splitlines()[-1]
        self.root = ("rjg-root", secrets.token_hex(16))
        self.data = os.path.join(work, "minio-data")
        shutil.rmtree(self.data, ignore_errors=True)
        os.makedirs(self.data)
        self.log_path = os.path.join(work, "minio.log")
        self.proc = None
        for attempt in range(3):  # a free port can be taken between the probe and MinIO's bind
            self.port = harness.free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            # HOME too: MinIO makes ~/.minio even when its certs directory is elsewhere.
            env = dict(os.environ, MINIO_ROOT_USER=self.root[0], MINIO_ROOT_PASSWORD=self.root[1],
                       MINIO_BROWSER="off", MINIO_UPDATE="off", MINIO_CALLHOME_ENABLE="off", HOME=work)
            with open(self.log_path, "ab") as logf:
                self.proc = subprocess.Popen([self.binary, "server", "--quiet", "--address", f"127.0.0.1:{self.port}",
                                              "--certs-dir", os.path.join(work, "minio-certs"), self.data],
                                             env=env, stdout=logf, stderr=subprocess.STDOUT)
            try:
                wait_for(f"MinIO ready on {self.url}", self._ready, 60, interval=0.2)
                break
            except (TimeoutError, RuntimeError):
                self.stop()
                if attempt == 2:
                    raise
        log(f"MinIO {os.path.basename(os.path.dirname(self.binary))} on {self.url} (pid {self.proc.pid})")
        self.users = {}
        try:
            self._setup(tenants)
        except BaseException:
            self.stop()
            raise

    def _ready(self):
        if self.proc.poll() is not None:
            raise RuntimeError(f"MinIO exited {self.proc.returncode}; see {self.log_path}")
        try:
            with urllib.request.urlopen(f"{self.url}/minio/health/ready", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def _setup(self, tenants):
        from minio.credentials import StaticProvider
        from minio.minioadmin import MinioAdmin
        admin = MinioAdmin(endpoint=f"127.0.0.1:{self.port}", credentials=StaticProvider(*self.root), secure=False)
        root = self.client(*self.root)
        for tenant in tenants:
            bucket = f"{tenant}-results"
            root.create_bucket(Bucket=bucket)
            policy = {"Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Action": ["s3:ListBucket", "s3:GetBucketLocation"],
                 "Resource": [f"arn:aws:s3:::{bucket}"]},
                {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject",
                                               "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"],
                 "Resource": [f"arn:aws:s3:::{bucket}/*"]}]}
            user = (f"{tenant}-ray", secrets.token_hex(16))
            admin.policy_add(f"{tenant}-results-rw", policy=policy)
            admin.user_add(*user)
            admin.attach_policy([f"{tenant}-results-rw"], user=user[0])
            self.users[tenant] = user
        log(f"MinIO: buckets, users and policies for {', '.join(tenants)}")

    def client(self, access_key, secret_key, token=None):
        import boto3
        from botocore.config import Config
        return boto3.client("s3", endpoint_url=self.url, region_name="us-east-1",
                            aws_access_key_id=access_key, aws_secret_access_key=secret_key,
                            aws_session_token=token,
                            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2}))

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            netns.stop_pid(self.proc.pid, "minio")
        self.proc = None


class PodIdentityEnv:
    """Everything a pod with EKS Pod Identity sees (module docstring). Use as a context manager."""

    def __init__(self, repo, work, tenants=TENANTS, expiration_seconds=60, cluster_dir=None):
        self.repo, self.work = os.path.abspath(repo), os.path.abspath(work)
        self.tenants = tuple(tenants)
        self.expiration_seconds = expiration_seconds
        self.cluster_dir = cluster_dir
        self.cluster = self.minio = self.ns = None
        self.procs = []  # (name, Popen) of the host-side servers, stopped in reverse order
        self.secrets = {}  # tenant -> name of the Secret the current token is bound to
        self.generation = {}
        self.tokens = {}  # tenant -> current token
        self.token_by_secret = {}  # (tenant, Secret name) -> the token bound to it

    # -- lifecycle ---------------------------------------------------------------------------
    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _reap_previous(self):
        """Stops what a killed earlier run in the same work directory left running: the processes
        it recorded (only while their command line is still theirs), its cluster, and namespaces
        of runs whose PID is gone."""
        pids = os.path.join(self.work, "pids")
        if os.path.exists(pids):
            for line in open(pids, encoding="utf-8").read().splitlines():
                pid, _, marker = line.partition(" ")
                try:
                    cmdline = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
                except OSError:
                    continue
                if marker and marker in cmdline:
                    log(f"stopping pid {pid} left by an earlier run ({marker})")
                    netns.stop_pid(int(pid), marker)
            os.unlink(pids)
        if not self.cluster_dir and os.path.exists(os.path.join(self.work, "cluster", "env")):
            harness.Cluster(os.path.join(self.work, "cluster")).down()
        for name in netns.sweep_stale("rjg-id"):
            log(f"removed namespace {name} left by an earlier run")

    def record_pid(self, pid, marker):
        with open(os.path.join(self.work, "pids"), "a", encoding="utf-8") as f:
            f.write(f"{pid} {marker}\n")

    def _start(self):
        os.makedirs(self.work, exist_ok=True)
        self._reap_previous()
        if self.cluster_dir:
            self.cluster = Cluster(self.cluster_dir, start=False)
        else:
            self.cluster = Cluster(os.path.join(self.work, "cluster"), start=True)
        self.minio = Minio(self.repo, self.work, self.tenants)
        self.record_pid(self.minio.proc.pid, self.minio.data)
        self._kube_objects()
        self.ns = netns.Netns("rjg-id")
        log(f"network namespace {self.ns.name}: lo with 127.0.0.1 and {netns.AGENT_HOST}")
        py = sys.executable
        relay_ready = os.path.join(self.work, "relay.ready")
        self._spawn("s3 relay", [py, os.path.join(HERE, "relay.py"), "--netns", self.ns.name,
                                 "--listen", S3_ENDPOINT[len("http://"):], "--to", f"127.0.0.1:{self.minio.port}",
                                 "--ready-file", relay_ready], relay_ready)
        self.agent_log = os.path.join(self.work, "agent.log")
        open(self.agent_log, "w").close()
        assoc = os.path.join(self.work, "associations.json")
        with open(assoc, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o600)
            json.dump([{"namespace": t, "serviceAccount": POD_SA, "accessKeyId": self.minio.users[t][0],
                        "secretAccessKey": self.minio.users[t][1]} for t in self.tenants], f)
        agent_token = os.path.join(self.work, "agent.token")
        with open(agent_token, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(self.cluster.token("kube-system", "eks-pod-identity-agent", seconds=7200))
        agent_ready = os.path.join(self.work, "agent.ready")
        self._spawn("pod identity agent", [
            py, os.path.join(HERE, "agent.py"), "--netns", self.ns.name, "--apiserver", self.cluster.url,
            "--ca", self.cluster.ca, "--token-file", agent_token, "--associations", assoc,
            "--sts-endpoint", self.minio.url, "--expiration-seconds", str(self.expiration_seconds),
            "--log", self.agent_log, "--ready-file", agent_ready], agent_ready)
        for t in self.tenants:
            self.rotate(t)
        log(f"agent on {AGENT_URI} in {self.ns.name}; S3 at {S3_ENDPOINT} there; "
            f"credentials expire {self.expiration_seconds} s after issue")

    def expose(self, port):
        """Makes 127.0.0.1:port inside the pods' namespace reachable from the host (a reverse
        relay, stopped with the rest); returns the host's 127.0.0.1 port. For host processes such
        as an operator that polls a Ray head's dashboard."""
        host_port = harness.free_port()
        ready = os.path.join(self.work, f"expose-{port}.ready")
        self._spawn(f"relay to {port}", [sys.executable, os.path.join(HERE, "relay.py"), "--netns", self.ns.name,
                                          "--reverse", "--listen", f"127.0.0.1:{host_port}", "--to", f"127.0.0.1:{port}",
                                          "--ready-file", ready], ready)
        return host_port

    def _spawn(self, name, argv, ready_file):
        if os.path.exists(ready_file):
            os.unlink(ready_file)
        logf = open(os.path.join(self.work, name.replace(" ", "-") + ".stderr"), "ab")
        p = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT)
        self.procs.append((name, p))
        self.record_pid(p.pid, ready_file)
        wait_file(ready_file, f"{name} listening", 30, proc=p)
        log(f"{name} ready (pid {p.pid})")

    def _kube_objects(self):
        for t in self.tenants:
            self.cluster.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": t}})
            self.cluster.apply({"apiVersion": "v1", "kind": "ServiceAccount",
                                "metadata": {"name": POD_SA, "namespace": t}})
        self.cluster.apply({"apiVersion": "v1", "kind": "ServiceAccount",
                            "metadata": {"name": "eks-pod-identity-agent", "namespace": "kube-system"}})
        self.cluster.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                            "metadata": {"name": "eks-pod-identity-agent-auth-delegator"},
                            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                        "name": "system:auth-delegator"},
                            "subjects": [{"kind": "ServiceAccount", "name": "eks-pod-identity-agent",
                                          "namespace": "kube-system"}]})

    def close(self):
        errors = []
        if self.ns is not None:
            try:
                found = self.ns.stop_processes()
                if found:
                    log(f"stopped {len(found)} process(es) left in {self.ns.name}: {found}")
                self.ns.delete()
            except Exception as e:  # noqa: BLE001 - keep stopping the rest
                errors.append(f"netns: {e}")
            self.ns = None
        for name, p in reversed(self.procs):
            if p.poll() is None:
                netns.stop_pid(p.pid, name)
        self.procs = []
        if self.minio is not None:
            self.minio.stop()
            self.minio = None
        if self.cluster is not None:
            self.cluster.down()
            self.cluster = None
        if errors:
            raise RuntimeError("; ".join(errors))

    # -- the pods' identity -----------------------------------------------------------------
    def token_file(self, tenant):
        """The projected token's path for tenant's ray-head service account."""
        return os.path.join(self.work, "tokens", tenant, POD_SA, "eks-pod-identity-token")

    def rotate(self, tenant):
        """Writes a new token (bound to a new Secret) atomically over the token file, as the kubelet
        does. Returns the Secret the previous token was bound to (None the first time); that token
        stays valid until invalidate()."""
        gen = self.generation.get(tenant, 0) + 1
        self.generation[tenant] = gen
        secret = f"{POD_SA}-token-binding-{gen}"
        self.cluster.apply({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": secret, "namespace": tenant}})
        token = self.cluster.token(tenant, POD_SA, audience=AUDIENCE, secret=secret)
        path = self.token_file(tenant)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "w", encoding="ascii") as f:
            f.write(token)  # no newline: botocore refuses a header value with one
        os.chmod(path + ".tmp", 0o644)
        os.replace(path + ".tmp", path)
        old = self.secrets.get(tenant)
        self.secrets[tenant] = secret
        self.tokens[tenant] = token
        self.token_by_secret[(tenant, secret)] = token
        return old

    def invalidate(self, tenant, secret):
        """Deletes the Secret a previous token of tenant's was bound to, so the apiserver no longer
        authenticates that token (as when a token expires), and waits until a TokenReview of it
        says so. Returns that token's sha256 prefix (as the agent logs it)."""
        token = self.token_by_secret[(tenant, secret)]
        self.cluster.kubectl("delete", "secret", secret, "-n", tenant, "--wait=true")
        wait_for(f"the apiserver refusing {tenant}'s token bound to the deleted Secret {secret}",
                 lambda: not self.cluster.review(token)[0], 30, interval=0.2)
        log(f"{tenant}: deleted Secret {secret}; its token ({sha(token)}) is no longer valid")
        return sha(token)

    def current_token_sha(self, tenant):
        return sha(self.tokens[tenant])

    def token_by_secret_sha(self, tenant, secret):
        return sha(self.token_by_secret[(tenant, secret)])

    def pod_env(self, tenant, base=None):
        """The environment of a process in a pod of tenant's ray-head service account: the Pod
        Identity variables the EKS webhook injects, no other AWS credentials."""
        env = {k: v for k, v in (base if base is not None else os.environ).items() if not k.startswith("AWS_")}
        env.update(AWS_CONTAINER_CREDENTIALS_FULL_URI=AGENT_URI,
                   AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE=self.token_file(tenant),
                   AWS_DEFAULT_REGION="us-east-1", AWS_REGION="us-east-1",
                   AWS_CONFIG_FILE=os.path.join(self.work, "no-aws-config"),
                   AWS_SHARED_CREDENTIALS_FILE=os.path.join(self.work, "no-aws-credentials"),
                   AWS_EC2_METADATA_DISABLED="true")
        return env

    def pod_argv(self, argv):
        return self.ns.argv(*argv)

    def run_in_pod(self, tenant, argv, timeout, env_extra=None, **kw):
        """Runs argv inside the pods' network namespace with tenant's Pod Identity environment."""
        env = self.pod_env(tenant)
        env.update(env_extra or {})
        return subprocess.run(self.pod_argv(argv), env=env, timeout=timeout, **kw)

    def agent_requests(self):
        """The agent's log: one dict per request it answered."""
        with open(self.agent_log, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    # -- the test's own view of S3 ----------------------------------------------------------
    def root_s3(self):
        return self.minio.client(*self.minio.root)

    def user_s3(self, tenant):
        """tenant's long-term MinIO user (what the association maps to), from the host."""
        return self.minio.client(*self.minio.users[tenant])

    def bucket(self, tenant):
        return f"{tenant}-results"
