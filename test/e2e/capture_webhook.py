#!/usr/bin/env python3
"""A recording validating webhook for the e2e suite (Python 3 stdlib only).

It admits everything and appends each AdmissionReview request body it receives, as one JSON line,
to --record. The suite registers it next to rayjob-guard for one case: both validating webhooks
are handed the same object, so what it records is what rayjob-guard was sent (after CRD
defaulting). It is a measuring instrument, never a stand-in for rayjob-guard.

usage: capture_webhook.py --cert tls.crt --key tls.key --record FILE --port-file FILE
Binds 127.0.0.1 port 0, writes the port to --port-file once listening, serves until SIGTERM.
"""
import argparse
import http.server
import json
import os
import signal
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import https_server  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--record", required=True)
    ap.add_argument("--port-file", required=True)
    args = ap.parse_args()
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):  # keep stderr for errors only
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            try:
                review = json.loads(body)
                uid = review["request"]["uid"]
            except (ValueError, KeyError, TypeError) as e:
                self.send_error(400, f"not an AdmissionReview: {e}")
                return
            with lock, open(args.record, "a", encoding="utf-8") as f:
                f.write(json.dumps(review, separators=(",", ":")) + "\n")
            reply = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                "response": {"uid": uid, "allowed": True}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    server = https_server(Handler, args.cert, args.key, alpn=["http/1.1"])
    with open(args.port_file + ".tmp", "w", encoding="utf-8") as f:
        f.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
