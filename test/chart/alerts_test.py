#!/usr/bin/python3
"""The chart's PrometheusRule: rendered with `helm template` (values/monitoring.yaml), then
`promtool test rules` runs alerts.test.yaml against it (each alert fires, stays silent, ignores
0/0, and waits out its `for`); a mutated render (a latency bound the synthetic series stay under)
must make promtool fail. Then every metric an alert or recording rule names must be in the
/metrics of a running `rayjob-guard serve` (loopback, certificates from certs/mint-certs.sh), with
the label names and values the rules select on. `up` is Prometheus's own and is the only other name.

usage: alerts_test.py REPO HELM RAYJOB_GUARD WORK_DIR
"""
import json
import os
import re
import shutil
import socket
import signal
import ssl
import subprocess
import sys
import time
import urllib.request

import yaml

REPO, HELM, RJG, WORK = (os.path.abspath(a) for a in sys.argv[1:5])
HERE = os.path.dirname(os.path.abspath(__file__))
CHART = os.path.join(REPO, "charts", "rayjob-guard")
checks = 0


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def ok(cond, what):
    global checks
    if not cond:
        fail(what)
    checks += 1


def render(*sets):
    env = dict(os.environ, KUBECONFIG=os.devnull, HELM_CACHE_HOME=os.path.join(WORK, "helm-cache"),
               HELM_CONFIG_HOME=os.path.join(WORK, "helm-config"), HELM_DATA_HOME=os.path.join(WORK, "helm-data"))
    argv = [HELM, "template", "rayjob-guard", CHART, "--namespace", "rayjob-guard",
            "-f", os.path.join(HERE, "values", "monitoring.yaml"), "--show-only", "templates/prometheusrule.yaml"]
    for s in sets:
        argv += ["--set-json", s]
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    ok(r.returncode == 0, f"helm template: {r.stderr}")
    return yaml.safe_load(r.stdout)["spec"]


def promtool_test(spec, subdir):
    d = os.path.join(WORK, subdir)
    os.makedirs(d, exist_ok=True)
    # promtool compares annotations exactly; they are templated text checked for presence in
    # render_test.py, so the copy promtool tests carries none. Expressions, `for` and labels are
    # the chart's as rendered.
    for g in spec["groups"]:
        for rule in g["rules"]:
            rule.pop("annotations", None)
    with open(os.path.join(d, "rules.yaml"), "w") as f:
        yaml.safe_dump(spec, f)
    shutil.copy(os.path.join(HERE, "alerts.test.yaml"), d)
    return subprocess.run(["promtool", "test", "rules", "alerts.test.yaml"], cwd=d, capture_output=True,
                          text=True, timeout=120)


def main():
    ok(shutil.which("promtool"), "promtool on PATH (Debian package prometheus, in scripts/install-deps.sh)")
    os.makedirs(WORK, exist_ok=True)
    spec = render()
    alerts = [r["alert"] for g in spec["groups"] for r in g["rules"] if "alert" in r]
    records = [r["record"] for g in spec["groups"] for r in g["rules"] if "record" in r]
    tests = open(os.path.join(HERE, "alerts.test.yaml")).read()
    for a in alerts:
        ok(f"alertname: {a}" in tests, f"alert {a} has promtool tests in alerts.test.yaml")
    for rec in records:
        ok(f"expr: {rec}" in tests, f"recording rule {rec} has a promtool test")
    exprs = [r["expr"] for g in spec["groups"] for r in g["rules"]]
    r = promtool_test(json.loads(json.dumps(spec)), "promtool")
    print(r.stdout.strip())
    ok(r.returncode == 0, f"promtool test rules failed:\n{r.stdout}{r.stderr}")
    print(f"ok: promtool test rules: {len(alerts)} alerts ({', '.join(alerts)}) and {len(records)} recording rules")

    # The tests can fail: with a bound the synthetic slow reviews (p99 0.995 s) stay under, the
    # latency alert's positive case must fail.
    r = promtool_test(render("monitoring.prometheusRule.latencyP99Seconds=0.999"), "promtool-mutated")
    ok(r.returncode != 0 and "RayjobGuardAdmissionLatencyHigh" in r.stdout + r.stderr,
       f"promtool must fail on the mutated latency bound: exit {r.returncode}")
    print("ok: a mutated bound (latencyP99Seconds=0.999) makes promtool fail on RayjobGuardAdmissionLatencyHigh")
    r = promtool_test(render("monitoring.prometheusRule.apiserver.callErrorRatio=1"), "promtool-mutated-apiserver")
    ok(r.returncode != 0 and "RayjobGuardApiserverCannotCallWebhook" in r.stdout + r.stderr,
       f"promtool must fail on the mutated apiserver call-error bound: exit {r.returncode}")
    print("ok: a mutated bound (apiserver.callErrorRatio=1) makes promtool fail on RayjobGuardApiserverCannotCallWebhook")

    # --- every metric the rules name is served
    text = scrape()
    served = set(re.findall(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{|\s)", text, re.M))
    named = set()
    for e in exprs:
        for name in re.findall(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{", e):
            named.add(name)
    ok(named, "the rules name metrics")
    # The apiserver's own admission-webhook metrics: chart.install checks each name on the /metrics
    # of the pinned kube-apiserver, with the webhook down.
    apiserver = {n for n in named if n.startswith("apiserver_admission_webhook_")}
    ok(apiserver, "the apiserver group names the apiserver's admission-webhook metrics")
    others = {n for n in named if not n.startswith("rayjob_guard_")} - apiserver
    ok(others <= {"up"}, f"the rules name only the server's metrics, the apiserver's webhook metrics and Prometheus's up: {others}")
    print(f"ok: apiserver metrics named (checked live by chart.install): {', '.join(sorted(apiserver))}")
    for n in sorted(named - {"up"} - apiserver):
        ok(n in served, f"metric {n} (named by a rule) is in the running server's /metrics")
        print(f"ok: {n} served")
    # The labels the rules select on exist with those values.
    for series in ('rayjob_guard_policy_reloads_total{result="failure"}', 'rayjob_guard_policy_reloads_total{result="success"}',
                   'rayjob_guard_certificate_reloads_total{result="failure"}', 'rayjob_guard_certificate_reloads_total{result="success"}'):
        ok(series in text, f"{series} served")
    ok(re.search(r'^rayjob_guard_http_requests_total\{code="\d{3}"\}', text, re.M), "http_requests_total carries code")
    ok(re.search(r'^rayjob_guard_admission_violations_total\{[^}]*action="deny"', text, re.M)
       and re.search(r'^rayjob_guard_admission_violations_total\{[^}]*rule="', text, re.M), "violations carry rule and action")
    ok(re.search(r'^rayjob_guard_admission_duration_seconds_bucket\{le="1(\.0)?"\}', text, re.M), "latency histogram has the 1 s bucket")
    print(f"ok: every server metric the rules name ({len(named - {'up'} - apiserver)}) is served, with the labels they select on")
    print(f"PASS: {checks} checks")


def scrape():
    certs = os.path.join(WORK, "certs")
    subprocess.run([os.path.join(REPO, "certs", "mint-certs.sh"), "--out", certs, "--san", "IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    ports_file = os.path.join(WORK, "ports.json")
    if os.path.exists(ports_file):
        os.remove(ports_file)
    # The built-in policy with quota from the cluster, so that the cluster-quota series are served
    # too; the cluster is a loopback port nobody listens on (the watch keeps retrying).
    policy = subprocess.run([RJG, "policy", "default"], check=True, capture_output=True, text=True).stdout
    ok("\n  source: policy\n" in policy, "the built-in policy has a quota.source line")
    policy_file = os.path.join(WORK, "policy-cluster.yaml")
    with open(policy_file, "w") as f:
        f.write(policy.replace("\n  source: policy\n", "\n  source: cluster\n"))
    token_file = os.path.join(WORK, "token")
    with open(token_file, "w") as f:
        f.write("unused\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    log = open(os.path.join(WORK, "serve.log"), "w")
    proc = subprocess.Popen([RJG, "serve", "--tls-cert", f"{certs}/tls.crt", "--tls-key", f"{certs}/tls.key",
                             "--listen", "127.0.0.1:0", "--probe-listen", "127.0.0.1:0", "--port-file", ports_file,
                             "--policy", policy_file, "--server", f"https://127.0.0.1:{closed_port}",
                             "--token-file", token_file, "--ca", f"{certs}/ca.crt"],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        ports = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                ports = json.load(open(ports_file))
                if ports.get("https") and ports.get("probe"):
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        ok(ports and ports.get("https") and ports.get("probe"),
           f"serve wrote its ports to {ports_file} within 20 s (exit {proc.poll()}, see {log.name})")
        # One review that violates a deny rule, so the per-rule series and an HTTP code exist.
        review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
            "uid": "00000000-0000-0000-0000-000000000001", "operation": "CREATE", "namespace": "tenant-a",
            "kind": {"group": "ray.io", "version": "v1", "kind": "RayJob"},
            "resource": {"group": "ray.io", "version": "v1", "resource": "rayjobs"},
            "object": {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "x", "namespace": "tenant-a"},
                       "spec": {"entrypoint": "python x.py"}}}}
        ctx = ssl.create_default_context(cafile=f"{certs}/ca.crt")
        req = urllib.request.Request(f"https://127.0.0.1:{ports['https']}/validate", data=json.dumps(review).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=ctx, timeout=10) as resp:
            answer = json.load(resp)
        ok(answer["response"]["allowed"] is False, "the probe review is denied (so deny series exist)")
        with urllib.request.urlopen(f"http://127.0.0.1:{ports['probe']}/metrics", timeout=10) as resp:
            return resp.read().decode()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
