"""Network namespaces for the identity tests: the pod's network, with the EKS Pod Identity agent's
link-local address on its loopback.

A test namespace has only `lo` (up) carrying 127.0.0.1 and 169.254.170.23/32, so nothing inside
it can reach any other address. Processes started with `Netns.argv()` run inside it. A server in
the host namespace (the agent stand-in, the S3 relay) serves the namespace through a listening
socket it created inside it with `listen_in()`: setns(2) moves only the calling thread, and a
socket stays in the namespace it was created in.

Standard library only; needs root (CAP_SYS_ADMIN) for `ip netns` and setns.
"""
import ctypes
import os
import signal
import socket
import subprocess
import time

AGENT_HOST = "169.254.170.23"  # the EKS Pod Identity agent's address
CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def _ip(*args, check=True):
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and r.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def listen_in(netns_name, host, port, backlog=128):
    """A listening TCP socket bound to host:port inside the namespace netns_name, made by this
    thread, which is back in its own namespace when this returns."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{netns_name}", os.O_RDONLY)
    try:
        _setns(target)
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
            s.listen(backlog)
        finally:
            _setns(own)
    finally:
        os.close(own)
        os.close(target)
    return s


def connect_in(netns_name, address, timeout=10):
    """A TCP connection to address made from inside the namespace netns_name (this thread
    enters it only to create the socket and connect)."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{netns_name}", os.O_RDONLY)
    try:
        _setns(target)
        try:
            return socket.create_connection(address, timeout=timeout)
        finally:
            _setns(own)
    finally:
        os.close(own)
        os.close(target)


def stop_pid(pid, name, timeout=30):
    """TERM, wait up to `timeout` s, then KILL the process `pid` (a child of ours or a process in
    one of our namespaces). Returns how it ended ('exited', 'terminated', 'killed')."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return "exited"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done == pid:
                return "terminated"
        except ChildProcessError:  # not our child: poll for it to go
            if not os.path.exists(f"/proc/{pid}"):
                return "terminated"
        time.sleep(0.1)
    print(f"[netns] {name} (pid {pid}) still runs {timeout} s after SIGTERM: SIGKILL", flush=True)
    try:
        os.kill(pid, signal.SIGKILL)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    except ProcessLookupError:
        pass
    return "killed"


def sweep_stale(prefix="rjg-id"):
    """Removes namespaces PREFIX-PID left by runs of ours that were killed (PID no longer alive),
    with the processes still in them (a Ray head of that run). Returns the names removed."""
    removed = []
    for name in sorted(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else []:
        head, _, pid = name.rpartition("-")
        if head != prefix or not pid.isdigit() or os.path.exists(f"/proc/{pid}"):
            continue
        Netns._delete(name)
        removed.append(name)
    return removed


class Netns:
    """A network namespace this test made, removed by delete() with every process still in it."""

    def __init__(self, prefix="rjg-id"):
        self.name = f"{prefix}-{os.getpid()}"
        if os.path.exists(f"/run/netns/{self.name}"):
            # Left by an earlier run whose PID we now reuse: that run is gone, so is its use.
            self._delete(self.name)
        _ip("netns", "add", self.name)
        try:
            _ip("-n", self.name, "link", "set", "lo", "up")
            _ip("-n", self.name, "addr", "add", f"{AGENT_HOST}/32", "dev", "lo")
        except Exception:
            self._delete(self.name)
            raise

    def argv(self, *cmd):
        """The argv that runs cmd inside the namespace."""
        return ["ip", "netns", "exec", self.name, *cmd]

    def pids(self):
        """PIDs of the processes whose network namespace is this one."""
        r = _ip("netns", "pids", self.name, check=False)
        return [int(p) for p in r.stdout.split() if p.isdigit()]

    def stop_processes(self, timeout=30):
        """TERM (then, after `timeout` s, KILL) every process still in the namespace: only
        processes this test started can be there. Returns the PIDs found."""
        found = self.pids()
        for pid in found:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.2)
        for pid in self.pids():
            print(f"[netns] pid {pid} still in {self.name} {timeout} s after SIGTERM: SIGKILL", flush=True)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return found

    @staticmethod
    def _delete(name):
        r = _ip("netns", "pids", name, check=False)
        for p in r.stdout.split():
            try:
                os.kill(int(p), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        _ip("netns", "del", name, check=False)

    def delete(self):
        if os.path.exists(f"/run/netns/{self.name}"):
            self.stop_processes(timeout=10)
            _ip("netns", "del", self.name, check=False)
