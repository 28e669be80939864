"""A `rayjob-guard serve` for a test: certificates minted at test time, port 0, stopped by PID.

mint_certs(repo, out, sans=("IP:127.0.0.1",), ca_dir=None) -> out: certs/mint-certs.sh's
  ca.crt, tls.crt and tls.key in out (signed by the CA in ca_dir when given).
Serve(command, certs, work, extra=(), ...) starts command (`[binary, "serve"]`, or a program
  taking its flags) on 127.0.0.1 with --listen/--probe-listen port 0 and reads the ports it
  wrote to --port-file: .https, .probe; .log_path holds its stderr (its stdout is dropped);
  .stop() ends it by PID and returns its exit status.
cluster_quota_flags(binary, work, ca) -> the serve flags of the built-in policy with
  quota.source cluster and a cluster nobody answers at (a closed loopback port): the watch keeps
  retrying, verdicts fall back to the policy's entries, and the cluster-quota metrics are served.
"""
import json
import os
import signal
import subprocess
import time

from .checks import fail
from .net import free_port
from .procs import log_tail, run, start, stop, wait_for_file


def mint_certs(repo, out, sans=("IP:127.0.0.1",), ca_dir=None):
    argv = [os.path.join(repo, "certs", "mint-certs.sh"), "--out", out]
    for san in sans:
        argv += ["--san", san]
    if ca_dir:
        argv += ["--ca-dir", ca_dir]
    run(argv, check=True)
    return out


def cluster_quota_flags(binary, work, ca):
    code, policy, err = run([binary, "policy", "default"])
    if code != 0 or "\n  source: policy\n" not in policy:
        fail(f"policy default: exit {code}, no 'quota.source: policy' line: {err}")
    policy_file = os.path.join(work, "policy-cluster-quota.yaml")
    with open(policy_file, "w") as f:
        f.write(policy.replace("\n  source: policy\n", "\n  source: cluster\n"))
    token_file = os.path.join(work, "cluster-token")
    with open(token_file, "w") as f:
        f.write("unused\n")
    closed_port = free_port()
    return ["--policy", policy_file, "--server", f"https://127.0.0.1:{closed_port}",
            "--token-file", token_file, "--ca", ca]


class Serve:
    def __init__(self, command, certs, work, extra=(), cert=None, key=None,
                 shutdown_delay="0.1", start_timeout=10):
        stamp = time.monotonic_ns()
        self.port_file = os.path.join(work, f"ports-{stamp}.json")
        self.log_path = os.path.join(work, f"server-{stamp}.log")
        self.ca = os.path.join(certs, "ca.crt")
        self.proc = start([*command,
                           "--tls-cert", cert or os.path.join(certs, "tls.crt"),
                           "--tls-key", key or os.path.join(certs, "tls.key"),
                           "--listen", "127.0.0.1:0", "--probe-listen", "127.0.0.1:0",
                           "--port-file", self.port_file, "--shutdown-delay", shutdown_delay,
                           "--shutdown-timeout", "5", *extra],
                          self.log_path, stdout=subprocess.DEVNULL)
        try:
            wait_for_file(self.port_file, start_timeout, self.proc, self.log_path)
        except SystemExit:
            self.stop()
            raise
        with open(self.port_file) as f:
            ports = json.load(f)
        self.https, self.probe = ports["https"], ports["probe"]

    def log_text(self):
        return log_tail(self.log_path, limit=None)

    def stop(self, sig=signal.SIGTERM, timeout=10):
        return stop(self.proc, sig, timeout)
