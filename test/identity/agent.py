#!/usr/bin/env python3
"""A stand-in for the EKS Pod Identity agent, serving its protocol for real.

    agent.py --netns NS --apiserver URL --ca FILE --token-file FILE --associations FILE
             --sts-endpoint URL [--expiration-seconds N] [--port 80] --log FILE --ready-file FILE

AWS's agent is not available here; this one speaks the same protocol to the SDKs:

  GET http://169.254.170.23/v1/credentials
  Authorization: <the pod's projected service-account token, audience pods.eks.amazonaws.com>

It checks the token with a TokenReview against the Kubernetes apiserver (audience
pods.eks.amazonaws.com; authenticating as its own service account, --token-file), looks the
service account up in the associations (JSON: [{"namespace", "serviceAccount", "accessKeyId",
"secretAccessKey"}], the Pod Identity associations), and answers with temporary credentials from
the S3 server's STS AssumeRole for that association's user:

  200 {"AccessKeyId", "SecretAccessKey", "Token", "AccountId", "Expiration"}

Expiration is --expiration-seconds from now (the STS credentials themselves last 900 s), so SDKs
refresh often. Errors: 400 (no Authorization), 401 (token not authenticated for the audience),
403 (no association), 404 (other paths), 500 (apiserver or STS failed), each with a JSON
{"message"} and a log line. The listening socket is made inside the network namespace NS; the
process itself stays in the host namespace, so it reaches the apiserver and STS on the host's
loopback. One JSON log line per request (--log): the service account, the token's sha256 prefix,
the status. The ready file gets the PID once it listens. SIGTERM ends it (exit 0).
"""
import argparse
import datetime
import hashlib
import http.server
import json
import os
import signal
import ssl
import sys
import threading
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402

AUDIENCE = "pods.eks.amazonaws.com"
ACCOUNT_ID = "000000000000"


def token_sha(token):
    return hashlib.sha256(token.encode()).hexdigest()[:16]


class Agent:
    def __init__(self, args):
        self.apiserver = args.apiserver.rstrip("/")
        self.ssl = ssl.create_default_context(cafile=args.ca)
        self.own_token_file = args.token_file
        with open(args.associations, encoding="utf-8") as f:
            self.associations = {(a["namespace"], a["serviceAccount"]): a for a in json.load(f)}
        self.sts_endpoint = args.sts_endpoint
        self.expiration = args.expiration_seconds
        self.log_file = open(args.log, "a", encoding="utf-8", buffering=1)
        self.lock = threading.Lock()

    def log(self, **fields):
        fields["time"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
        with self.lock:
            self.log_file.write(json.dumps(fields, sort_keys=True) + "\n")

    def review(self, token):
        """TokenReview: returns (username, None) or (None, reason)."""
        with open(self.own_token_file, encoding="utf-8") as f:
            own = f.read().strip()
        body = json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                           "spec": {"token": token, "audiences": [AUDIENCE]}}).encode()
        req = urllib.request.Request(f"{self.apiserver}/apis/authentication.k8s.io/v1/tokenreviews",
                                     data=body, method="POST",
                                     headers={"Authorization": f"Bearer {own}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=self.ssl, timeout=10) as r:
            status = json.load(r).get("status", {})
        if not status.get("authenticated"):
            return None, status.get("error") or "token not authenticated"
        if AUDIENCE not in (status.get("audiences") or []):
            return None, f"token is not for audience {AUDIENCE}"
        return status["user"]["username"], None

    def credentials(self, assoc, session_name):
        import boto3  # the agent runs in a venv with boto3; imported late so --help works without
        from botocore.config import Config
        sts = boto3.client("sts", endpoint_url=self.sts_endpoint, region_name="us-east-1",
                           aws_access_key_id=assoc["accessKeyId"],
                           aws_secret_access_key=assoc["secretAccessKey"],
                           config=Config(connect_timeout=5, read_timeout=10, retries={"max_attempts": 2}))
        c = sts.assume_role(RoleArn=f"arn:aws:iam::{ACCOUNT_ID}:role/pod-identity",
                            RoleSessionName=session_name, DurationSeconds=900)["Credentials"]
        expires = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=self.expiration)
        return {"AccessKeyId": c["AccessKeyId"], "SecretAccessKey": c["SecretAccessKey"],
                "Token": c["SessionToken"], "AccountId": ACCOUNT_ID,
                "Expiration": expires.strftime("%Y-%m-%dT%H:%M:%SZ")}

    def handle(self, path, token):
        """Returns (HTTP status, JSON document, log fields)."""
        if path.split("?", 1)[0] != "/v1/credentials":
            return 404, {"message": f"no such path {path}"}, {}
        if not token:
            return 400, {"message": "Service account token cannot be empty"}, {}
        fields = {"tokenSha": token_sha(token)}
        try:
            user, why = self.review(token)
        except (urllib.error.URLError, OSError, ValueError) as e:
            return 500, {"message": f"TokenReview failed: {e}"}, fields
        if user is None:
            return 401, {"message": f"invalid token: {why}"}, dict(fields, reason=why)
        fields["user"] = user
        parts = user.split(":")
        if len(parts) != 4 or parts[:2] != ["system", "serviceaccount"]:
            return 403, {"message": f"{user} is not a service account"}, fields
        assoc = self.associations.get((parts[2], parts[3]))
        if assoc is None:
            return 403, {"message": f"no Pod Identity association for {parts[2]}/{parts[3]}"}, fields
        try:
            return 200, self.credentials(assoc, f"{parts[2]}-{parts[3]}"), fields
        except Exception as e:  # noqa: BLE001 - any STS failure is the agent's 500
            return 500, {"message": f"AssumeRole failed: {type(e).__name__}: {e}"}, fields


def make_handler(agent):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):  # noqa: N802 - http.server's name
            status, doc, fields = agent.handle(self.path, self.headers.get("Authorization", "").strip())
            body = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            agent.log(path=self.path, status=status, **fields,
                      **({"message": doc.get("message")} if status != 200 else {}))

        def log_message(self, *_):  # the JSON log above replaces http.server's stderr lines
            pass

    return Handler


def main(argv):
    p = argparse.ArgumentParser(prog="agent.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--netns", required=True)
    p.add_argument("--host", default=netns.AGENT_HOST)
    p.add_argument("--port", type=int, default=80)
    p.add_argument("--apiserver", required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--token-file", required=True, help="the agent's own service-account token")
    p.add_argument("--associations", required=True)
    p.add_argument("--sts-endpoint", required=True)
    p.add_argument("--expiration-seconds", type=int, default=60)
    p.add_argument("--log", required=True)
    p.add_argument("--ready-file", required=True)
    args = p.parse_args(argv)
    agent = Agent(args)
    sock = netns.listen_in(args.netns, args.host, args.port)
    server = http.server.ThreadingHTTPServer((args.host, args.port), make_handler(agent), bind_and_activate=False)
    server.socket.close()
    server.socket = sock
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    with open(args.ready_file + ".tmp", "w") as f:
        f.write(f"{os.getpid()}\n")
    os.replace(args.ready_file + ".tmp", args.ready_file)
    server.serve_forever(poll_interval=0.2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
