#!/usr/bin/env python3
"""End-to-end tests of `rayjob-guard serve` over real TLS, one group per ctest test.

usage: server_e2e.py --binary PATH --source-dir REPO GROUP

Every server binds 127.0.0.1 port 0 and reports its ports through --port-file; certificates are
minted at test time with certs/mint-certs.sh into a temporary directory; every process started is
stopped by PID, also on failure. Needs python3, openssl, curl, promtool; wrk where a group uses
them. A missing tool fails the group (test/harness need()); there is no skip: a skip would hide a
test that never ran.
"""
import argparse
import copy
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import Serve, mint_certs, need  # noqa: E402

ARGS = None
FAILURES = []
INSTALL = "scripts/install-deps.sh installs it"


def check(cond, what):
    if cond:
        print(f"  ok   {what}")
    else:
        print(f"  FAIL {what}")
        FAILURES.append(what)
    return cond


def mint(out, ca_dir=None):
    return mint_certs(ARGS.source_dir, out, ("IP:127.0.0.1", "DNS:localhost"), ca_dir)


def fixture(name):
    with open(os.path.join(ARGS.source_dir, "test", "server", "fixtures", name), "rb") as f:
        return json.load(f)


def compact(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def deny_review():
    """The allow fixture with spec.backoffLimit above the default policy's maximum (2)."""
    r = fixture("review-allow.json")
    r["request"]["uid"] = "deny-0000-0000-0000-000000000001"
    r["request"]["object"]["spec"]["backoffLimit"] = 5
    return r


class Server(Serve):
    """A running `rayjob-guard serve` (test/harness Serve) and the requests the groups make."""

    def __init__(self, work, certs, extra=(), cert=None, key=None, command=None):
        self.started = time.monotonic()
        # `command` replaces `rayjob-guard serve` (the transport floor takes the same flags).
        super().__init__(command or [ARGS.binary, "serve"], certs, work, extra, cert, key)
        self.reviews = 0  # POSTs answered 200: reviews the server made, for exact counts
        self.reviews_lock = threading.Lock()

    def ssl_context(self, alpn=None):
        ctx = ssl.create_default_context(cafile=self.ca)
        if alpn:
            ctx.set_alpn_protocols(alpn)
        return ctx

    def conn(self, timeout=10):
        return http.client.HTTPSConnection("127.0.0.1", self.https, timeout=timeout,
                                           context=self.ssl_context())

    def post(self, body, path="/validate", ctype="application/json", conn=None, headers=None):
        c = conn or self.conn()
        h = {"Content-Type": ctype} if ctype else {}
        h.update(headers or {})
        c.request("POST", path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        if conn is None:
            c.close()
        if r.status == 200:
            with self.reviews_lock:
                self.reviews += 1
        return r.status, dict(r.getheaders()), data

    def probe_get(self, path):
        c = http.client.HTTPConnection("127.0.0.1", self.probe, timeout=5)
        try:
            c.request("GET", path)
            r = c.getresponse()
            return r.status, r.read().decode()
        finally:
            c.close()

    def metric(self, name_with_labels):
        _, text = self.probe_get("/metrics")
        for line in text.splitlines():
            if line.startswith(name_with_labels + " "):
                return float(line.split()[-1])
        return 0.0

    def fingerprint(self):
        """SHA-256 of the certificate a new connection is served."""
        ctx = ssl.create_default_context(cafile=self.ca)
        with socket.create_connection(("127.0.0.1", self.https), timeout=5) as s:
            with ctx.wrap_socket(s, server_hostname="127.0.0.1") as t:
                return hashlib.sha256(t.getpeercert(binary_form=True)).hexdigest()


def cli_review(body_bytes, work, policy=None):
    path = os.path.join(work, "cli-review.json")
    with open(path, "wb") as f:
        f.write(body_bytes)
    cmd = [ARGS.binary, "review"] + (["--policy", policy] if policy else []) + [path]
    out = subprocess.run(cmd, capture_output=True, check=True).stdout
    # The CLI ends its output with a newline for terminals; the HTTP body is the same JSON text.
    return out[:-1] if out.endswith(b"\n") else out


def cert_fingerprint(pem_path):
    with open(pem_path) as f:
        return hashlib.sha256(ssl.PEM_cert_to_DER_cert(f.read())).hexdigest()


def wrk(server, body_path, seconds, conns=4):
    return subprocess.Popen(
        ["wrk", "-t1", f"-c{conns}", f"-d{seconds}s", "--latency", "-s",
         os.path.join(ARGS.source_dir, "bench", "post.lua"),
         f"https://127.0.0.1:{server.https}/validate"],
        env=dict(os.environ, BODY=body_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def wrk_result(proc):
    out = proc.communicate(timeout=60)[0].decode()
    m = re.search(r"(\d+) requests in", out)
    requests = int(m.group(1)) if m else 0
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = tuple(int(x) for x in sock.groups()) if sock else (0, 0, 0, 0)
    return requests, int(non2xx.group(1)) if non2xx else 0, errors, out


# ---------------------------------------------------------------------------------------------


def group_basics(work, certs):
    s = Server(work, certs, ["--threads", "2", "--header-timeout", "1"])
    try:
        t0 = s.started
        while s.probe_get("/readyz")[0] != 200:
            time.sleep(0.002)
        ready_ms = (time.monotonic() - t0) * 1000
        print(f"  info time to ready (process start -> /readyz 200): {ready_ms:.1f} ms")
        check(ready_ms < 1000, "ready within 1 s of start")
        check(s.probe_get("/healthz")[0] == 200, "/healthz 200")

        allow = compact(fixture("review-allow.json"))
        status, headers, body = s.post(allow)
        check(status == 200, "allow review: 200")
        check(headers.get("Content-Type") == "application/json", "allow review: application/json")
        check(json.loads(body)["response"]["allowed"] is True, "allow review: allowed")
        check(body == cli_review(allow, work), "allow review: byte-identical to `rayjob-guard review`")

        deny = compact(deny_review())
        status, _, body = s.post(deny)
        check(status == 200 and json.loads(body)["response"]["allowed"] is False,
              "deny review: 200, allowed false")
        check(body == cli_review(deny, work), "deny review: byte-identical to `rayjob-guard review`")

        for path in ("/validate?timeout=5s", "/validate-ray-io-v1-rayjob",
                     "/validate-ray-io-v1-rayjob?timeout=10s"):
            status, _, body2 = s.post(deny, path=path)
            check(status == 200 and body2 == body, f"POST {path}: same answer")
        status, _, _ = s.post(allow, ctype="application/json; charset=utf-8")
        check(status == 200, "Content-Type with charset accepted")

        # Keep-alive: one connection, many requests.
        c = s.conn()
        c.connect()
        first = c.sock
        ok = all(s.post(allow, conn=c)[0] == 200 and c.sock is first for _ in range(50))
        c.close()
        check(ok, "keep-alive: 50 requests on one TLS connection")

        # Concurrent clients.
        results = []

        def client():
            cc = s.conn()
            for _ in range(20):
                results.append(s.post(allow, conn=cc)[0])
            cc.close()

        threads = [threading.Thread(target=client) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        check(len(results) == 320 and all(r == 200 for r in results),
              f"16 concurrent clients x 20 requests: {results.count(200)}/320 answered 200")

        # A client sending its header slowly is cut at the header timeout (1 s here) while
        # others are answered meanwhile.
        raw = s.ssl_context().wrap_socket(socket.create_connection(("127.0.0.1", s.https)),
                                          server_hostname="127.0.0.1")
        raw.settimeout(5)
        start = time.monotonic()
        closed_at = None
        others_ok = True
        for ch in b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n":
            try:
                raw.sendall(bytes([ch]))
            except OSError:
                closed_at = time.monotonic() - start
                break
            others_ok = others_ok and s.post(allow)[0] == 200
            time.sleep(0.05)
            if time.monotonic() - start > 4:
                break
        if closed_at is None:
            try:
                data = raw.recv(100)
                closed_at = time.monotonic() - start if data in (b"",) else None
            except (OSError, ssl.SSLError):
                closed_at = time.monotonic() - start
        raw.close()
        check(closed_at is not None and 0.8 <= closed_at <= 3.0,
              f"slow header client cut at the header timeout (after {closed_at} s)")
        check(others_ok, "other clients answered while the slow client dribbled")

        # Metrics pass promtool, and count what happened.
        status, text = s.probe_get("/metrics")
        check(status == 200, "/metrics 200")
        promtool = need("promtool", "/metrics is linted with `promtool check metrics`; " + INSTALL)
        lint = subprocess.run([promtool, "check", "metrics"], input=text.encode(),
                              capture_output=True)
        check(lint.returncode == 0, "promtool check metrics accepts /metrics "
              + lint.stdout.decode() + lint.stderr.decode())
        check(s.metric('rayjob_guard_admission_requests_total{allowed="false",operation="CREATE"}')
              >= 4, "denials counted by operation/allowed")
        check(s.metric('rayjob_guard_admission_violations_total{action="deny",rule="backoff-limit"}')
              >= 4, "violations counted by rule/action")
        reviews = s.reviews
        check(s.metric("rayjob_guard_admission_duration_seconds_count") == reviews,
              f"latency observed once per review ({reviews})")

        # Decision lines are batched and reach stderr within 100 ms (server/log_sink.hpp): wait
        # up to 1 s for them, and fail if they never come.
        deadline = time.monotonic() + 1.0
        while True:
            log = s.log_text()
            decisions = [json.loads(l) for l in log.splitlines() if '"admission decision"' in l]
            if len(decisions) >= reviews or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        check(len(decisions) == reviews,
              f"one decision log line per review ({len(decisions)} for {reviews})")
        d = next((x for x in decisions if x["uid"].startswith("deny-")), {})
        check(d.get("allowed") is False and "backoff-limit" in d.get("denied", "")
              and d.get("namespace") == "tenant-a" and "latency_ms" in d
              and d.get("http_status") == 200 and "username" in d and "dry_run" in d,
              "decision log line carries uid, namespace, verdict, rules, latency, status")
        check("sample_code.py" not in log, "the request body is never logged")
    finally:
        rc = s.stop()
    check(rc == 0, f"exit 0 after SIGTERM (got {rc})")


def group_errors(work, certs):
    s = Server(work, certs, ["--threads", "2", "--max-body-bytes", "1048576"])
    try:
        allow = compact(fixture("review-allow.json"))
        cases = [
            ("not JSON", dict(body=b"{not json"), 400),
            ("not an AdmissionReview", dict(body=b'{"kind":"Pod"}'), 400),
            ("v1beta1", dict(body=allow.replace(b"admission.k8s.io/v1", b"admission.k8s.io/v1beta1")),
             400),
            ("empty body", dict(body=b""), 400),
            ("unknown path", dict(body=allow, path="/mutate"), 404),
            ("root path", dict(body=allow, path="/"), 404),
            ("text/plain", dict(body=allow, ctype="text/plain"), 415),
            ("no Content-Type", dict(body=allow, ctype=None), 415),
        ]
        for name, kw, want in cases:
            status, headers, body = s.post(**kw)
            check(status == want and headers.get("Content-Type", "").startswith("text/plain")
                  and 0 < len(body) < 300, f"{name}: {want} with a short text message (got {status} {body[:80]!r})")
        c = s.conn()
        c.request("GET", "/validate")
        r = c.getresponse()
        r.read()
        check(r.status == 405 and r.getheader("Allow") == "POST", "GET /validate: 405 with Allow: POST")
        c.close()

        # Oversized: 413 as soon as the header is read, without the body ever being sent.
        raw = s.ssl_context().wrap_socket(socket.create_connection(("127.0.0.1", s.https)),
                                          server_hostname="127.0.0.1")
        raw.settimeout(5)
        start = time.monotonic()
        raw.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100000000\r\n\r\n")
        data = raw.recv(4096)
        took = time.monotonic() - start
        raw.close()
        check(data.startswith(b"HTTP/1.1 413"), f"Content-Length 100 MB: 413 before any body byte ({took*1000:.1f} ms)")
        big = os.path.join(work, "big.json")
        with open(big, "wb") as f:
            f.write(b" " * (2 * 1048576))
        start = time.monotonic()
        out = subprocess.run(["curl", "-sS", "--cacert", s.ca, "-o", "/dev/null", "-w", "%{http_code}",
                              "-H", "Content-Type: application/json", "--data-binary", "@" + big,
                              f"https://127.0.0.1:{s.https}/validate"], capture_output=True)
        took = time.monotonic() - start
        check(out.stdout == b"413" and took < 2, f"curl 2 MiB body over a 1 MiB cap: 413 in {took:.2f} s")
        # Chunked body over the cap: the parser's body limit answers 413.
        raw = s.ssl_context().wrap_socket(socket.create_connection(("127.0.0.1", s.https)),
                                          server_hostname="127.0.0.1")
        raw.settimeout(5)
        raw.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b" " * 65536
        try:
            for _ in range(20):
                raw.sendall(b"10000\r\n" + chunk + b"\r\n")
        except OSError:
            pass
        try:
            data = raw.recv(4096)
        except OSError:
            data = b""
        raw.close()
        check(data.startswith(b"HTTP/1.1 413"), "chunked body over the cap: 413")
        check(s.post(allow)[0] == 200, "server healthy after the oversized requests")
        check(s.metric('rayjob_guard_http_requests_total{code="413"}') >= 3, "413s counted by code")
    finally:
        rc = s.stop()
    check(rc == 0, "exit 0")

    # Connection cap: beyond it a new connection is closed at once and counted.
    s = Server(work, certs, ["--threads", "1", "--max-connections", "2"])
    try:
        held = [s.conn() for _ in range(2)]
        for c in held:
            c.connect()
        time.sleep(0.1)
        refused = False
        try:
            s.fingerprint()
        except (OSError, ssl.SSLError):
            refused = True
        time.sleep(0.05)
        check(refused and s.metric("rayjob_guard_connections_rejected_total") == 1,
              "connection over --max-connections closed at once and counted")
        held[0].close()
        time.sleep(0.1)
        check(s.post(compact(fixture("review-allow.json")), conn=held[1])[0] == 200,
              "connections under the cap keep working")
        held[1].close()
        time.sleep(0.1)
        check(s.post(compact(fixture("review-allow.json")))[0] == 200, "a new connection works again")
    finally:
        check(s.stop() == 0, "exit 0")

    # Startup errors: one clear line on stderr, exit 1 (setup) or 2 (usage).
    other = mint(os.path.join(work, "other"))
    bad_policy = os.path.join(work, "bad-policy.yaml")
    with open(bad_policy, "w") as f:
        f.write("apiVersion: rayjob-guard.io/v1\nkind: Policy\nlifecycle:\n  nope: 1\n")
    garbage = os.path.join(work, "garbage.pem")
    with open(garbage, "w") as f:
        f.write("not a pem\n")
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    busy_port = busy.getsockname()[1]
    crt, key = os.path.join(certs, "tls.crt"), os.path.join(certs, "tls.key")
    base = ["--listen", "127.0.0.1:0", "--probe-listen", "127.0.0.1:0"]
    cases = [
        ("missing certificate file", ["--tls-cert", os.path.join(work, "nope.crt"), "--tls-key", key], 1),
        ("garbage key", ["--tls-cert", crt, "--tls-key", garbage], 1),
        ("garbage certificate", ["--tls-cert", garbage, "--tls-key", key], 1),
        ("key not matching", ["--tls-cert", crt, "--tls-key", os.path.join(other, "tls.key")], 1),
        ("invalid policy", ["--tls-cert", crt, "--tls-key", key, "--policy", bad_policy], 1),
        ("missing policy", ["--tls-cert", crt, "--tls-key", key, "--policy", os.path.join(work, "no.yaml")], 1),
        ("port in use", ["--tls-cert", crt, "--tls-key", key, "--listen", f"127.0.0.1:{busy_port}"], 1),
        ("bad flag", ["--tls-cert", crt, "--tls-key", key, "--frobnicate"], 2),
        ("no certificate flag", ["--tls-key", key], 2),
    ]
    for name, flags, want in cases:
        p = subprocess.run([ARGS.binary, "serve", *base, *flags], capture_output=True, timeout=10)
        lines = [l for l in p.stderr.decode().splitlines() if l.strip()]
        check(p.returncode == want and len(lines) == 1 and lines[0].startswith("rayjob-guard serve: "),
              f"startup error, {name}: exit {want}, one line (got {p.returncode}: {lines})")
    busy.close()


def s_client(port, *flags):
    p = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", *flags],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
    out = p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")
    handshake_ok = re.search(r"Cipher is (?!\(NONE\))", out) is not None
    return handshake_ok, out


def group_tls(work, certs):
    s = Server(work, certs, ["--threads", "1"])
    try:
        def refused(name, *flags):
            before = s.metric("rayjob_guard_tls_handshake_failures_total")
            ok, out = s_client(s.https, *flags)
            time.sleep(0.05)
            after = s.metric("rayjob_guard_tls_handshake_failures_total")
            check(not ok and after == before + 1, f"{name}: refused by the server (failures {before}->{after})")

        # SECLEVEL=0 lets the client really offer TLS 1.1 / CBC, so the refusal is the server's.
        refused("TLS 1.1 client", "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0")
        refused("TLS 1.2 CBC-only client", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA")
        refused("TLS 1.2 RSA key exchange client", "-tls1_2", "-cipher", "AES128-GCM-SHA256")
        refused("h2-only ALPN client", "-alpn", "h2")
        ok, out = s_client(s.https, "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256")
        check(ok, "TLS 1.2 ECDHE-ECDSA-AES128-GCM accepted")
        ok, out = s_client(s.https, "-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305")
        check(ok, "TLS 1.2 ECDHE-ECDSA-CHACHA20-POLY1305 accepted")
        ok, out = s_client(s.https, "-tls1_3")
        check(ok and "TLSv1.3" in out, "TLS 1.3 accepted")
        ok, out = s_client(s.https, "-alpn", "h2,http/1.1")
        check(ok and "ALPN protocol: http/1.1" in out, "ALPN h2,http/1.1 -> http/1.1 selected")
        ok, out = s_client(s.https)
        check(ok and "No ALPN negotiated" in out, "no ALPN offered -> handshake ok, no ALPN")
        ok, out = s_client(s.https, "-alpn", "acme-tls/1")
        check(ok and "No ALPN negotiated" in out, "unknown ALPN only -> no ack, handshake ok")
        ok, out = s_client(s.https, "-tls1_2", "-comp")
        check("Compression: NONE" in out or not ok, "no TLS compression")
        # curl (ALPN h2 + http/1.1) speaks HTTP/1.1.
        allow = os.path.join(ARGS.source_dir, "test", "server", "fixtures", "review-allow.json")
        out = subprocess.run(["curl", "-sS", "--http2", "--cacert", s.ca, "-o", "/dev/null", "-w",
                              "%{http_version} %{http_code}", "-H", "Content-Type: application/json",
                              "--data-binary", "@" + allow, f"https://127.0.0.1:{s.https}/validate"],
                             capture_output=True).stdout.decode()
        check(out == "1.1 200", f"curl --http2 falls back to HTTP/1.1 and gets 200 ({out})")
    finally:
        check(s.stop() == 0, "exit 0")


def group_mtls(work, certs):
    client = os.path.join(work, "client")
    os.makedirs(client, exist_ok=True)
    ext = os.path.join(client, "ext.cnf")
    with open(ext, "w") as f:
        f.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n")
    ck, csr, cc = (os.path.join(client, n) for n in ("client.key", "client.csr", "client.crt"))
    subprocess.run(["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", ck, "-out", csr, "-subj", "/CN=kube-apiserver"], check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(certs, "ca.crt"), "-CAkey",
                    os.path.join(certs, "ca.key"), "-CAcreateserial", "-CAserial", os.path.join(client, "ca.srl"),
                    "-out", cc, "-days", "1", "-extfile", ext], check=True, capture_output=True)
    stranger = mint(os.path.join(work, "stranger"))  # a certificate from another CA
    s = Server(work, certs, ["--threads", "1", "--client-ca", os.path.join(certs, "ca.crt")])
    allow = os.path.join(ARGS.source_dir, "test", "server", "fixtures", "review-allow.json")

    def curl(*extra):
        return subprocess.run(["curl", "-sS", "--cacert", s.ca, "-o", "/dev/null", "-w", "%{http_code}",
                               "-H", "Content-Type: application/json", "--data-binary", "@" + allow, *extra,
                               f"https://127.0.0.1:{s.https}/validate"], capture_output=True)
    try:
        p = curl()
        check(p.returncode != 0 and p.stdout in (b"000", b""), f"mTLS: no client certificate refused (curl rc {p.returncode})")
        p = curl("--cert", os.path.join(stranger, "tls.crt"), "--key", os.path.join(stranger, "tls.key"))
        check(p.returncode != 0, "mTLS: certificate from another CA refused")
        p = curl("--cert", cc, "--key", ck)
        check(p.returncode == 0 and p.stdout == b"200", f"mTLS: certificate signed by --client-ca accepted ({p.stdout})")
        check(s.metric("rayjob_guard_tls_handshake_failures_total") >= 2, "refused client certificates counted")
    finally:
        check(s.stop() == 0, "exit 0")


def swap_data(base, target):
    """kubelet/cert-manager style: point base/..data at `target` with one atomic rename."""
    tmp = os.path.join(base, "..data_tmp")
    if os.path.lexists(tmp):
        os.unlink(tmp)
    os.symlink(target, tmp)
    os.rename(tmp, os.path.join(base, "..data"))


def group_rotation(work, certs):
    need("wrk", "rotation is checked under wrk load; " + INSTALL)
    base = os.path.join(work, "secret")
    os.makedirs(base)
    v1 = mint(os.path.join(base, "..v1"))
    v2 = mint(os.path.join(base, "..v2"), ca_dir=v1)
    other = mint(os.path.join(work, "unrelated"))
    v3 = os.path.join(base, "..v3")  # a bad pair: v2's certificate with an unrelated key
    os.makedirs(v3)
    shutil.copy(os.path.join(v2, "tls.crt"), v3)
    shutil.copy(os.path.join(other, "tls.key"), v3)
    os.symlink("..v1", os.path.join(base, "..data"))
    for n in ("tls.crt", "tls.key", "ca.crt"):
        os.symlink(os.path.join("..data", n), os.path.join(base, n))
    s = Server(work, base, ["--threads", "2", "--reload-interval", "0.2"],
               cert=os.path.join(base, "tls.crt"), key=os.path.join(base, "tls.key"))
    s.ca = os.path.join(v1, "ca.crt")
    body = os.path.join(ARGS.source_dir, "test", "server", "fixtures", "review-allow.json")
    allow = compact(fixture("review-allow.json"))
    try:
        check(s.fingerprint() == cert_fingerprint(os.path.join(v1, "tls.crt")), "serves v1 at start")
        load = wrk(s, body, 3)
        new_conn_failures = []
        stop = threading.Event()

        def churn():  # new connections (new handshakes) all through the rotation
            while not stop.is_set():
                try:
                    if s.post(allow)[0] != 200:
                        new_conn_failures.append("status")
                except Exception as e:  # noqa: BLE001 - any failure is the finding
                    new_conn_failures.append(repr(e))
                time.sleep(0.01)

        # A daemon: if a check fails (or the server dies) mid-group, the process must still exit.
        t = threading.Thread(target=churn, daemon=True)
        t.start()
        time.sleep(1.0)
        swap_data(base, "..v2")
        deadline = time.monotonic() + 3
        want = cert_fingerprint(os.path.join(v2, "tls.crt"))
        while s.fingerprint() != want and time.monotonic() < deadline:
            time.sleep(0.05)
        check(s.fingerprint() == want, "after the ..data swap new connections get v2")
        requests, non2xx, errors, out = wrk_result(load)
        stop.set()
        t.join()
        check(requests > 100 and non2xx == 0 and errors == (0, 0, 0, 0),
              f"wrk through the rotation: {requests} requests, {non2xx} non-2xx, socket errors {errors}")
        check(not new_conn_failures, f"new connections through the rotation: failures {new_conn_failures[:3]}")
        check(s.metric('rayjob_guard_certificate_reloads_total{result="success"}') == 1, "reload counted")

        swap_data(base, "..v3")
        deadline = time.monotonic() + 3
        while s.metric('rayjob_guard_certificate_reloads_total{result="failure"}') < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        check(s.metric('rayjob_guard_certificate_reloads_total{result="failure"}') == 1,
              "a key not matching its certificate is refused and counted")
        check(s.fingerprint() == want and s.post(allow)[0] == 200, "the previous (v2) pair keeps serving")
        check("certificate reload refused" in s.log_text(), "refusal logged")
    finally:
        check(s.stop() == 0, "exit 0")


def group_policy_reload(work, certs):
    policy = os.path.join(work, "policy.yaml")
    default = subprocess.run([ARGS.binary, "policy", "default"], capture_output=True, check=True).stdout.decode()
    with open(policy, "w") as f:
        f.write(default)

    def replace(text):
        tmp = policy + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, policy)

    s = Server(work, certs, ["--threads", "2", "--reload-interval", "0.2", "--policy", policy])
    allow = compact(fixture("review-allow.json"))
    try:
        check(json.loads(s.post(allow)[2])["response"]["allowed"] is True, "allowed under the default policy")
        stricter = re.sub(r"maxActiveDeadlineSeconds: *\d+", "maxActiveDeadlineSeconds: 1800", default)
        check(stricter != default, "policy edit applies")
        replace(stricter)
        deadline = time.monotonic() + 3
        verdict = True
        while time.monotonic() < deadline:
            verdict = json.loads(s.post(allow)[2])["response"]["allowed"]
            if verdict is False:
                break
            time.sleep(0.05)
        check(verdict is False, "a valid policy change alters the verdict (activeDeadlineSeconds 3600 > 1800)")
        check(s.post(allow)[2] == cli_review(allow, work, policy), "reloaded verdict byte-identical to the CLI")
        check(s.metric('rayjob_guard_policy_reloads_total{result="success"}') == 1, "reload counted")
        replace("apiVersion: rayjob-guard.io/v1\nkind: Policy\nlifecycle: [broken\n")
        deadline = time.monotonic() + 3
        while s.metric('rayjob_guard_policy_reloads_total{result="failure"}') < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        check(s.metric('rayjob_guard_policy_reloads_total{result="failure"}') == 1, "invalid policy refused and counted")
        check(json.loads(s.post(allow)[2])["response"]["allowed"] is False, "last good policy keeps serving")
        check("policy reload refused" in s.log_text(), "refusal logged")
    finally:
        check(s.stop() == 0, "exit 0")


def group_shutdown(work, certs):
    need("wrk", "shutdown is checked under wrk load; " + INSTALL)
    s = Server(work, certs, ["--threads", "2", "--shutdown-delay", "1", "--shutdown-timeout", "6"])
    body = os.path.join(ARGS.source_dir, "test", "server", "fixtures", "review-allow.json")
    allow = compact(fixture("review-allow.json"))
    try:
        check(s.probe_get("/readyz")[0] == 200, "ready before the signal")
        idle = s.conn()
        check(s.post(allow, conn=idle)[0] == 200, "an idle keep-alive connection is open")
        load = wrk(s, body, 3, conns=8)
        time.sleep(1.0)
        signalled = time.monotonic()
        s.proc.send_signal(signal.SIGTERM)
        time.sleep(0.1)
        check(s.probe_get("/readyz")[0] == 503, "/readyz 503 right after SIGTERM")
        check(s.probe_get("/healthz")[0] == 200, "/healthz still 200 while draining")
        check(s.post(allow)[0] == 200, "new connections still served during the delay")
        rc = s.proc.wait(10)
        took = time.monotonic() - signalled
        check(rc == 0 and took < 6, f"exit 0 {took:.2f} s after SIGTERM (delay 1 s, timeout 6 s)")
        requests, non2xx, errors, out = wrk_result(load)
        # connect errors are expected once the listener is closed; nothing accepted may fail.
        check(requests > 100 and non2xx == 0 and errors[1:] == (0, 0, 0),
              f"wrk through SIGTERM: {requests} requests, {non2xx} non-2xx, socket errors {errors}")
        log = s.log_text()
        check("shutdown: draining" in log and "stopped accepting" in log and "shutdown complete" in log,
              "shutdown phases logged")
        # Decision lines are batched (server/log_sink.hpp); a graceful shutdown must write them
        # all: one per response wrk counted, plus the two posts above, read right after exit.
        decisions = sum(1 for l in log.splitlines() if '"admission decision"' in l)
        check(decisions >= requests + 2,
              f"no decision line lost at shutdown ({decisions} lines, {requests} + 2 answered)")
        idle.close()
    finally:
        s.stop()


def group_churn(work, certs):
    """Many short-lived connections on 4 event-loop threads while the policy reloads: valid
    requests, handshake failures, TLS without a request, garbage, abrupt closes. Connections of
    different threads share the registry, the metrics and the policy snapshot, so this is the
    group a ThreadSanitizer build needs to see cross-thread races (docs/performance-server.md)."""
    policy = os.path.join(work, "policy.yaml")
    default = subprocess.run([ARGS.binary, "policy", "default"], capture_output=True, check=True).stdout.decode()
    with open(policy, "w") as f:
        f.write(default)
    s = Server(work, certs, ["--threads", "4", "--reload-interval", "0.1", "--policy", policy,
                             "--header-timeout", "2"])
    allow = compact(fixture("review-allow.json"))
    request = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Connection: close\r\nContent-Length: " + str(len(allow)).encode() + b"\r\n\r\n" + allow)
    ctx = s.ssl_context()
    stop = threading.Event()
    ok, bad, failures = [0], [0], []
    lock = threading.Lock()

    def client(seed):
        i = seed
        while not stop.is_set():
            i += 1
            kind = i % 5
            try:
                raw = socket.create_connection(("127.0.0.1", s.https), timeout=5)
                if kind == 0:  # a valid request on a new connection
                    t = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
                    t.sendall(request)
                    data = b""
                    while True:
                        d = t.recv(65536)
                        if not d:
                            break
                        data += d
                    t.close()
                    with lock:
                        if data.startswith(b"HTTP/1.1 200") and b'"allowed":true' in data:
                            ok[0] += 1
                        else:
                            failures.append(data[:80])
                elif kind == 1:  # plain HTTP on the TLS port: a handshake failure
                    raw.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                    raw.recv(100)
                    raw.close()
                elif kind == 2:  # a handshake, then gone without a request
                    ctx.wrap_socket(raw, server_hostname="127.0.0.1").close()
                elif kind == 3:  # garbage after the handshake: 400
                    t = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
                    t.sendall(b"NOT HTTP AT ALL\r\n\r\n")
                    data = t.recv(100)
                    t.close()
                    with lock:
                        bad[0] += data.startswith(b"HTTP/1.1 400")
                else:  # half a ClientHello, then an abrupt close (RST)
                    raw.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
                    raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    raw.close()
            except (OSError, ssl.SSLError) as e:
                if kind in (0, 3):
                    with lock:
                        failures.append(repr(e))

    threads = [threading.Thread(target=client, args=(n * 1000,), daemon=True) for n in range(6)]
    try:
        for t in threads:
            t.start()
        stricter = re.sub(r"maxActiveDeadlineSeconds: *\d+", "maxActiveDeadlineSeconds: 7200", default)
        deadline = time.monotonic() + 4
        flip = False
        while time.monotonic() < deadline:
            flip = not flip
            tmp = policy + ".tmp"
            with open(tmp, "w") as f:
                f.write(stricter if flip else default)
            os.rename(tmp, policy)
            if not flip:
                check(s.probe_get("/metrics")[0] == 200, "/metrics during churn")
            time.sleep(0.12)
        stop.set()
        for t in threads:
            t.join(30)
        check(not failures, f"every valid request answered 200 during churn ({failures[:3]})")
        check(ok[0] >= 20 and bad[0] >= 10, f"churn ran: {ok[0]} valid, {bad[0]} garbage answered 400")
        check(s.metric("rayjob_guard_tls_handshake_failures_total") >= 10, "handshake failures counted")
        check(s.metric('rayjob_guard_policy_reloads_total{result="success"}') >= 5, "policy reloaded during churn")
        deadline = time.monotonic() + 3
        while s.metric("rayjob_guard_http_requests_in_flight") != 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        check(s.metric("rayjob_guard_http_requests_in_flight") == 0, "no request left in flight")
        check(s.post(allow)[0] == 200, "still serving after the churn")
    finally:
        stop.set()
        check(s.stop() == 0, "exit 0 after the churn")


def group_parity(work, certs):
    s = Server(work, certs, ["--threads", "1"])
    identities = [
        ("system:serviceaccount:tenant-a:jupyter-notebook", ["system:serviceaccounts"]),
        ("system:serviceaccount:tenant-a:api-submitter", ["system:serviceaccounts", "tenant-a-api"]),
        ("alice@example.com", ["tenant-a-devs", "system:authenticated"]),
        ("system:admin", ["system:masters"]),
        ("", []),
    ]
    try:
        for base_review, label in ((fixture("review-allow.json"), "allowed"), (deny_review(), "denied")):
            bodies = []
            for i, (user, groups) in enumerate(identities):
                r = copy.deepcopy(base_review)
                r["request"]["uid"] = f"parity-{i}"
                r["request"]["userInfo"] = {"username": user, "uid": f"user-{i}", "groups": groups,
                                            "extra": {"scope": [str(i)]}}
                status, _, body = s.post(compact(r))
                check(status == 200 and json.loads(body)["response"]["uid"] == f"parity-{i}",
                      f"{label} review as {user or '(no user)'}: 200 echoing its uid")
                bodies.append(body.replace(f'"uid":"parity-{i}"'.encode(), b'"uid":"X"'))
            check(len(set(bodies)) == 1, f"{label}: five identities, byte-identical bodies but for uid")
    finally:
        check(s.stop() == 0, "exit 0")


def group_floor(work, certs):
    """bench/transport_floor.cpp: the server with review() replaced by one stored answer."""
    if not ARGS.floor_binary:
        # test/server/CMakeLists.txt registers this group only in builds with benchmarks.
        print("FAIL: the floor group needs --floor-binary (bench/transport_floor.cpp)")
        sys.exit(2)
    allow = compact(fixture("review-allow.json"))
    stored = os.path.join(work, "stored.json")
    with open(stored, "wb") as f:
        f.write(allow)
    s = Server(work, certs, ["--threads", "1"],
               command=[ARGS.floor_binary, "--answer-from", stored])
    try:
        status, headers, body = s.post(compact(deny_review()))
        check(status == 200 and body == cli_review(allow, work),
              "any body is answered with the stored review's response, byte for byte")
        status, _, body = s.post(b"not json")
        check(status == 200 and body == cli_review(allow, work), "the body is not looked at")
        check(s.metric('rayjob_guard_admission_requests_total{allowed="true",operation="CREATE"}') == 2,
              "answers are counted like real decisions")
    finally:
        check(s.stop() == 0, "exit 0 on SIGTERM")
    with open(s.log_path, "rb") as f:
        check(f.read().count(b'"msg":"admission decision"') == 2, "and logged like real decisions")
    bad = subprocess.run([ARGS.floor_binary, "--answer-from", os.path.join(work, "missing.json"),
                          "--tls-cert", "x", "--tls-key", "y"], capture_output=True, text=True)
    check(bad.returncode == 2 and "missing.json: cannot be read" in bad.stderr and bad.stderr.count("\n") == 1,
          "an unreadable --answer-from: exit 2 with one line")
    bad = subprocess.run([ARGS.floor_binary, "--tls-cert", "x", "--answer-from"],
                         capture_output=True, text=True)
    check(bad.returncode == 2 and "--answer-from needs a file" in bad.stderr,
          "--answer-from without a value: exit 2 saying so")
    with open(stored, "wb") as f:
        f.write(b'{"kind":"Pod"}')
    bad = subprocess.run([ARGS.floor_binary, "--answer-from", stored, "--tls-cert", "x",
                          "--tls-key", "y"], capture_output=True, text=True)
    check(bad.returncode == 2 and "stored.json: " in bad.stderr,
          "an --answer-from that is not a review: exit 2 naming the file")


GROUPS = {name[len("group_"):]: fn for name, fn in globals().items() if name.startswith("group_")}


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--floor-binary", default="")
    p.add_argument("group", choices=sorted(GROUPS))
    ARGS = p.parse_args()
    need("openssl", "the groups make certificates and TLS handshakes with openssl; " + INSTALL)
    need("curl", "the groups make requests with curl; " + INSTALL)
    work = tempfile.mkdtemp(prefix="rjg-server-e2e-")
    try:
        certs = mint(os.path.join(work, "certs"))
        print(f"== server_e2e {ARGS.group}")
        GROUPS[ARGS.group](work, certs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
