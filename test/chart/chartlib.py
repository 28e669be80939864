"""Shared by the chart suite's Python tests: checks that count, Helm run offline with its own
directories, `helm template` parsed strictly (a duplicate mapping key is an error, as in strict
Kubernetes parsers; PyYAML would keep the last one silently)."""
import os
import subprocess
import sys

import yaml


class Suite:
    def __init__(self, helm, chart, work):
        self.helm, self.chart, self.work, self.checks = helm, chart, work, 0
        os.makedirs(work, exist_ok=True)

    def fail(self, msg):
        print(f"FAIL: {msg}", file=sys.stderr)
        sys.exit(1)

    def ok(self, cond, what):
        if not cond:
            self.fail(what)
        self.checks += 1

    def run(self, argv, expect_ok=True, stdin=None):
        env = dict(os.environ, KUBECONFIG=os.devnull, HELM_CACHE_HOME=os.path.join(self.work, "helm-cache"),
                   HELM_CONFIG_HOME=os.path.join(self.work, "helm-config"),
                   HELM_DATA_HOME=os.path.join(self.work, "helm-data"))
        r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, input=stdin)
        if expect_ok and r.returncode != 0:
            self.fail(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
        return r

    def template(self, *values_files, sets=(), release="rayjob-guard", namespace="rayjob-guard",
                 expect_ok=True, extra=()):
        """The rendered objects (strictly parsed), or the CompletedProcess when expect_ok is False."""
        argv = [self.helm, "template", release, self.chart, "--namespace", namespace, *extra]
        for v in values_files:
            argv += ["-f", v]
        for s in sets:
            argv += ["--set", s]
        r = self.run(argv, expect_ok)
        if not expect_ok:
            return r
        try:
            return [d for d in yaml.load_all(r.stdout, Loader=StrictLoader) if d]
        except yaml.YAMLError as e:
            self.fail(f"helm template {' '.join(values_files)} {' '.join(sets)}: not strict YAML: {e}")


class StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses duplicate mapping keys."""


def _mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return yaml.SafeLoader.construct_mapping(loader, node, deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                             lambda loader, node: loader.construct_mapping(node))
StrictLoader.construct_mapping = _mapping


def is_hook(doc):
    return "helm.sh/hook" in ((doc.get("metadata") or {}).get("annotations") or {})
