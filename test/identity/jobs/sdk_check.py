#!/usr/bin/env python3
"""The bare-cluster job of runtime_env_test.py: which botocore the job imports, and whether it
gets credentials from EKS Pod Identity and writes to the bucket.

    python sdk_check.py s3://BUCKET/KEY [--endpoint-url URL]

Prints `sdk: botocore VERSION from PATH`, then creates an S3 client with the default credential
chain (the pod's identity) and puts one object at the URL. Any error propagates: the job fails
with its traceback.
"""
import sys


def main(argv):
    url = argv[0]
    endpoint = argv[argv.index("--endpoint-url") + 1] if "--endpoint-url" in argv else None
    import boto3
    import botocore
    from botocore.config import Config
    print(f"sdk: botocore {botocore.__version__} from {botocore.__file__}; boto3 {boto3.__version__}", flush=True)
    bucket, _, key = url[len("s3://"):].partition("/")
    session = boto3.session.Session()
    s3 = session.client("s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"}))
    s3.put_object(Bucket=bucket, Key=key, Body=f"botocore {botocore.__version__}\n".encode())
    print(f"sdk: wrote s3://{bucket}/{key} with {session.get_credentials().method} credentials", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
