#!/usr/bin/env python3
"""Times RayJob dry-run creates through a real kube-apiserver, the way kubectl sends them.

    apiserver_client.py KUBECONFIG REVIEW_JSON COUNT [--namespace tenant-a]

Sends COUNT `POST /apis/ray.io/v1/namespaces/NS/rayjobs?dryRun=All` requests over one keep-alive
HTTPS connection (bearer token and CA from KUBECONFIG), with the RayJob taken from the
AdmissionReview in REVIEW_JSON. Prints one line: `count ok p50_ms p90_ms p99_ms mean_ms`.
Exit 1 when any request is not 201 (a webhook denial or failure would show up here).
Python 3 standard library only.
"""
import argparse
import http.client
import json
import re
import ssl
import statistics
import sys
import time
import urllib.parse


def kubeconfig(path):
    text = open(path).read()
    server = re.search(r"^\s*server:\s*(\S+)", text, re.M).group(1)
    token = re.search(r"^\s*token:\s*(\S+)", text, re.M).group(1)
    ca = re.search(r"^\s*certificate-authority:\s*(\S+)", text, re.M)
    return server, token, ca.group(1) if ca else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kubeconfig")
    ap.add_argument("review")
    ap.add_argument("count", type=int)
    ap.add_argument("--namespace", default="tenant-a")
    a = ap.parse_args()
    server, token, ca = kubeconfig(a.kubeconfig)
    u = urllib.parse.urlparse(server)
    ctx = ssl.create_default_context(cafile=ca) if ca else ssl._create_unverified_context()
    if not ca:
        ctx.check_hostname = False
    obj = json.load(open(a.review))["request"]["object"]
    obj["metadata"] = {"name": "bench-dry-run", "namespace": a.namespace}
    body = json.dumps(obj).encode()
    path = f"/apis/ray.io/v1/namespaces/{a.namespace}/rayjobs?dryRun=All"
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Accept": "application/json"}
    conn = http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=30)
    lat, bad = [], 0
    for i in range(a.count + 5):
        t0 = time.perf_counter()
        conn.request("POST", path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        dt = (time.perf_counter() - t0) * 1000
        if resp.status != 201:
            bad += 1
            if bad <= 3:
                print(f"status {resp.status}: {data[:300]!r}", file=sys.stderr)
        if i >= 5:  # the first few warm up the connection, the webhook client and the caches
            lat.append(dt)
    lat.sort()
    q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
    print(f"{len(lat)} {len(lat) - bad} {q(0.50):.2f} {q(0.90):.2f} {q(0.99):.2f} {statistics.mean(lat):.2f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
