"""A throwaway control plane from test/e2e/cluster.sh, and its webhook from test/e2e/webhook.sh.

Cluster(dir, script_env=None): the cluster in dir (state, kubeconfigs and the env file that
  cluster.sh writes there); script_env is added to the environment of every script it runs.
  .env                     dir/env as a dict (KUBECTL, KUBE_VERSION, APISERVER_URL, APISERVER_CA,
                           APISERVER_PORT, CRD_KIND, CRD_FILES, ...), read again by up()
  .up(*flags, env=None, check=True) -> the exit status of `cluster.sh up DIR FLAGS`
                           (--controller-manager, --scheduler), as .script()
  .script(name, cmd, *args, env=None, timeout=900, check=True) -> the exit status of
                           `test/e2e/NAME CMD DIR ARGS`, its output shown (the scripts log to
                           stderr); a non-zero exit fails the test when check, naming the script
  .down() -> bool          webhook.sh down (when the cluster got as far as its env file), then
                           cluster.sh down: everything both started in dir, by PID; True when
                           both succeeded; safe after a failed up, and twice
  .kubectl(*args, who="admin", stdin=None, cwd=None, check=False, timeout=180)
                           -> a Completed (code, stdout, stderr) as identity `who`
                           (dir/WHO.kubeconfig: admin, notebook, api), without kubectl's
                           client/server skew warning
read_env(path) -> {KEY: VALUE} of a KEY=VALUE file ({} when there is none).
"""
import os
import re
import sys

from .checks import fail
from .procs import Completed, command_line, run

E2E = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e")
# kubectl newer than the server by more than one minor may print this; it says nothing of a test.
SKEW = re.compile(r"^WARNING: version difference between client .*\n", re.M)


def read_env(path):
    env = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                key, eq, value = line.rstrip("\n").partition("=")
                if eq and not key.startswith("#"):
                    env[key] = value
    return env


class Cluster:
    def __init__(self, dir, script_env=None):
        self.dir = os.path.abspath(dir)
        self.script_env = dict(script_env or {})
        self.env = read_env(os.path.join(self.dir, "env"))

    def script(self, name, cmd, *args, env=None, timeout=900, check=True):
        argv = [os.path.join(E2E, name), cmd, self.dir, *map(str, args)]
        code, out, err = run(argv, timeout=timeout,
                             env={**os.environ, **self.script_env, **(env or {})})
        sys.stderr.write(out + err)
        if check and code != 0:
            fail(f"{command_line(argv)}: exit {code} (its log is above)")
        return code

    def up(self, *flags, env=None, check=True):
        code = self.script("cluster.sh", "up", *flags, env=env, check=check)
        self.env = read_env(os.path.join(self.dir, "env"))
        return code

    def down(self):
        webhook = 0
        if os.path.exists(os.path.join(self.dir, "env")):
            webhook = self.script("webhook.sh", "down", timeout=120, check=False)
        return self.script("cluster.sh", "down", timeout=120, check=False) == 0 and webhook == 0

    def kubectl(self, *args, who="admin", stdin=None, cwd=None, check=False, timeout=180):
        kubeconfig = os.path.join(self.dir, f"{who}.kubeconfig")
        argv = [self.env.get("KUBECTL", "kubectl"), "--kubeconfig", kubeconfig, *args]
        code, out, err = run(argv, stdin=stdin, cwd=cwd, timeout=timeout)
        err = SKEW.sub("", err)
        if check and code != 0:
            fail(f"kubectl {' '.join(args)} as {who}: exit {code}: {err.strip()}")
        return Completed(code, out, err)
