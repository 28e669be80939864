#!/usr/bin/env python3
"""A training job that fails: the application failure of the identity and lifecycle tests.

    python train.py --results s3://BUCKET/PREFIX/ [--endpoint-url URL] [--fail|--succeed]

Writes its result manifest (manifest.json: the job's own output, with the identity it wrote it
under) to the results prefix with the default boto3 credential chain, i.e. the pod's identity,
prints progress, and then, with --fail (the default), dies of a chained exception: a missing
data shard (FileNotFoundError) re-raised as RuntimeError, so the traceback has two parts.
"""
import argparse
import json
import sys


def load_shard(path):
    with open(path, "rb") as f:  # the shard is missing: FileNotFoundError
        return f.read()


def train(epochs):
    for epoch in range(1, epochs + 1):
        print(f"epoch {epoch}/{epochs}: loss {1.0 / epoch:.3f}", flush=True)
    try:
        load_shard("/data/shards/shard-00007.parquet")
    except FileNotFoundError as e:
        raise RuntimeError("training data shard 7 is missing; the run cannot continue") from e


def main(argv):
    p = argparse.ArgumentParser(prog="train.py")
    p.add_argument("--results", required=True)
    p.add_argument("--endpoint-url")
    p.add_argument("--succeed", action="store_true")
    args = p.parse_args(argv)
    import boto3
    import botocore
    from botocore.config import Config
    bucket, _, prefix = args.results[len("s3://"):].partition("/")
    session = boto3.session.Session()
    s3 = session.client("s3", endpoint_url=args.endpoint_url,
                        config=Config(s3={"addressing_style": "path"}) if args.endpoint_url else None)
    caller = session.get_credentials()
    manifest = {"job": "train", "epochs": 3, "botocore": botocore.__version__,
                "credentials": caller.method, "shards": ["shard-00001.parquet", "shard-00007.parquet"]}
    s3.put_object(Bucket=bucket, Key=prefix + "manifest.json", Body=json.dumps(manifest, indent=2).encode(),
                  ContentType="application/json")
    print(f"wrote s3://{bucket}/{prefix}manifest.json (credentials: {caller.method})", flush=True)
    print("loading training data", file=sys.stderr, flush=True)
    if args.succeed:
        print("done", flush=True)
        return 0
    train(3)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
