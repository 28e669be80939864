#!/usr/bin/env python3
"""Unit test of test/harness: each helper's success path, and each failure path (run in a child
interpreter, since a failure exits) ending with exit 1 and its `FAIL: ` line on stderr.

usage: harness_test.py WORK_DIR
"""
import http.server
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import (Cluster, check, check_equal, checks_passed, command_line,  # noqa: E402
                     free_port, free_ports, http_ok, https_server, mint_certs, pinned,
                     pinned_versions, read_env, run, start, stop, wait_for_file, wait_until)


def child(statement):
    """(exit code, stderr) of a child interpreter that imports harness and runs statement."""
    code = f"import sys\nsys.path.insert(0, {os.path.join(HERE, '..')!r})\nfrom harness import *\n"
    p = subprocess.run([sys.executable, "-c", code + statement], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stderr


def expect_failure(statement, line):
    got = child(statement)
    check_equal(got, (1, f"FAIL: {line}\n"), statement)


def fresh(path):
    """path, with no file there."""
    if os.path.exists(path):
        os.remove(path)
    return path


def check_net():
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))  # free: it binds
    # Many ports in one call are all different, and all free at every address.
    ports = free_ports(64, host="")
    check_equal(len(set(ports)), 64, "distinct ports among 64 from one free_ports() call")
    socks = [socket.socket() for _ in ports]
    try:
        for s, p in zip(socks, ports):
            s.bind(("", p))
    finally:
        for s in socks:
            s.close()
    check(not http_ok(f"http://127.0.0.1:{port}/"), "http_ok() is False where nothing listens")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        check(http_ok(base + "/"), "http_ok() is True for a 200")
        check(not http_ok(base + "/no-such-file"), "http_ok() is False for a 404")
    finally:
        server.shutdown()


def check_https(work):
    certs = mint_certs(os.path.dirname(os.path.dirname(HERE)), os.path.join(work, "certs"))
    server = https_server(http.server.SimpleHTTPRequestHandler, os.path.join(certs, "tls.crt"),
                          os.path.join(certs, "tls.key"), alpn=["http/1.1"])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        ctx = ssl.create_default_context(cafile=os.path.join(certs, "ca.crt"))
        url = f"https://127.0.0.1:{server.server_address[1]}/"
        with urllib.request.urlopen(url, context=ctx, timeout=10) as r:
            check_equal(r.status, 200, "https_server() answers over TLS with the minted pair")
    finally:
        server.shutdown()


def check_cluster(work):
    d = os.path.join(work, "cluster")
    os.makedirs(d, exist_ok=True)
    kubectl = os.path.join(d, "kubectl")
    with open(kubectl, "w") as f:
        f.write("#!/bin/sh\necho \"$@\"\n"
                "echo 'WARNING: version difference between client (1.40) and server (1.37)' >&2\n"
                "echo said >&2\n[ \"$3\" != fail ]\n")
    os.chmod(kubectl, 0o755)
    with open(os.path.join(d, "env"), "w") as f:
        f.write(f"KUBECTL={kubectl}\nCRD_FILES=a.yaml:b.yaml\nEMPTY=\nnot a pair\n")
    check_equal(read_env(os.path.join(d, "env")),
                {"KUBECTL": kubectl, "CRD_FILES": "a.yaml:b.yaml", "EMPTY": ""}, "read_env()")
    check_equal(read_env(os.path.join(d, "absent")), {}, "read_env() of no file")
    c = Cluster(d)
    check_equal(c.kubectl("get", who="api"),
                (0, f"--kubeconfig {d}/api.kubeconfig get\n", "said\n"),
                "Cluster.kubectl() runs dir's KUBECTL as the identity, without the skew warning")
    check_equal(c.kubectl("get").stdout, f"--kubeconfig {d}/admin.kubeconfig get\n",
                "Cluster.kubectl() is admin by default and returns a Completed")
    check_equal(c.kubectl("fail")[0], 1, "Cluster.kubectl() returns a failure's exit status")
    expect_failure(f'Cluster({d!r}).kubectl("fail", check=True)',
                   "kubectl fail as admin: exit 1: said")
    empty = os.path.join(work, "no-cluster")
    os.makedirs(empty, exist_ok=True)
    check(Cluster(empty).down(), "Cluster.down() where nothing runs succeeds")
    code, err = child(f'Cluster({empty!r}).script("cluster.sh", "namespace", "ns")')
    check(code == 1 and err.endswith(f"FAIL: {os.path.dirname(HERE)}/e2e/cluster.sh namespace "
                                     f"{empty} ns: exit 1 (its log is above)\n"),
          f"Cluster.script() fails the test naming the script: exit {code}: {err}")


def check_pins(work):
    env = os.path.join(work, "versions.env")
    with open(env, "w") as f:
        f.write("# A=commented\n\nKUBERNETES_VERSION=v1.37.2\nLIST=a,b\nEMPTY=\n")
    check_equal(pinned_versions(env), {"KUBERNETES_VERSION": "v1.37.2", "LIST": "a,b", "EMPTY": ""},
                "pinned_versions() skips comments and blank lines")
    check_equal(pinned("LIST", env), "a,b", "pinned() returns one pin")
    expect_failure(f"pinned('A', {env!r})", "A is not pinned in test/peers/versions.env")
    check(pinned("KUBERNETES_VERSION").startswith("v1."),
          "pinned() reads test/peers/versions.env by default")


def main():
    work = os.path.abspath(sys.argv[1])
    os.makedirs(work, exist_ok=True)
    check_net()
    check_https(work)
    check_cluster(work)
    check_pins(work)

    check_equal(run(["sh", "-c", "echo out; echo err >&2; exit 3"]), (3, "out\n", "err\n"),
                "run() returns (code, stdout, stderr) as str")
    check_equal(run(["cat"], stdin=b"\x00\xff", text=False), (0, b"\x00\xff", b""),
                "run(text=False) returns bytes; stdin may be bytes")
    check_equal(run(["cat"], stdin="text"), (0, "text", ""), "stdin may be str")
    expect_failure('run(["sh", "-c", "echo no >&2; exit 4"], check=True)',
                   "sh -c echo no >&2; exit 4: exit 4: no")
    expect_failure('run(["sleep", "5"], timeout=0.2)', "sleep 5: still running after 0.2 s")
    check_equal(command_line(["cat", 1, "b"]), "cat 1 b", "command_line() of a short argv")
    check_equal(command_line([f"f{i}" for i in range(20)]),
                "f0 f1 f2 f3 ... (12 more) ... f16 f17 f18 f19", "command_line() cuts a long argv")
    done = run(["sh", "-c", "echo out; exit 2"])
    check_equal((done.returncode, done.stdout, done.stderr), (2, "out\n", ""),
                "run() returns a Completed: .returncode, .stdout, .stderr")
    expect_failure('run(["false", *map(str, range(100))], check=True)',
                   "false 0 1 2 ... (93 more) ... 96 97 98 99: exit 1: ")

    expect_failure('check(1 == 2, "one is two")', "one is two")
    check_equal(child('try:\n    fail("caught")\nexcept Failed as e:\n    print(e.message, e.code, '
                      'file=sys.stderr)'), (0, "FAIL: caught\ncaught 1\n"),
                "fail() raises Failed (exit status 1) carrying its message")
    expect_failure('check_equal([1], [2], "the list")', "the list: got [1], want [2]")
    expect_failure('need("no-such-tool-rjg", "the test asks for it")',
                   "no-such-tool-rjg not found on PATH: the test asks for it")

    log = os.path.join(work, "sleeper.log")
    flag = fresh(os.path.join(work, "flag"))
    proc = start(["sh", "-c", f"echo started; touch {flag}; exec sleep 60"], log)
    wait_for_file(flag, 10, proc)
    began = time.monotonic()
    check_equal(stop(proc), -15, "stop() ends a process by SIGTERM to its PID")
    check(time.monotonic() - began < 5, "stop() does not wait out a process that obeys SIGTERM")
    check(wait_until(lambda: "started" in open(log).read(), 5, "the log"),
          "start() writes the process's stdout to its log")
    trapped = fresh(os.path.join(work, "trapped"))
    stubborn = start(["sh", "-c", f"trap '' TERM; touch {trapped}; exec sleep 60"], log)
    wait_for_file(trapped, 10, stubborn)
    check_equal(stop(stubborn, timeout=0.5), -9, "stop() kills a process that ignores SIGTERM")

    expect_failure('wait_until(lambda: False, 0.2, "never")', "never: not within 0.2 s")
    expect_failure('wait_until(lambda: False, 0.2, "never", poll=0.05, detail=lambda: "left: x")',
                   "never: not within 0.2 s; left: x")
    absent = os.path.join(work, "absent")
    expect_failure(f'wait_for_file({absent!r}, 5, start(["true"], {log!r}))',
                   f"{absent} to exist: the process exited 0 first")
    print(f"PASS: {checks_passed()} checks")


if __name__ == "__main__":
    main()
