#!/usr/bin/env python3
"""Writes the benchmark payloads: AdmissionReview requests for a compliant RayJob in three sizes.

    make-reviews.py OUT_DIR      -> OUT_DIR/small.json (~3 KB), typical.json (~8 KB), large.json (~60 KB)

The RayJob follows the default policy's expectations (DeleteSelf rules with bounded TTLs, an
active deadline, backoffLimit 0, declared resources, digest-pinned tenant images), so every
server does its full rule walk and answers allowed. Sizes grow the way real RayJobs grow: more
worker groups, more environment variables, longer runtimeEnvYAML and annotations.
Deterministic: the same files every run, so runs on different days compare.
"""
import json
import os
import sys

IMAGE = ("123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.41.0-py311"
         "@sha256:" + "3f" * 32)


def container(name, cpu, mem, n_env):
    env = [{"name": f"{name.upper().replace('-', '_')}_SETTING_{i}", "value": f"value-{i:04d}-" + "x" * 24}
           for i in range(n_env)]
    return {
        "name": name,
        "image": IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "env": env,
        "ports": [{"containerPort": 6379, "name": "gcs"}, {"containerPort": 8265, "name": "dashboard"}],
        "resources": {"requests": {"cpu": cpu, "memory": mem}, "limits": {"cpu": cpu, "memory": mem}},
        "volumeMounts": [{"name": "scratch", "mountPath": "/tmp/ray"}],
    }


def pod(name, cpu, mem, n_env):
    return {
        "metadata": {"labels": {"app.kubernetes.io/part-of": "ray", "tenant": "tenant-a"}},
        "spec": {
            "serviceAccountName": "ray-runtime",
            "containers": [container(name, cpu, mem, n_env)],
            "volumes": [{"name": "scratch", "emptyDir": {"sizeLimit": "10Gi"}}],
        },
    }


def rayjob(n_workers, n_env, n_annotations, n_pip):
    pip = "\n".join(f"    - pkg{i:03d}==1.{i}.0" for i in range(n_pip))
    runtime_env = ("pip:\n  packages:\n    - boto3>=1.35.0\n    - botocore>=1.34.41\n" + pip +
                   ("\n" if pip else "") + "env_vars:\n  OMP_NUM_THREADS: \"1\"\n")
    workers = [{
        "groupName": f"workers-{g}",
        "replicas": 2,
        "minReplicas": 2,
        "maxReplicas": 2,
        "numOfHosts": 1,
        "rayStartParams": {},
        "template": pod("ray-worker", "2", "8Gi", n_env),
    } for g in range(n_workers)]
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {
            "name": "train-resnet-0001",
            "namespace": "tenant-a",
            "uid": "0b6c1f4e-1d55-4b0b-9c5a-3f1f4b2a7d10",
            "labels": {"app": "train", "team": "tenant-a"},
            "annotations": {f"example.com/note-{i}": "n" * 40 for i in range(n_annotations)},
        },
        "spec": {
            "entrypoint": "python /app/train.py --epochs 3",
            "runtimeEnvYAML": runtime_env,
            "ttlSecondsAfterFinished": 0,
            "activeDeadlineSeconds": 7200,
            "backoffLimit": 0,
            "submissionMode": "K8sJobMode",
            "deletionStrategy": {"deletionRules": [
                {"policy": "DeleteSelf", "condition": {"jobStatus": "SUCCEEDED", "ttlSeconds": 300}},
                {"policy": "DeleteSelf", "condition": {"jobStatus": "FAILED", "ttlSeconds": 7200}},
                {"policy": "DeleteSelf", "condition": {"jobDeploymentStatus": "Failed", "ttlSeconds": 7200}},
            ]},
            "rayClusterSpec": {
                "rayVersion": "2.41.0",
                "headGroupSpec": {"rayStartParams": {"dashboard-host": "0.0.0.0"},
                                  "template": pod("ray-head", "1", "4Gi", n_env)},
                "workerGroupSpecs": workers,
            },
            "submitterPodTemplate": {"spec": {"restartPolicy": "Never", "containers": [
                container("ray-job-submitter", "500m", "512Mi", 0)]}},
        },
    }


def review(obj):
    return {
        "kind": "AdmissionReview",
        "apiVersion": "admission.k8s.io/v1",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": "ray.io", "version": "v1", "kind": "RayJob"},
            "resource": {"group": "ray.io", "version": "v1", "resource": "rayjobs"},
            "requestKind": {"group": "ray.io", "version": "v1", "kind": "RayJob"},
            "requestResource": {"group": "ray.io", "version": "v1", "resource": "rayjobs"},
            "name": obj["metadata"]["name"],
            "namespace": obj["metadata"]["namespace"],
            "operation": "CREATE",
            "userInfo": {"username": "system:serviceaccount:tenant-a:notebook", "uid": "1",
                         "groups": ["system:serviceaccounts", "system:authenticated"]},
            "object": obj,
            "oldObject": None,
            "dryRun": False,
            "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "kubectl-create"},
        },
    }


SIZES = {
    # name: (worker groups, env vars per container, annotations, extra pip packages)
    "small": (1, 1, 0, 0),
    "typical": (3, 8, 4, 10),
    "large": (12, 40, 20, 60),
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-reviews.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, args in SIZES.items():
        body = json.dumps(review(rayjob(*args)), separators=(",", ":"))
        with open(os.path.join(out, f"{name}.json"), "w", encoding="utf-8") as f:
            f.write(body)
        print(f"{name}.json {len(body)} bytes")


if __name__ == "__main__":
    main()
