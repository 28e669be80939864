#!/usr/bin/env python3
"""A fake Kubernetes API for the reaper's tests: HTTPS on 127.0.0.1, port 0, stdlib only.

usage: fake_apiserver.py --cert F --key F --token T --log FILE --end-time RFC3339 [--hold-first-get S]

Serves a two-page RayJobList for tenant-a and scripted answers:
  - the first GET of page 2 answers 500, the second 429 (Retry-After: 0), the third the page;
  - DELETE rj-ok -> 200; rj-flaky -> 503 twice, then 200; rj-gone -> 404; rj-replaced -> 409;
    anything else (a RayJob that must never be deleted) -> 200, and the test sees it in the log.
A request without "Authorization: Bearer T" gets 401. Every request is appended to --log as one
JSON line {method, path, body, auth}. Prints "PORT <n>" on stdout once listening.
--hold-first-get S: the first GET is logged at once and answered S seconds later, so a test can
signal the reaper while it is in the middle of a pass.
"""
import argparse
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import https_server  # noqa: E402

ARGS = None
COUNTS = {}


def rayjob(name, job_status, deploy, end_time, ttl_s="1", ttl_f="1", deleting=False):
    meta = {"name": name, "namespace": "tenant-a", "uid": "uid-" + name,
            "annotations": {"rayjob-guard.io/ttl-after-success": ttl_s,
                            "rayjob-guard.io/ttl-after-failure": ttl_f}}
    if deleting:
        meta["deletionTimestamp"] = end_time
    status = {"jobStatus": job_status, "jobDeploymentStatus": deploy}
    if end_time:
        status["endTime"] = end_time
    if job_status == "FAILED":
        status["message"] = "job submission failed: exit code 1"
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": meta, "spec": {},
            "status": status}


def page(items, cont):
    return {"apiVersion": "ray.io/v1", "kind": "RayJobList",
            "metadata": {"resourceVersion": "7", "continue": cont}, "items": items}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # keep test output quiet
        pass

    def record(self, body):
        with open(ARGS.log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"method": self.command, "path": self.path, "body": body,
                                "auth": self.headers.get("Authorization", "")}) + "\n")

    def reply(self, code, obj, extra=None):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def status(self, code, reason):
        self.reply(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                          "reason": reason, "code": code})

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        self.record(body)
        if self.command == "GET" and ARGS.hold_first_get and not COUNTS.get("held"):
            COUNTS["held"] = 1
            time.sleep(ARGS.hold_first_get)
        if self.headers.get("Authorization") != "Bearer " + ARGS.token:
            return self.status(401, "Unauthorized")
        base = "/apis/ray.io/v1/namespaces/tenant-a/rayjobs"
        end = ARGS.end_time
        if self.command == "GET" and self.path == base + "?limit=2":
            return self.reply(200, page([
                rayjob("rj-ok", "SUCCEEDED", "Complete", end),
                rayjob("rj-running", "RUNNING", "Running", None, "0", "0"),
            ], "page-2/token=="))
        if self.command == "GET" and self.path == base + "?limit=2&continue=page-2%2Ftoken%3D%3D":
            n = COUNTS["page2"] = COUNTS.get("page2", 0) + 1
            if n == 1:
                return self.status(500, "InternalError")
            if n == 2:
                self.reply(429, {"kind": "Status", "code": 429, "reason": "TooManyRequests"},
                           {"Retry-After": "0"})
                return None
            return self.reply(200, page([
                rayjob("rj-flaky", "FAILED", "Failed", end),
                rayjob("rj-gone", "SUCCEEDED", "Complete", end),
                rayjob("rj-replaced", "SUCCEEDED", "Complete", end),
                rayjob("rj-terminating", "SUCCEEDED", "Complete", end, deleting=True),
                rayjob("rj-no-end", "FAILED", "Failed", None),
            ], ""))
        if self.command == "DELETE" and self.path.startswith(base + "/"):
            name = self.path[len(base) + 1:]
            if name == "rj-flaky":
                n = COUNTS["flaky"] = COUNTS.get("flaky", 0) + 1
                if n <= 2:
                    return self.status(503, "ServiceUnavailable")
            if name == "rj-gone":
                return self.status(404, "NotFound")
            if name == "rj-replaced":
                return self.status(409, "Conflict")
            return self.reply(200, {"kind": "Status", "status": "Success"})
        return self.status(400, "BadRequest")

    do_GET = handle_any
    do_DELETE = handle_any


def main():
    global ARGS
    p = argparse.ArgumentParser()
    for flag in ("--cert", "--key", "--token", "--log", "--end-time"):
        p.add_argument(flag, required=True)
    p.add_argument("--hold-first-get", type=float, default=0)
    ARGS = p.parse_args()
    server = https_server(Handler, ARGS.cert, ARGS.key)
    print("PORT", server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
