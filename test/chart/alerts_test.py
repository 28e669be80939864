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
import ssl
import sys
import urllib.request

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import Serve, check, checks_passed, cluster_quota_flags, mint_certs, need, run  # noqa: E402

REPO, HELM, RJG, WORK = (os.path.abspath(a) for a in sys.argv[1:5])
HERE = os.path.dirname(os.path.abspath(__file__))
CHART = os.path.join(REPO, "charts", "rayjob-guard")


def render(*sets):
    env = dict(os.environ, KUBECONFIG=os.devnull, HELM_CACHE_HOME=os.path.join(WORK, "helm-cache"),
               HELM_CONFIG_HOME=os.path.join(WORK, "helm-config"), HELM_DATA_HOME=os.path.join(WORK, "helm-data"))
    argv = [HELM, "template", "rayjob-guard", CHART, "--namespace", "rayjob-guard",
            "-f", os.path.join(HERE, "values", "monitoring.yaml"), "--show-only", "templates/prometheusrule.yaml"]
    for s in sets:
        argv += ["--set-json", s]
    code, out, err = run(argv, env=env, timeout=120)
    check(code == 0, f"helm template: {err}")
    return yaml.safe_load(out)["spec"]


def promtool_test(promtool, spec, subdir):
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
    return run([promtool, "test", "rules", "alerts.test.yaml"], cwd=d, timeout=120)


def main():
    promtool = need("promtool", "the Debian package prometheus, in scripts/install-deps.sh")
    os.makedirs(WORK, exist_ok=True)
    spec = render()
    alerts = [r["alert"] for g in spec["groups"] for r in g["rules"] if "alert" in r]
    records = [r["record"] for g in spec["groups"] for r in g["rules"] if "record" in r]
    tests = open(os.path.join(HERE, "alerts.test.yaml")).read()
    for a in alerts:
        check(f"alertname: {a}" in tests, f"alert {a} has promtool tests in alerts.test.yaml")
    for rec in records:
        check(f"expr: {rec}" in tests, f"recording rule {rec} has a promtool test")
    exprs = [r["expr"] for g in spec["groups"] for r in g["rules"]]
    code, out, err = promtool_test(promtool, json.loads(json.dumps(spec)), "promtool")
    print(out.strip())
    check(code == 0, f"promtool test rules failed:\n{out}{err}")
    print(f"ok: promtool test rules: {len(alerts)} alerts ({', '.join(alerts)}) and {len(records)} recording rules")

    # The tests can fail: with a bound the synthetic slow reviews (p99 0.995 s) stay under, the
    # latency alert's positive case must fail.
    code, out, err = promtool_test(
        promtool, render("monitoring.prometheusRule.latencyP99Seconds=0.999"), "promtool-mutated")
    check(code != 0 and "RayjobGuardAdmissionLatencyHigh" in out + err,
          f"promtool must fail on the mutated latency bound: exit {code}")
    print("ok: a mutated bound (latencyP99Seconds=0.999) makes promtool fail on RayjobGuardAdmissionLatencyHigh")
    code, out, err = promtool_test(
        promtool, render("monitoring.prometheusRule.apiserver.callErrorRatio=1"),
        "promtool-mutated-apiserver")
    check(code != 0 and "RayjobGuardApiserverCannotCallWebhook" in out + err,
          f"promtool must fail on the mutated apiserver call-error bound: exit {code}")
    print("ok: a mutated bound (apiserver.callErrorRatio=1) makes promtool fail on RayjobGuardApiserverCannotCallWebhook")

    # --- every metric the rules name is served
    text = scrape()
    served = set(re.findall(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{|\s)", text, re.M))
    named = set()
    for e in exprs:
        for name in re.findall(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{", e):
            named.add(name)
    check(named, "the rules name metrics")
    # The apiserver's own admission-webhook metrics: chart.install checks each name on the /metrics
    # of the pinned kube-apiserver, with the webhook down.
    apiserver = {n for n in named if n.startswith("apiserver_admission_webhook_")}
    check(apiserver, "the apiserver group names the apiserver's admission-webhook metrics")
    others = {n for n in named if not n.startswith("rayjob_guard_")} - apiserver
    check(others <= {"up"}, f"the rules name only the server's metrics, the apiserver's webhook metrics and Prometheus's up: {others}")
    print(f"ok: apiserver metrics named (checked live by chart.install): {', '.join(sorted(apiserver))}")
    for n in sorted(named - {"up"} - apiserver):
        check(n in served, f"metric {n} (named by a rule) is in the running server's /metrics")
        print(f"ok: {n} served")
    # The labels the rules select on exist with those values.
    for series in ('rayjob_guard_policy_reloads_total{result="failure"}', 'rayjob_guard_policy_reloads_total{result="success"}',
                   'rayjob_guard_certificate_reloads_total{result="failure"}', 'rayjob_guard_certificate_reloads_total{result="success"}'):
        check(series in text, f"{series} served")
    check(re.search(r'^rayjob_guard_http_requests_total\{code="\d{3}"\}', text, re.M), "http_requests_total carries code")
    check(re.search(r'^rayjob_guard_admission_violations_total\{[^}]*action="deny"', text, re.M)
          and re.search(r'^rayjob_guard_admission_violations_total\{[^}]*rule="', text, re.M), "violations carry rule and action")
    check(re.search(r'^rayjob_guard_admission_duration_seconds_bucket\{le="1(\.0)?"\}', text, re.M), "latency histogram has the 1 s bucket")
    print(f"ok: every server metric the rules name ({len(named - {'up'} - apiserver)}) is served, with the labels they select on")
    print(f"PASS: {checks_passed()} checks")


def scrape():
    certs = mint_certs(REPO, os.path.join(WORK, "certs"))
    # Quota from a cluster nobody answers at, so that the cluster-quota series are served too.
    server = Serve([RJG, "serve"], certs, WORK, start_timeout=20,
                   extra=cluster_quota_flags(RJG, WORK, os.path.join(certs, "ca.crt")))
    try:
        # One review that violates a deny rule, so the per-rule series and an HTTP code exist.
        review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
            "uid": "00000000-0000-0000-0000-000000000001", "operation": "CREATE", "namespace": "tenant-a",
            "kind": {"group": "ray.io", "version": "v1", "kind": "RayJob"},
            "resource": {"group": "ray.io", "version": "v1", "resource": "rayjobs"},
            "object": {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "x", "namespace": "tenant-a"},
                       "spec": {"entrypoint": "python x.py"}}}}
        ctx = ssl.create_default_context(cafile=server.ca)
        req = urllib.request.Request(f"https://127.0.0.1:{server.https}/validate", data=json.dumps(review).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=ctx, timeout=10) as resp:
            answer = json.load(resp)
        check(answer["response"]["allowed"] is False, "the probe review is denied (so deny series exist)")
        with urllib.request.urlopen(f"http://127.0.0.1:{server.probe}/metrics", timeout=10) as resp:
            return resp.read().decode()
    finally:
        server.stop(timeout=40)


if __name__ == "__main__":
    main()
