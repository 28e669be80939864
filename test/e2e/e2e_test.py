#!/usr/bin/env python3
"""The rayjob-guard end-to-end suite: RayJobs through a real, current kube-apiserver.

The control plane is the Kubernetes version pinned in test/peers/versions.env, built from the Go
module proxy by test/peers/build-kube.sh; the KubeRay CRDs are installed verbatim (crds.sh).
One cluster serves the whole suite (CTest fixture): `setup` starts it with cluster.sh and
webhook.sh and checks the server version, each case runs against it, `teardown` stops it. Cases:

  crd-verbatim the CRDs the apiserver stores are the files crds.sh named, schema for schema
  parity       every test/corpus/*.yaml, as the notebook and as the API identity, dry-run and real
               create: same exit code and byte-identical output; verdict as its `# expect:` line,
               or, for the files listed in apiserver-refusals.txt, the apiserver's own refusal
               (OpenAPI schema or the CRD's CEL rules) before any webhook is called; it prints
               which layer refused each refused manifest
  defaulting   a RayJob that omits CRD-defaulted fields reaches the webhook defaulted, and
               `rayjob-guard review` of the captured request reproduces the apiserver's verdict
  ratchet      UPDATEs of a RayJob stored before the webhook was registered: label and finalizer
               changes admitted with warnings; a new violation refused
  tenant-view  the exact kubectl stdout/stderr of a denial and of a warned admission, compared
               with test/e2e/expected/
  failure      webhook stopped + failurePolicy Fail: creates refused ("failed calling webhook"),
               nothing stored; restarted on the same port: creates work, registration untouched
  rotation     >= 50 creates through the apiserver while the serving pair is re-minted: 0 failures
  crd-minimal  our minimal CRD (own cluster, no webhook): the same defaults as the real one
  crd-operator the operator module's own CRDs (own cluster, no webhook): installed verbatim, the
               same defaults, and its CEL rules refuse what the shared CRD's refuse

usage: e2e_test.py --dir DIR --binary RAYJOB_GUARD CASE
On failure it prints the tails of the apiserver's and the webhook's logs.
Python 3 stdlib plus PyYAML (to read manifests).
"""
import argparse
import base64
import http.client
import json
import os
import re
import shutil
import socket
import ssl
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from harness import Cluster, check, fail, pinned, read_env, run, start, stop, wait_for_file  # noqa: E402

REPO = HERE.parent.parent
CASES = HERE / "cases"
EXPECTED = HERE / "expected"
IDENTITIES = ("notebook", "api")
WEBHOOK_NAME = "vrayjob.rayjob-guard.io"
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class E2ECluster(Cluster):
    """The cluster in DIR as cluster.sh/webhook.sh left it (test/harness's Cluster: kubectl as
    admin, notebook or api, the scripts with RJG_BINARY set), its webhook's state and the REST
    API as an identity."""

    def __init__(self, d: Path, binary: str):
        super().__init__(d, script_env={"RJG_BINARY": binary})
        self.path = Path(self.dir)
        self.binary = binary

    def webhook_env(self) -> dict:
        return read_env(self.path / "webhook" / "env")

    def token(self, who: str) -> str:
        cfg = yaml.safe_load((self.path / f"{who}.kubeconfig").read_text())
        return cfg["users"][0]["user"]["token"]

    def api(self, who: str, method: str, path: str, body=None):
        """One REST call to the apiserver as `who`. Returns (status, parsed JSON or text)."""
        ctx = ssl.create_default_context(cafile=self.env["APISERVER_CA"])
        conn = http.client.HTTPSConnection("127.0.0.1", int(self.env["APISERVER_PORT"]),
                                           context=ctx, timeout=30)
        try:
            data = json.dumps(body).encode() if body is not None else None
            conn.request(method, path, body=data, headers={
                "Authorization": f"Bearer {self.token(who)}",
                "Content-Type": "application/json", "Accept": "application/json"})
            r = conn.getresponse()
            raw = r.read().decode()
            try:
                return r.status, json.loads(raw)
            except ValueError:
                return r.status, raw
        finally:
            conn.close()


def load_manifest(p: Path) -> dict:
    docs = [d for d in yaml.safe_load_all(p.read_text()) if d is not None]
    check(len(docs) == 1, f"{p.name}: expected one YAML document, found {len(docs)}")
    check(isinstance(docs[0], dict), f"{p.name}: not a mapping")
    return docs[0]


def parse_expect(p: Path):
    """Returns (allowed, [rule ids]) from the first line `# expect: allowed|denied a,b`."""
    first = p.read_text().splitlines()[0] if p.read_text() else ""
    m = re.match(r"^#\s*expect:\s*(allowed|denied)\s*([A-Za-z0-9_,\- ]*)\s*$", first)
    check(m is not None, f"{p.name}: first line must be '# expect: allowed' or "
                         f"'# expect: denied <rule-id>[,...]', got {first!r}")
    ids = [s.strip() for s in m.group(2).split(",") if s.strip()]
    check(m.group(1) == "allowed" or ids, f"{p.name}: 'denied' needs at least one rule id")
    return m.group(1) == "allowed", ids


CREATED_RE = re.compile(r"^rayjob\.ray\.io/(\S+) created", re.M)
ANY_CREATED_RE = re.compile(r"^(\S+/\S+) created$", re.M)


def load_rayjob_doc(p: Path) -> dict:
    """The one RayJob document of a corpus file that may also hold e.g. the job's ConfigMap."""
    docs = [d for d in yaml.safe_load_all(p.read_text()) if isinstance(d, dict)]
    jobs = [d for d in docs if d.get("kind") == "RayJob"]
    check(len(jobs) == 1, f"{p.name}: expected one RayJob document, found {len(jobs)}")
    return jobs[0]


def normalize_generated(text: str, manifest: dict) -> str:
    """Replaces a name the apiserver generated from metadata.generateName by <generated>."""
    gen = manifest.get("metadata", {}).get("generateName")
    if gen and not manifest.get("metadata", {}).get("name"):
        text = re.sub(re.escape(gen) + r"[a-z0-9]{5}\b", gen + "<generated>", text)
    return text


def verdict_matches(p: Path, rc: int, out: str, err: str, allowed: bool, ids):
    """Returns None when (rc, out, err) is what `# expect:` says, else what differs."""
    if allowed:
        return None if rc == 0 else f"expected allowed, got exit {rc}: {err.strip()}"
    if rc == 0:
        return f"expected denied {','.join(ids)}, got allowed: {out.strip()}"
    if f'admission webhook "{WEBHOOK_NAME}" denied the request' not in err:
        return f"expected a denial by {WEBHOOK_NAME}, got: {err.strip()}"
    missing = [i for i in ids if f"[{i}]" not in err]
    return f"denied, but without rule(s) {missing}: {err.strip()}" if missing else None


def ensure_namespace(c: E2ECluster, ns: str, known: set):
    if ns not in known:
        c.script("cluster.sh", "namespace", ns)
        known.add(ns)


def delete_rayjob(c: E2ECluster, ns: str, name: str):
    c.kubectl("delete", "rayjob", name, "-n", ns, "--ignore-not-found", "--wait=true",
         check=True)


# --- cases -------------------------------------------------------------------------------------

def case_parity(c: E2ECluster, args):
    corpus = sorted((REPO / "test" / "corpus").glob("*.yaml"))
    check(len(corpus) >= 20, f"test/corpus has {len(corpus)} manifests; the suite needs >= 20")
    refusals = read_refusals()
    namespaces = {"tenant-a"}
    pairs = mismatches = expect_failures = refused = 0
    problems = []
    layers = {}  # refused manifest -> the layer that refused it (the same for every verdict)
    for p in corpus:
        manifest = load_rayjob_doc(p)
        allowed, ids = parse_expect(p)
        ns = manifest.get("metadata", {}).get("namespace") or "tenant-a"
        ensure_namespace(c, ns, namespaces)
        # Same file bytes for both identities: kubectl reads the file itself, from the corpus dir,
        # so messages quote the same relative file name.
        for mode in ("dry-run", "create"):
            results = {}
            for who in IDENTITIES:
                # kubectl's default validation: the apiserver's strict field validation, as a
                # tenant's kubectl does it.
                extra = ["--dry-run=server"] if mode == "dry-run" else []
                rc, out, err = c.kubectl("create", *extra, "-n", ns, "-f", p.name, cwd=p.parent, who=who)
                results[who] = (rc, normalize_generated(out, manifest),
                                normalize_generated(err, manifest))
                if mode == "create":
                    # Everything the file created (the RayJob, and e.g. its code ConfigMap even
                    # when the RayJob was refused) goes before the other identity's turn.
                    for obj in ANY_CREATED_RE.findall(out):
                        c.kubectl("delete", obj, "-n", ns, "--wait=true", check=True)
                    check(rc != 0 or CREATED_RE.search(out), f"{p.name}: create as {who} printed {out!r}")
                if p.name in refusals:
                    layer, text = refusals[p.name]
                    ok = rc != 0 and text in err and WEBHOOK_NAME not in err
                    why = None if ok else f"expected the apiserver's own refusal ({layer}) " \
                                          f"{text!r}, got exit {rc}: {err.strip()}"
                    refused += 0 if why else 1
                    if ok:
                        layers[p.name] = f"apiserver {layer}"
                else:
                    why = verdict_matches(p, rc, out, err, allowed, ids)
                    if why is None and not allowed:
                        layers[p.name] = "webhook " + ",".join(ids)
                if why:
                    expect_failures += 1
                    problems.append(f"{p.name} [{mode} as {who}]: {why}")
            pairs += 1
            if results["notebook"] != results["api"]:
                mismatches += 1
                problems.append(f"{p.name} [{mode}]: identities differ:\n"
                                f"  notebook: {results['notebook']!r}\n  api:      {results['api']!r}")
    for name, layer in sorted(layers.items()):
        print(f"e2e parity: {name}: refused by the {layer}, identically for both identities")
    for line in problems:
        print("FAIL " + line)
    by_layer = {}
    for layer in layers.values():
        key = layer.split(" ")[0] if layer.startswith("webhook") else layer
        by_layer[key] = by_layer.get(key, 0) + 1
    print(f"e2e parity: server {c.env.get('KUBE_VERSION', '?')}, CRD {c.env.get('CRD_KIND', '?')}")
    print(f"e2e parity: manifests={len(corpus)} identities={len(IDENTITIES)} "
          f"verdict-pairs={pairs} mismatches={mismatches}")
    print(f"e2e parity: refused manifests by layer: "
          + (", ".join(f"{k}={v}" for k, v in sorted(by_layer.items())) or "none"))
    print(f"e2e parity: expectation-failures={expect_failures} "
          f"apiserver-refused={refused} (listed in test/e2e/apiserver-refusals.txt) "
          f"of {pairs * 2} verdicts (manifests x 2 modes x 2 identities)")
    check(mismatches == 0 and expect_failures == 0, "parity failed")


def read_refusals() -> dict:
    """test/e2e/apiserver-refusals.txt: corpus file -> (layer, text the refusal must contain)."""
    refusals = {}
    for n, line in enumerate((HERE / "apiserver-refusals.txt").read_text().splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            check(len(fields) == 3 and fields[1] in ("schema", "CEL"),
                  f"apiserver-refusals.txt:{n}: want <file>\\t<schema|CEL>\\t<text>, got {line!r}")
            refusals[fields[0]] = (fields[1], fields[2])
    return refusals


class Capture:
    """capture_webhook.py registered as a second validating webhook, for the duration of a with."""

    def __init__(self, c: Cluster):
        self.c = c
        self.tmp = Path(tempfile.mkdtemp(prefix="capture-", dir=c.path))
        self.record = self.tmp / "requests.jsonl"
        self.proc = None

    def __enter__(self):
        certs = self.c.path / "webhook" / "certs"
        port_file = self.tmp / "port"
        log = self.tmp / "capture.log"
        self.proc = start([sys.executable, str(HERE / "capture_webhook.py"),
                           "--cert", str(certs / "tls.crt"), "--key", str(certs / "tls.key"),
                           "--record", str(self.record), "--port-file", str(port_file)], log)
        wait_for_file(port_file, 5, self.proc, log)
        port = port_file.read_text().strip()
        ca = base64.b64encode((certs / "ca.crt").read_bytes()).decode()
        cfg = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
               "metadata": {"name": "rjg-e2e-capture"},
               "webhooks": [{"name": "capture.e2e.rayjob-guard.io", "admissionReviewVersions": ["v1"],
                             "sideEffects": "None", "failurePolicy": "Fail", "timeoutSeconds": 5,
                             "clientConfig": {"url": f"https://127.0.0.1:{port}/capture", "caBundle": ca},
                             "rules": [{"apiGroups": ["ray.io"], "apiVersions": ["v1"],
                                        "resources": ["rayjobs"], "operations": ["CREATE", "UPDATE"]}]}]}
        self.c.kubectl("apply", "-f", "-", stdin=json.dumps(cfg), check=True)
        return self

    def requests(self):
        if not self.record.exists():
            return []
        return [json.loads(l) for l in self.record.read_text().splitlines() if l.strip()]

    def __exit__(self, *exc):
        self.c.kubectl("delete", "validatingwebhookconfiguration", "rjg-e2e-capture",
                  "--ignore-not-found")
        if self.proc:
            stop(self.proc)
        return False


def case_defaulting(c: E2ECluster, args):
    case = CASES / "defaulting.yaml"
    manifest = load_manifest(case)
    spec = manifest["spec"]
    for f in ("submissionMode", "ttlSecondsAfterFinished", "backoffLimit"):
        check(f not in spec, f"{case.name} must omit spec.{f}")
    allowed, ids = parse_expect(case)
    with Capture(c) as cap:
        # The webhook configuration takes effect asynchronously (informer); retry until recorded.
        for _ in range(50):
            rc, out, err = c.kubectl("create", "--dry-run=server", "-f", case.name, cwd=CASES, who="notebook")
            if cap.requests():
                break
            time.sleep(0.2)
        reqs = cap.requests()
    check(reqs, "the capture webhook never received the request")
    req = reqs[-1]["request"]
    obj = req["object"]
    s = obj["spec"]
    check(s.get("submissionMode") == "K8sJobMode", f"submissionMode sent: {s.get('submissionMode')!r}")
    check(s.get("ttlSecondsAfterFinished") == 0, f"ttlSecondsAfterFinished sent: {s.get('ttlSecondsAfterFinished')!r}")
    check(s.get("backoffLimit") == 0, f"backoffLimit sent: {s.get('backoffLimit')!r}")
    workers = s.get("rayClusterSpec", {}).get("workerGroupSpecs", [])
    sent_workers = manifest["spec"].get("rayClusterSpec", {}).get("workerGroupSpecs", [])
    for i, (w, src) in enumerate(zip(workers, sent_workers)):
        for f, want in (("replicas", 0), ("minReplicas", 0), ("maxReplicas", 2147483647), ("numOfHosts", 1)):
            if f not in src:
                check(w.get(f) == want, f"workerGroupSpecs[{i}].{f} sent: {w.get(f)!r}, want {want}")
    print(f"defaulting: the webhook was sent submissionMode=K8sJobMode ttlSecondsAfterFinished=0 "
          f"backoffLimit=0 and worker defaults for {len(workers)} group(s)")
    why = verdict_matches(case, rc, out, err, allowed, ids)
    check(why is None, f"{case.name}: {why}")
    # The captured review is exactly what rayjob-guard was sent; judged offline it must give the
    # answer the apiserver relayed.
    code, review, err = run([c.binary, "review", *policy_args(), "-"], stdin=json.dumps(reqs[-1]),
                            timeout=30)
    check(code == 0, f"rayjob-guard review failed: {err.strip()}")
    resp = json.loads(review)["response"]
    check(resp["allowed"] == (rc == 0), f"review says allowed={resp['allowed']}, apiserver exit {rc}")
    if not resp["allowed"]:
        check(resp["status"]["message"] in err, "the apiserver's message is not the review's message")
    for w in resp.get("warnings", []):
        check(f"Warning: {w}" in err, f"warning {w!r} not relayed by the apiserver")
    print(f"defaulting: offline review of the captured request agrees (allowed={resp['allowed']}, "
          f"{len(resp.get('warnings', []))} warning(s))")


def policy_args():
    p = os.environ.get("RJG_POLICY")
    return ["--policy", p] if p else []


def case_ratchet(c: E2ECluster, args):
    base = CASES / "ratchet.yaml"
    m = load_manifest(base)
    name, ns = m["metadata"]["name"], m["metadata"].get("namespace", "tenant-a")
    _, ids = parse_expect(base)
    c.script("webhook.sh", "unregister")
    try:
        delete_rayjob(c, ns, name)
        c.kubectl("create", "-f", base.name, cwd=CASES, check=True, who="notebook")
    finally:
        c.script("webhook.sh", "register")
    try:
        # The registration reaches the admission plugin through an informer: wait until the
        # webhook answers (a dry-run create of the same manifest, renamed, is refused by it).
        probe = json.loads(json.dumps(m))
        probe["metadata"]["name"] = name + "-probe"
        for _ in range(50):
            rc, _, err = c.kubectl("create", "--dry-run=server", "-f", "-",
                              stdin=json.dumps(probe), who="notebook")
            if rc != 0 and WEBHOOK_NAME in err:
                break
            time.sleep(0.2)
        check(rc != 0 and all(f"[{i}]" in err for i in ids),
              f"the webhook does not refuse a fresh create of {base.name}: {err.strip()}")

        rc, out, err = c.kubectl("label", "rayjob", name, "-n", ns, "team=vision", who="notebook")
        check(rc == 0, f"label change refused: {err.strip()}")
        check(all(f"[{i}]" in err for i in ids) and "Warning:" in err,
              f"label change admitted without the ratcheted warnings: {err!r}")
        print(f"ratchet: label change admitted with warnings:\n{err.rstrip()}")

        rc, out, err = c.kubectl("patch", "rayjob", name, "-n", ns, "--type=merge",
                            "-p", '{"metadata":{"finalizers":["e2e.rayjob-guard.io/hold"]}}', who="api")
        check(rc == 0, f"finalizer change refused: {err.strip()}")
        check("Warning:" in err, f"finalizer change admitted without warnings: {err!r}")
        print("ratchet: finalizer change admitted with warnings")

        patch = (CASES / "ratchet-new-violation.json").read_text()
        new_ids = json.loads(patch).get("x-expect-denied", [])
        body = {k: v for k, v in json.loads(patch).items() if k != "x-expect-denied"}
        for who in IDENTITIES:
            rc, out, err = c.kubectl("patch", "rayjob", name, "-n", ns, "--type=merge",
                                "-p", json.dumps(body), who=who)
            check(rc != 0, f"update adding a new violation admitted as {who}: {out.strip()}")
            check(f'admission webhook "{WEBHOOK_NAME}" denied the request' in err and
                  all(f"[{i}]" in err for i in new_ids),
                  f"update refused, but not for {new_ids}: {err.strip()}")
        print(f"ratchet: update adding {new_ids} refused for both identities:\n{err.rstrip()}")
    finally:
        c.kubectl("patch", "rayjob", name, "-n", ns, "--type=merge",
             "-p", '{"metadata":{"finalizers":null}}')
        delete_rayjob(c, ns, name)


def run_tenant_view(c: E2ECluster, case: str):
    f = CASES / f"{case}.yaml"
    m = load_manifest(f)
    rc, out, err = c.kubectl("create", "-f", f.name, cwd=CASES, who="notebook")
    if rc == 0:
        delete_rayjob(c, m["metadata"].get("namespace", "tenant-a"), m["metadata"]["name"])
    return rc, out, err


def case_tenant_view(c: E2ECluster, args):
    update = os.environ.get("RJG_E2E_UPDATE_EXPECTED") == "1"
    failures = []
    for case, want_rc in (("tenant-denied", 1), ("tenant-warned", 0)):
        rc, out, err = run_tenant_view(c, case)
        got = {"stdout": out, "stderr": err}
        check(rc == want_rc, f"{case}: kubectl exit {rc}, want {want_rc}: {err.strip()}")
        if case == "tenant-warned":
            check(err.startswith("Warning: "), f"{case}: no Warning: line: {err!r}")
        for stream, text in got.items():
            exp = EXPECTED / f"{case}.{stream}"
            if update:
                exp.write_text(text)
                print(f"tenant-view: wrote {exp.relative_to(REPO)}")
                continue
            want = exp.read_text() if exp.exists() else None
            if want != text:
                failures.append(f"{case}.{stream} differs\n--- expected ({exp.relative_to(REPO)})\n"
                                f"{want}\n--- got\n{text}")
            else:
                print(f"tenant-view: {case}.{stream} matches ({len(text)} bytes)")
    for f in failures:
        print("FAIL " + f)
    check(not failures, "kubectl output differs from test/e2e/expected (RJG_E2E_UPDATE_EXPECTED=1 rewrites)")


def webhook_config_rv(c: E2ECluster) -> str:
    _, out, _ = c.kubectl("get", "validatingwebhookconfiguration", "rayjob-guard",
                     "-o", "jsonpath={.metadata.resourceVersion}", check=True)
    return out.strip()


def case_failure(c: E2ECluster, args):
    f = CASES / "tenant-warned.yaml"  # an admissible RayJob
    m = load_manifest(f)
    name, ns = m["metadata"]["name"], m["metadata"].get("namespace", "tenant-a")
    port_before = c.webhook_env()["WEBHOOK_PORT"]
    rv_before = webhook_config_rv(c)
    c.script("webhook.sh", "stop")
    try:
        for who in IDENTITIES:
            rc, out, err = c.kubectl("create", "-f", f.name, cwd=CASES, who=who)
            check(rc != 0, f"create admitted while the webhook is down (as {who}): {out.strip()}")
            check(f'failed calling webhook "{WEBHOOK_NAME}"' in err,
                  f"refused, but not with 'failed calling webhook': {err.strip()}")
            rc, _, err2 = c.kubectl("get", "rayjob", name, "-n", ns)
            check(rc != 0 and "NotFound" in err2, "a RayJob was stored while the webhook was down")
        print(f"failure: webhook down -> refused, nothing stored:\n{err.rstrip()}")
    finally:
        c.script("webhook.sh", "start")
    check(c.webhook_env()["WEBHOOK_PORT"] == port_before, "webhook restarted on another port")
    rc, out, err = c.kubectl("create", "-f", f.name, cwd=CASES, who="notebook")
    check(rc == 0, f"create after restart refused: {err.strip()}")
    delete_rayjob(c, ns, name)
    check(webhook_config_rv(c) == rv_before, "the webhook registration changed")
    print(f"failure: restarted on port {port_before}, creates work again, registration untouched "
          f"(resourceVersion {rv_before})")


def served_cert_der(port: int) -> bytes:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        with ctx.wrap_socket(s) as t:
            return t.getpeercert(binary_form=True)


def file_cert_der(path: Path) -> bytes:
    return ssl.PEM_cert_to_DER_cert(path.read_text())


def case_rotation(c: E2ECluster, args):
    f = CASES / "tenant-warned.yaml"
    body = load_manifest(f)
    ns = body["metadata"].get("namespace", "tenant-a")
    body["metadata"].pop("name", None)
    body["metadata"]["generateName"] = "rot-"
    body["metadata"].setdefault("labels", {})["e2e.rayjob-guard.io/case"] = "rotation"
    port = int(c.webhook_env()["WEBHOOK_PORT"])
    crt = c.path / "webhook" / "certs" / "tls.crt"
    # Creates run without pause from two identities until the three rotations are done and at
    # least `during` creates were sent after the first rotation began.
    during = int(os.environ.get("RJG_E2E_ROTATION_CREATES", "60"))
    results, lock = [], threading.Lock()
    stop = threading.Event()

    def creator(who):
        while not stop.is_set():
            status, resp = c.api(who, "POST", f"/apis/ray.io/v1/namespaces/{ns}/rayjobs", body)
            with lock:
                results.append((status, resp if status != 201 else None))

    def count():
        with lock:
            return len(results)

    threads = [threading.Thread(target=creator, args=(who,)) for who in IDENTITIES]
    t0 = time.time()
    for t in threads:
        t.start()
    rotations, served_new, first = 0, [], None
    try:
        for _ in range(3):
            while count() < (first or 0) + 10:  # some creates before each rotation
                time.sleep(0.05)
            if first is None:
                first = count()
            c.script("webhook.sh", "rotate")
            rotations += 1
            want = file_cert_der(crt)
            # The server reloads the pair from disk on its own; wait until it serves the new one.
            deadline = time.time() + 30
            while time.time() < deadline and served_cert_der(port) != want:
                time.sleep(0.2)
            served_new.append(served_cert_der(port) == want)
        deadline = time.time() + 120
        while count() - first < during and time.time() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    in_window = len(results) - (first or 0)
    elapsed = time.time() - t0
    failed = [r for r in results if r[0] != 201]
    # Cleanup only: the objects have no finalizers, so not waiting for >100 watches is safe.
    c.kubectl("delete", "rayjobs", "-n", ns, "-l", "e2e.rayjob-guard.io/case=rotation",
         "--wait=false")
    print(f"rotation: creates={len(results)} (after the first rotation: {in_window}) "
          f"failed={len(failed)} rotations={rotations} "
          f"new-cert-served={sum(served_new)}/{rotations} in {elapsed:.1f} s")
    for status, resp in failed[:5]:
        print(f"FAIL create -> {status}: {resp.get('message') if isinstance(resp, dict) else resp}")
    check(in_window >= 50, f"only {in_window} creates ran during the rotations")
    check(not failed, f"{len(failed)} creates failed during rotation")
    check(all(served_new), "the webhook did not serve the re-minted certificate within 30 s")


def own_cluster(c: E2ECluster, crd: str, check_fn):
    """Runs check_fn(cluster) on a cluster of its own holding the CRDs of source `crd`."""
    own = E2ECluster(Path(tempfile.mkdtemp(prefix=f"crd-{crd}-", dir=c.path.parent)), c.binary)
    try:
        own.up(env={"RJG_E2E_CRD": crd, "RJG_KUBE_BIN": c.env.get("KUBE_BIN", "")})
        check_fn(own)
    finally:
        if own.down():
            shutil.rmtree(own.dir, ignore_errors=True)


def case_crd_minimal(c: E2ECluster, args):
    def run(mc: E2ECluster):
        check(mc.env.get("CRD_KIND") == "minimal", f"CRD_KIND={mc.env.get('CRD_KIND')}")
        check_defaults_stored(mc, "crd-minimal")
    own_cluster(c, "minimal", run)


def case_crd_operator(c: E2ECluster, args):
    version = pinned("KUBERAY_OPERATOR_VERSION")

    def run(mc: E2ECluster):
        check(mc.env.get("CRD_KIND") == f"operator-{version}", f"CRD_KIND={mc.env.get('CRD_KIND')}")
        check_verbatim(mc)
        # The 1.5 CRD has no deletion-rule condition on jobDeploymentStatus (1.6 added it): with
        # kubectl's strict validation the apiserver refuses the field by name, as a tenant on a
        # 1.5 cluster sees it. Without that rule the manifest shows the same defaults.
        rc, _, err = mc.kubectl("create", "--dry-run=server", "-f", "defaulting.yaml", cwd=CASES)
        field = "spec.deletionStrategy.deletionRules[2].condition.jobDeploymentStatus"
        check(rc != 0 and f'unknown field "{field}"' in err,
              f"the {version} CRD accepted {field}: exit {rc}: {err.strip()}")
        print(f"crd-operator-{version}: strict validation refuses the 1.6 field: {err.strip()}")
        m = load_manifest(CASES / "defaulting.yaml")
        rules = m["spec"]["deletionStrategy"]["deletionRules"]
        m["spec"]["deletionStrategy"]["deletionRules"] = [
            r for r in rules if "jobDeploymentStatus" not in r.get("condition", {})]
        check_defaults_stored(mc, f"crd-operator-{version}", m)
        # The operator's own CRD carries the CEL rules the parity case meets in the shared one.
        for name, (layer, text) in read_refusals().items():
            if layer != "CEL":
                continue
            rc, _, err = mc.kubectl("create", "--dry-run=server", "-f", name,
                               cwd=REPO / "test" / "corpus")
            check(rc != 0 and text in err, f"{name}: the {version} CRD does not refuse it with "
                                            f"{text!r}: exit {rc}: {err.strip()}")
            print(f"crd-operator-{version}: {name} refused by CEL: {err.strip()}")
    own_cluster(c, "operator", run)


def check_verbatim(c: E2ECluster):
    """Each CRD the apiserver stores has the group, names, scope and version schemas of its file."""
    files = [f for f in c.env.get("CRD_FILES", "").split(":") if f]
    check(files, "cluster.sh recorded no CRD_FILES")
    for f in files:
        want = yaml.load(Path(f).read_text(), Loader=YAML_LOADER)
        name = want["metadata"]["name"]
        _, out, _ = c.kubectl("get", "crd", name, "-o", "json", check=True)
        got = json.loads(out)
        for key in ("group", "names", "scope"):
            check(got["spec"][key] == want["spec"][key], f"{name}: spec.{key} differs from {f}")
        got_versions = {v["name"]: v for v in got["spec"]["versions"]}
        for v in want["spec"]["versions"]:
            stored = got_versions.get(v["name"])
            check(stored is not None, f"{name}: version {v['name']} not stored")
            for key in ("schema", "served", "storage", "subresources", "additionalPrinterColumns"):
                check(stored.get(key) == v.get(key), f"{name} {v['name']}: {key} differs from {f}")
        rules = json.dumps(want["spec"]).count('"x-kubernetes-validations"')
        size = Path(f).stat().st_size
        print(f"crd-verbatim: {name} ({c.env.get('CRD_KIND')}, {size} bytes, {rules} CEL rule lists) "
              f"stored exactly as {Path(f).name}")


def case_crd_verbatim(c: E2ECluster, args):
    check_verbatim(c)


def check_defaults_stored(c: E2ECluster, label: str, manifest: dict = None):
    """Creates cases/defaulting.yaml (or `manifest`) as admin (no webhook involved) and reads the
    defaults back."""
    if manifest is None:
        rc, out, err = c.kubectl("create", "--dry-run=server", "-o", "json", "-f",
                            "defaulting.yaml", cwd=CASES)
    else:
        rc, out, err = c.kubectl("create", "--dry-run=server", "-o", "json", "-f", "-",
                            stdin=json.dumps(manifest))
    check(rc == 0, f"{label}: dry-run create refused: {err.strip()}")
    s = json.loads(out)["spec"]
    w = s["rayClusterSpec"]["workerGroupSpecs"][0]
    got = (s.get("submissionMode"), s.get("ttlSecondsAfterFinished"), s.get("backoffLimit"),
           w.get("numOfHosts"))
    check(got == ("K8sJobMode", 0, 0, 1), f"{label}: defaults read back {got}")
    print(f"{label}: defaults applied: submissionMode={got[0]} ttlSecondsAfterFinished={got[1]} "
          f"backoffLimit={got[2]} numOfHosts={got[3]}")


def check_server_version(c: E2ECluster):
    """kubectl version: client and server are the pinned Kubernetes version."""
    want = pinned("KUBERNETES_VERSION")
    _, out, _ = c.kubectl("version", "-o", "json", check=True)
    v = json.loads(out)
    server, client = v["serverVersion"]["gitVersion"], v["clientVersion"]["gitVersion"]
    print(f"kubectl version: client {client}, server {server} (pinned {want})")
    check(server == want and client == want, f"kubectl version: client {client}, server {server}; "
                                             f"test/peers/versions.env pins {want}")


def case_setup(c: E2ECluster, args):
    c.down()  # what an earlier run may have left
    c.up()
    check_server_version(c)
    c.script("webhook.sh", "up")
    check_defaults_stored(c, "crd-" + c.env.get("CRD_KIND", "?"))


def case_teardown(c: E2ECluster, args):
    check(c.down(), "teardown failed: webhook.sh down or cluster.sh down exited non-zero (above)")


CASES_BY_NAME = {
    "crd-verbatim": case_crd_verbatim, "crd-operator": case_crd_operator, "setup": case_setup, "teardown": case_teardown, "parity": case_parity,
    "defaulting": case_defaulting, "ratchet": case_ratchet, "tenant-view": case_tenant_view,
    "failure": case_failure, "rotation": case_rotation, "crd-minimal": case_crd_minimal,
}


def print_log_tails(c: E2ECluster):
    for p in (c.path / "logs" / "kube-apiserver.log", c.path / "webhook" / "serve.log"):
        if p.exists():
            lines = p.read_text(errors="replace").splitlines()[-40:]
            print(f"----- tail of {p.relative_to(c.path)} ({c.dir}) -----")
            print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True, help="cluster state directory (shared by all cases)")
    ap.add_argument("--binary", required=True, help="the rayjob-guard executable")
    ap.add_argument("case", choices=sorted(CASES_BY_NAME))
    args = ap.parse_args()
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    c = E2ECluster(d.resolve(), args.binary)
    t0 = time.time()
    try:
        if args.case not in ("setup", "teardown", "crd-minimal", "crd-operator"):
            check((d / "env").exists() and (d / "webhook" / "env").exists(),
                  f"no running cluster in {d}: the e2e.setup fixture did not run or failed")
        CASES_BY_NAME[args.case](c, args)
    except SystemExit:  # a failed check: its FAIL line is out; the logs may say why
        print_log_tails(c)
        raise
    except (KeyError, ValueError, OSError) as e:
        print_log_tails(c)
        fail(f"e2e {args.case}: {type(e).__name__} {e}")
    print(f"PASS e2e {args.case} in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
