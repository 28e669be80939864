#!/usr/bin/env python3
"""Prints one S3 object, read with the default credential chain (the pod's identity).

    python s3_read.py [--endpoint-url URL] BUCKET KEY

Exit 0 with the object on stdout; exit 1 with `s3_read: Type: message` on stderr.
"""
import sys


def main(argv):
    endpoint = None
    if argv[:1] == ["--endpoint-url"]:
        endpoint, argv = argv[1], argv[2:]
    bucket, key = argv
    import boto3
    from botocore.config import Config
    try:
        s3 = boto3.client("s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"}))
        sys.stdout.write(s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8"))
    except Exception as e:  # noqa: BLE001 - the error is the answer
        print(f"s3_read: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
