"""Shared by the chart suite's Python tests (on test/harness): Offline(work).run(argv), a run()
with no cluster and Helm's homes under work; Chart(helm, chart, work).template(...), `helm template`
parsed strictly (a duplicate mapping key is an error, as in strict Kubernetes parsers; PyYAML would
keep the last one silently); StrictLoader; is_hook(doc)."""
import os
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import fail, run  # noqa: E402


class Offline:
    def __init__(self, work):
        self.work = work
        os.makedirs(work, exist_ok=True)

    def run(self, argv, expect_ok=True, stdin=None):
        """(code, stdout, stderr); a non-zero exit fails the test when expect_ok."""
        env = dict(os.environ, KUBECONFIG=os.devnull, HELM_CACHE_HOME=os.path.join(self.work, "helm-cache"),
                   HELM_CONFIG_HOME=os.path.join(self.work, "helm-config"),
                   HELM_DATA_HOME=os.path.join(self.work, "helm-data"))
        return run(argv, stdin=stdin, timeout=120, check=expect_ok, env=env)


class Chart(Offline):
    def __init__(self, helm, chart, work):
        super().__init__(work)
        self.helm, self.chart = helm, chart

    def template(self, *values_files, sets=(), release="rayjob-guard", namespace="rayjob-guard",
                 expect_ok=True, extra=()):
        """The rendered objects (strictly parsed), or (code, stdout, stderr) when expect_ok is False."""
        argv = [self.helm, "template", release, self.chart, "--namespace", namespace, *extra]
        for v in values_files:
            argv += ["-f", v]
        for s in sets:
            argv += ["--set", s]
        result = self.run(argv, expect_ok)
        if not expect_ok:
            return result
        try:
            return [d for d in yaml.load_all(result[1], Loader=StrictLoader) if d]
        except yaml.YAMLError as e:
            fail(f"helm template {' '.join(values_files)} {' '.join(sets)}: not strict YAML: {e}")


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
