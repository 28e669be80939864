#!/usr/bin/env python3
"""One long-lived S3 client, as a job holds it, driven step by step by botocore_matrix_test.py.

    probe.py ENDPOINT_URL      (inside the pods' network namespace, with the Pod Identity env)

Reads one command per line on stdin and answers one JSON line on stdout for each:

  client              make the boto3 session and S3 client (credentials are resolved here)
  put BUCKET KEY      put a small object; {"ok": true} or {"ok": false, "error": "Type: message"}
  quit

The client is made once and kept, so later puts show how this botocore refreshes credentials
that expire (the agent stand-in issues short-lived ones) after the token file was rotated.
"""
import json
import sys


def answer(**doc):
    sys.stdout.write(json.dumps(doc) + "\n")
    sys.stdout.flush()


def error_text(e):
    return f"{type(e).__name__}: {e}"


def main(endpoint):
    import boto3
    import botocore
    from botocore.config import Config
    s3 = None
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "quit":
            return 0
        if cmd[0] == "client":
            try:
                session = boto3.session.Session()
                s3 = session.client(
                    "s3", endpoint_url=endpoint,
                    config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1},
                                  connect_timeout=5, read_timeout=10))
                answer(ok=True, botocore=botocore.__version__, boto3=boto3.__version__,
                       method=session.get_credentials().method)
            except Exception as e:  # noqa: BLE001 - the error is the measurement
                answer(ok=False, error=error_text(e), botocore=botocore.__version__)
        elif cmd[0] == "put" and len(cmd) == 3:
            if s3 is None:
                answer(ok=False, error="no client")
                continue
            try:
                s3.put_object(Bucket=cmd[1], Key=cmd[2], Body=f"written by botocore {botocore.__version__}\n".encode())
                answer(ok=True)
            except Exception as e:  # noqa: BLE001
                answer(ok=False, error=error_text(e))
        else:
            answer(ok=False, error=f"unknown command {line.strip()!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
