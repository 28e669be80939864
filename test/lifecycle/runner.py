#!/usr/bin/env python3
"""The lifecycle suite's pod runner: beside kwok, it really runs what a KubeRay pod would run.

Watches every pod (bound to a node) and:
  - a RayCluster head pod (label ray.io/node-type=head): runs a real Ray head as a local process
    group on its own 127.0.0.X with explicit free ports (the operator's KUBERAY_GEN_RAY_START_CMD,
    rewritten), checks the two endpoints the pod's probes would (raylet and GCS health), writes
    "<cluster>-head-svc.<ns>.svc.cluster.local" -> 127.0.0.X into the hosts file the operator sees,
    then annotates the pod ready with that IP (kwok's pod-ready Stage makes it Running and Ready).
    A head pod annotated lifecycle.rayjob-guard.io/hold: not-ready is left Pending on purpose.
  - a submitter pod (owned by a Job): runs the container's own command (`ray job submit ...`),
    the head service's name rewritten to the head's address, and reports the real exit code
    (kwok's pod-succeeded / pod-failed Stages set the phase).
  - a worker pod (label ray.io/node-type=worker): made Running and Ready with no process (the
    suite's jobs run on the head); it holds its requests in the quota like any pod.
  - a deleted pod: stops its process group (TERM, then KILL after 15 s) and frees its address;
    the head's Ray session logs are kept in LOG_DIR/ray-<temp dir name>.
At most --max-heads heads run at once; a head beyond that waits (logged). Stops everything it
started on SIGTERM/SIGINT.

--netns-pods FILE (the acceptance case): JSON {"<k8s namespace>": {"netns": NAME, "venv": DIR,
"env": {...}, "relay": PATH/relay.py}}. The head and the submitter of a pod in such a namespace
run inside network namespace NAME (`ip netns exec`), with that venv's Ray and that env (a
tenant's EKS Pod Identity variables; no other AWS_* variable); the head's health is checked from
inside NAME, and a reverse relay on the host's 127.0.0.X:8265 to the head's 127.0.0.X:8265 inside
NAME lets the operator reach the head at its service name as before. Logs one line per event to stdout; each process's output goes to
LOGDIR/<namespace>.<pod>.log."""

import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import harness  # noqa: E402
from kube import Kube, KubeError  # noqa: E402

ANN = "lifecycle.rayjob-guard.io/"
# Flags of `ray start` the runner sets itself (address, ports, the local process's limits).
OWN_FLAGS = {
    "--node-ip-address", "--dashboard-host", "--dashboard-port", "--port", "--metrics-export-port",
    "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port", "--node-manager-port",
    "--object-manager-port", "--ray-client-server-port", "--runtime-env-agent-port",
    "--min-worker-port", "--max-worker-port", "--object-store-memory", "--memory", "--temp-dir",
    "--block", "--head", "--num-cpus", "--address", "--dashboard-grpc-port",
}


def log(msg):
    print(time.strftime("%H:%M:%S ", time.gmtime()) + msg, flush=True)


def port_free(host, port):
    """Whether nothing listens on host:port (another suite's Ray head, or relay, on the same
    127.0.0.X: the address list is the same in every runner on the machine)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((host, port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def stop_group(proc, name):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        log(f"{name}: pid {proc.pid} still runs 15 s after TERM; KILL")
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(10)
    # `ray start --block` exits before its raylet, GCS and dashboard do: wait for the whole group
    # to be gone (KILL what is left after 10 s), so nothing writes into its temp dir afterwards.
    for _ in range(100):
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    log(f"{name}: processes of group {proc.pid} still run 10 s after its leader exited; KILL")
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    for _ in range(50):
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    log(f"{name}: group {proc.pid} still there 5 s after KILL")


class Runner:
    def __init__(self, args):
        self.kube = Kube(args.kubeconfig)
        self.venv = args.ray_venv
        self.hosts_file = args.hosts_file
        self.logdir = args.log_dir
        self.max_heads = args.max_heads
        self.domain = args.cluster_domain
        self.lock = threading.Lock()
        self.heads = {}       # pod uid -> dict(proc, ip, host, name)
        self.submitters = {}  # pod uid -> dict(proc, name)
        self.claimed = set()  # pod uids being handled
        self.free_ips = [f"127.0.0.{i}" for i in range(10, 30)]
        self.given_ports = set()  # every port handed to a head, never handed out again
        self.head_ips = {}    # "<cluster>.<ns>" -> ip, for the submitters
        self.stopping = threading.Event()
        # Every process group and head temp dir started and not yet cleaned up, so a shutdown
        # that interrupts a pod's own cleanup (SIGTERM mid-stop) still ends them.
        self.groups = {}      # pgid -> Popen
        self.tmps = set()
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.join(self.venv, "bin") + ":" + self.env.get("PATH", "")
        self.env.pop("PYTHONPATH", None)
        self.netns_pods = {}
        if args.netns_pods:
            with open(args.netns_pods, encoding="utf-8") as f:
                self.netns_pods = json.load(f)
        self.write_hosts()

    def pod_env(self, ns):
        """(argv prefix, environment) of a pod's process in namespace ns."""
        cfg = self.netns_pods.get(ns)
        if not cfg:
            return [], dict(self.env)
        env = {k: v for k, v in self.env.items() if not k.startswith("AWS_")}
        env.update(cfg["env"])
        env["PATH"] = os.path.join(cfg["venv"], "bin") + ":" + self.env.get("PATH", "")
        return ["ip", "netns", "exec", cfg["netns"]], env

    def healthy(self, ns, url):
        cfg = self.netns_pods.get(ns)
        if not cfg:
            return harness.http_ok(url)
        r = subprocess.run(["ip", "netns", "exec", cfg["netns"], "curl", "-sf", "-o", "/dev/null",
                            "--max-time", "2", url], capture_output=True, timeout=20)
        return r.returncode == 0

    def start_relay(self, ns, name, ip):
        """The host's ip:8265 -> ip:8265 inside the pod's network namespace (netns pods only)."""
        cfg = self.netns_pods[ns]
        ready = os.path.join(self.logdir, f"{ns}.{name}.relay.ready")
        if os.path.exists(ready):
            os.unlink(ready)
        logf = open(os.path.join(self.logdir, f"{ns}.{name}.relay.log"), "ab")
        proc = subprocess.Popen([sys.executable, cfg["relay"], "--netns", cfg["netns"], "--reverse",
                                 "--listen", f"{ip}:8265", "--to", f"{ip}:8265", "--ready-file", ready],
                                stdout=logf, stderr=subprocess.STDOUT, start_new_session=True)
        with self.lock:
            self.groups[proc.pid] = proc
        t0 = time.monotonic()
        while not os.path.exists(ready):
            if proc.poll() is not None or time.monotonic() - t0 > 30:
                log(f"{ns}/{name}: the relay to {ip}:8265 in {cfg['netns']} did not start "
                    f"(exit {proc.poll()}); see {ns}.{name}.relay.log")
                return proc
            time.sleep(0.1)
        log(f"{ns}/{name}: relay host {ip}:8265 -> {ip}:8265 in {cfg['netns']} (pid {proc.pid})")
        return proc

    # --- hosts file (bind-mounted over /etc/hosts in the operator's mount namespace) ---------
    def write_hosts(self):
        lines = ["127.0.0.1 localhost", "::1 localhost"]
        with self.lock:
            for h in self.heads.values():
                if h.get("published"):
                    lines.append(f"{h['ip']} {h['host']}")
        # In place (same inode): the bind mount follows the inode, not the name.
        with open(self.hosts_file, "r+") as f:
            f.seek(0)
            f.write("\n".join(lines) + "\n")
            f.truncate()

    def annotate(self, pod, **ann):
        ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        body = {"metadata": {"annotations": {ANN + k.replace("_", "-"): v for k, v in ann.items()}}}
        try:
            self.kube.merge_patch(f"/api/v1/namespaces/{ns}/pods/{name}", body)
        except KubeError as e:
            log(f"{ns}/{name}: annotate {ann} failed: {e}")

    # --- pods ----------------------------------------------------------------------------------
    def on_pod(self, kind, pod):
        md = pod["metadata"]
        uid, ns, name = md["uid"], md["namespace"], md["name"]
        if kind == "DELETED" or md.get("deletionTimestamp"):
            self.stop_pod(uid, f"{ns}/{name}")
            return
        if not pod["spec"].get("nodeName") or pod.get("status", {}).get("phase") not in (None, "Pending"):
            return
        anns = md.get("annotations") or {}
        if ANN + "ready" in anns or ANN + "outcome" in anns:
            return
        labels = md.get("labels") or {}
        owners = [o["kind"] for o in md.get("ownerReferences") or []]
        with self.lock:
            if uid in self.claimed:
                return
            self.claimed.add(uid)
        if labels.get("ray.io/node-type") == "head":
            if anns.get(ANN + "hold") == "not-ready":
                log(f"{ns}/{name}: head held not-ready (annotation {ANN}hold); not started")
                return
            threading.Thread(target=self.run_head, args=(pod,), daemon=True).start()
        elif "Job" in owners:
            threading.Thread(target=self.run_submitter, args=(pod,), daemon=True).start()
        elif labels.get("ray.io/node-type") == "worker":
            # No Ray worker process: the suite's jobs run on the head. The pod is Running and
            # Ready, as the RayCluster needs to be ready, and holds its requests in the quota.
            log(f"{ns}/{name}: worker pod made Running (no process; the jobs run on the head)")
            self.annotate(pod, ready="true", pod_ip="127.0.0.1")
        else:
            log(f"{ns}/{name}: neither a head nor a submitter; left Pending")

    def draw_ports(self, n):
        """n distinct ports nothing listens on at any address, none of them given to a head of this
        runner before. Any address: Ray binds some of its ports (the dashboard's gRPC port) on
        0.0.0.0 whatever --node-ip-address says, so a port free on the head's own 127.0.0.X alone
        may be another head's (seen: "Failed to bind to address 0.0.0.0:55025"). Never given
        before: two heads starting at the same moment each ask the kernel for free ports before
        either binds them, so both could be given one port, and a head that loses it can still
        pass its health check (seen: a RayJob whose head was healthy and whose Ray job stayed
        PENDING for 300 s while another head started beside it)."""
        with self.lock:
            while True:
                ports = harness.free_ports(n, host="")
                if self.given_ports.isdisjoint(ports):
                    self.given_ports.update(ports)
                    return ports

    def stop_pod(self, uid, what):
        with self.lock:
            h = self.heads.pop(uid, None)
            s = self.submitters.pop(uid, None)
        if h:
            log(f"{what}: pod deleted; stopping the Ray head "
                f"(pid {h['proc'].pid if h['proc'] else '-'}, {h['ip']})")
            if h["proc"]:
                stop_group(h["proc"], what)
            if h.get("tmp"):
                self.remove_tmp(h["tmp"])
                self.tmps.discard(h["tmp"])
            if h["proc"]:
                self.groups.pop(h["proc"].pid, None)
            if h.get("relay"):
                stop_group(h["relay"], what + " relay")
                self.groups.pop(h["relay"].pid, None)
            with self.lock:
                self.free_ips.append(h["ip"])
                self.head_ips.pop(h["key"], None)
            self.write_hosts()
            log(f"{what}: Ray head stopped")
        if s and s["proc"].poll() is None:
            log(f"{what}: pod deleted; stopping the submitter (pid {s['proc'].pid})")
            stop_group(s["proc"], what)

    def container_env(self, c):
        env = {}
        for e in c.get("env") or []:
            if "value" in e:
                env[e["name"]] = e["value"]
        return env

    def run_head(self, pod):
        md = pod["metadata"]
        ns, name, uid = md["namespace"], md["name"], md["uid"]
        cluster = md["labels"].get("ray.io/cluster", "")
        c = pod["spec"]["containers"][0]
        genv = self.container_env(c)
        gen = genv.get("KUBERAY_GEN_RAY_START_CMD", "")
        if not gen:
            log(f"{ns}/{name}: no KUBERAY_GEN_RAY_START_CMD in the head container; left Pending")
            return
        waited = time.monotonic()
        while True:
            with self.lock:
                usable = [a for a in self.free_ips if port_free(a, 8265)]
                if len(self.heads) < self.max_heads and usable:
                    ip = usable[0]
                    self.free_ips.remove(ip)
                    self.heads[uid] = {"ip": ip, "proc": None, "key": f"{cluster}.{ns}",
                                       "host": f"{cluster}-head-svc.{ns}.svc.{self.domain}"}
                    break
            if self.stopping.is_set():
                return
            if time.monotonic() - waited > 1:
                log(f"{ns}/{name}: waiting for a head slot ({self.max_heads} heads run)")
                waited = time.monotonic() + 30
            time.sleep(0.5)
        # Keep the operator's own flags (resources, labels...) and set address and ports ourselves.
        words = shlex.split(gen)
        kept, skip = [], False
        for w in words:
            if skip:
                skip = False
                continue
            flag = w.split("=", 1)[0]
            if flag in OWN_FLAGS:
                skip = "=" not in w and flag not in ("--head", "--block")
                continue
            kept.append(w)
        if kept[:2] == ["ray", "start"]:
            kept = kept[2:]
        # No two heads are given one port (draw_ports), but another process may still take a port
        # before Ray binds it: a head not healthy after 120 s is stopped and started again on new
        # ports.
        for attempt in (1, 2):
            (gcs, metrics, agent, agent_grpc, node_manager, object_manager, client, runtime_env,
             dashboard_grpc) = self.draw_ports(9)
            ports = {
                "--port": gcs, "--dashboard-port": 8265, "--metrics-export-port": metrics,
                "--dashboard-agent-listen-port": agent, "--dashboard-agent-grpc-port": agent_grpc,
                "--node-manager-port": node_manager, "--object-manager-port": object_manager,
                "--ray-client-server-port": client, "--runtime-env-agent-port": runtime_env,
                "--dashboard-grpc-port": dashboard_grpc,
            }
            # Short: Ray's unix sockets live under it, and a socket path has at most 107 bytes.
            tmp = tempfile.mkdtemp(prefix="rjgray.", dir="/tmp")
            prefix, env = self.pod_env(ns)
            ray = os.path.join(self.netns_pods[ns]["venv"], "bin", "ray") if ns in self.netns_pods else "ray"
            cmd = [*prefix, ray, "start", "--head", "--block", "--node-ip-address", ip, "--dashboard-host", ip,
                   "--num-cpus", "2", "--object-store-memory", str(100 * 1024 * 1024),
                   # Workers' gRPC servers bind a port the kernel picks (Ray's 0), so two heads on
                   # one machine never share a worker port range.
                   "--temp-dir", tmp, "--min-worker-port", "0", "--max-worker-port", "0"]
            for k, v in ports.items():
                cmd += [k, str(v)]
            cmd += kept
            logf = open(os.path.join(self.logdir, f"{ns}.{name}.log"), "ab")
            log(f"{ns}/{name}: starting Ray head on {ip}: {' '.join(cmd)}")
            env.update({"RAY_USAGE_STATS_ENABLED": "0", "RAY_DISABLE_DOCKER_CPU_WARNING": "1"})
            proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, env=env,
                                    start_new_session=True, cwd=self.logdir)
            with self.lock:
                if uid not in self.heads:  # deleted meanwhile
                    stop_group(proc, name)
                    return
                self.heads[uid]["proc"] = proc
                self.heads[uid]["tmp"] = tmp
                self.groups[proc.pid] = proc
                self.tmps.add(tmp)
            t0 = time.monotonic()
            raylet = f"http://{ip}:{agent}/api/local_raylet_healthz"
            gcs = f"http://{ip}:8265/api/gcs_healthz"
            while not (self.healthy(ns, raylet) and self.healthy(ns, gcs)):
                if proc.poll() is not None:
                    log(f"{ns}/{name}: Ray head exited {proc.returncode} before it was healthy; "
                        f"see {ns}.{name}.log")
                    self.annotate(pod, outcome="failed", exit_code=str(proc.returncode or 1))
                    return
                if time.monotonic() - t0 > 120:
                    break
                with self.lock:
                    if uid not in self.heads:
                        return
                time.sleep(0.5)
            else:
                break  # healthy
            stop_group(proc, name)
            with self.lock:
                self.groups.pop(proc.pid, None)
                if uid not in self.heads:
                    return
            if attempt == 2:
                log(f"{ns}/{name}: Ray head not healthy after 120 s twice ({raylet}, {gcs}); left Pending")
                return
            log(f"{ns}/{name}: Ray head not healthy after 120 s ({raylet}, {gcs}); starting it again "
                f"on new ports")
        if ns in self.netns_pods:
            relay = self.start_relay(ns, name, ip)
            with self.lock:
                if uid not in self.heads:
                    stop_group(relay, name + " relay")
                    return
                self.heads[uid]["relay"] = relay
        with self.lock:
            if uid not in self.heads:
                return
            self.heads[uid]["published"] = True
            self.head_ips[f"{cluster}.{ns}"] = ip
        self.write_hosts()
        log(f"{ns}/{name}: Ray head healthy on {ip} after {time.monotonic() - t0:.1f} s; "
            f"{self.heads[uid]['host']} -> {ip}")
        self.annotate(pod, ready="true", pod_ip=ip)

    def run_submitter(self, pod):
        md = pod["metadata"]
        ns, name, uid = md["namespace"], md["name"], md["uid"]
        c = pod["spec"]["containers"][0]
        prefix, env = self.pod_env(ns)
        cenv = self.container_env(c)
        words = list(c.get("command") or []) + list(c.get("args") or [])
        addr = cenv.get("RAY_DASHBOARD_ADDRESS", "")
        host = addr.split(":")[0]
        # Resolve the head service's name the way the cluster's DNS would, from the heads we run.
        ip = None
        for key, hip in list(self.head_ips.items()):
            cl, cns = key.rsplit(".", 1)
            if cns == ns and host.startswith(f"{cl}-head-svc"):
                ip = hip
        if host and ip:
            words = [w.replace(host, ip) for w in words]
            cenv = {k: v.replace(host, ip) for k, v in cenv.items()}
        elif host:
            log(f"{ns}/{name}: no running head for {host}; the submitter runs with it unresolved")
        env.update(cenv)
        self.annotate(pod, ready="true", pod_ip="127.0.0.1")
        logf = open(os.path.join(self.logdir, f"{ns}.{name}.log"), "ab")
        log(f"{ns}/{name}: running the submitter: {' '.join([*prefix, *words])[:400]}")
        proc = subprocess.Popen([*prefix, *words], stdout=logf, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True, cwd=self.logdir)
        with self.lock:
            self.submitters[uid] = {"proc": proc}
            self.groups[proc.pid] = proc
        rc = proc.wait()
        with self.lock:
            still = self.submitters.pop(uid, None) is not None
            self.groups.pop(proc.pid, None)
        if not still:
            return
        log(f"{ns}/{name}: submitter exited {rc}")
        self.annotate(pod, outcome="succeeded" if rc == 0 else "failed", exit_code=str(rc))

    # --- the watch loop --------------------------------------------------------------------------
    def run(self):
        while not self.stopping.is_set():
            try:
                lst = self.kube.get("/api/v1/pods")
                for p in lst["items"]:
                    self.on_pod("ADDED", p)
                rv = lst["metadata"]["resourceVersion"]
                for kind, obj in self.kube.watch("/api/v1/pods", rv, timeout_seconds=30):
                    if self.stopping.is_set():
                        break
                    if kind == "ERROR":
                        break
                    self.on_pod(kind, obj)
                # Pods deleted while no watch ran: forget their processes too.
                live = {p["metadata"]["uid"] for p in self.kube.get("/api/v1/pods")["items"]}
                for uid in list(self.heads) + list(self.submitters):
                    if uid not in live:
                        self.stop_pod(uid, uid)
            except Exception as e:  # noqa: BLE001 - the apiserver restarts; keep watching
                if self.stopping.is_set():
                    break
                log(f"watch: {e}; again in 1 s")
                time.sleep(1)

    def shutdown(self):
        self.stopping.set()
        # No lock: this runs in the signal handler, possibly while a cleanup holds it.
        procs = list(self.groups.values())
        tmps = list(self.tmps)
        for p in procs:
            log(f"shutdown: stopping process group {p.pid}")
            stop_group(p, str(p.pid))
        for t in tmps:
            self.remove_tmp(t)

    def remove_tmp(self, tmp):
        """Removes a head's Ray temp dir, keeping its session logs (raylet, GCS, dashboard, job
        supervisor) as LOG_DIR/ray-<temp dir name>: a job stuck PENDING is read from them."""
        logs = os.path.join(tmp, "session_latest", "logs")
        try:
            if os.path.isdir(logs):
                shutil.copytree(logs, os.path.join(self.logdir, "ray-" + os.path.basename(tmp)),
                                dirs_exist_ok=True, ignore_dangling_symlinks=True)
        except OSError as e:
            log(f"keeping the Ray logs of {tmp}: {e}")
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--ray-venv", required=True)
    ap.add_argument("--hosts-file", required=True)
    ap.add_argument("--log-dir", required=True)
    ap.add_argument("--max-heads", type=int, default=2)
    ap.add_argument("--cluster-domain", default="cluster.local")
    ap.add_argument("--netns-pods", help="JSON: pods of these namespaces run in a network namespace")
    args = ap.parse_args()
    r = Runner(args)

    def stop(*_):
        r.shutdown()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log(f"runner: watching pods; at most {args.max_heads} Ray heads")
    r.run()


if __name__ == "__main__":
    main()
