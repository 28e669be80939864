#!/usr/bin/env python3
"""A notebook's session on a bare cluster: the driver connects with the runtime_env the docs give
notebooks, then one task writes to S3.

    python notebook_driver.py s3://BUCKET/PREFIX/ ENDPOINT_URL "RUNTIME_ENV_DICT"

Prints `driver: ...` (the driver's own put, with the image's botocore) and `task: ...` (a task's
put, in the runtime env). Exits 0 when the task wrote, 1 otherwise.
"""
import ast
import sys


def put(url, endpoint):
    import boto3
    import botocore
    from botocore.config import Config
    bucket, _, key = url[len("s3://"):].partition("/")
    try:
        s3 = boto3.client("s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"}))
        s3.put_object(Bucket=bucket, Key=key, Body=b"notebook\n")
        return f"wrote {url} with botocore {botocore.__version__}"
    except Exception as e:  # noqa: BLE001 - the outcome is the answer
        return f"botocore {botocore.__version__}: {type(e).__name__}: {e}"


def main(argv):
    prefix, endpoint, env_text = argv
    runtime_env = ast.literal_eval(env_text)
    print("driver: " + put(prefix + "driver.txt", endpoint), flush=True)
    import ray
    ray.init(runtime_env=runtime_env)
    task = ray.remote(put)
    result = ray.get(task.remote(prefix + "task.txt", endpoint), timeout=600)
    print("task: " + result, flush=True)
    return 0 if result.startswith("wrote") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
