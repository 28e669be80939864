"""A small Kubernetes API client for the lifecycle suite (stdlib only): the token and CA of a
kubeconfig as cluster.sh writes them, JSON requests, and a watch stream. Every request has a
timeout; errors raise KubeError with the status and the apiserver's message."""

import json
import ssl
import http.client
import urllib.parse

import yaml


class KubeError(Exception):
    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status


class Kube:
    def __init__(self, kubeconfig, timeout=30):
        with open(kubeconfig) as f:
            cfg = yaml.safe_load(f)
        ctx_name = cfg["current-context"]
        ctx = next(c["context"] for c in cfg["contexts"] if c["name"] == ctx_name)
        cluster = next(c["cluster"] for c in cfg["clusters"] if c["name"] == ctx["cluster"])
        user = next(u["user"] for u in cfg["users"] if u["name"] == ctx["user"])
        url = urllib.parse.urlparse(cluster["server"])
        self.host, self.port = url.hostname, url.port or 443
        self.token = user["token"]
        self.ssl = ssl.create_default_context(cafile=cluster["certificate-authority"])
        self.timeout = timeout

    def _conn(self, timeout=None):
        return http.client.HTTPSConnection(self.host, self.port, context=self.ssl,
                                           timeout=timeout or self.timeout)

    def request(self, method, path, body=None, content_type="application/json", ok404=False):
        conn = self._conn()
        try:
            headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = content_type
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            if resp.status == 404 and ok404:
                return None
            if resp.status >= 300:
                try:
                    msg = json.loads(raw).get("message", raw[:300])
                except ValueError:
                    msg = raw[:300]
                raise KubeError(resp.status, f"{method} {path}: {msg}")
            return json.loads(raw) if raw else None
        finally:
            conn.close()

    def get(self, path, ok404=False):
        return self.request("GET", path, ok404=ok404)

    def merge_patch(self, path, body, ok404=True):
        return self.request("PATCH", path, body, "application/merge-patch+json", ok404=ok404)

    def delete(self, path, ok404=True):
        return self.request("DELETE", path, ok404=ok404)

    def watch(self, path, resource_version, timeout_seconds=60):
        """Yields (type, object) from a watch that the server ends after timeout_seconds."""
        sep = "&" if "?" in path else "?"
        q = f"{path}{sep}watch=1&allowWatchBookmarks=false&timeoutSeconds={timeout_seconds}"
        if resource_version:
            q += f"&resourceVersion={resource_version}"
        conn = self._conn(timeout=timeout_seconds + 15)
        try:
            conn.request("GET", q, headers={"Authorization": f"Bearer {self.token}"})
            resp = conn.getresponse()
            if resp.status != 200:
                raise KubeError(resp.status, f"watch {path}: {resp.read()[:300]}")
            while True:
                line = resp.readline()
                if not line:
                    return
                ev = json.loads(line)
                yield ev["type"], ev["object"]
        finally:
            conn.close()
