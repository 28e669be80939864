#!/usr/bin/env python3
"""values.py against the shipped manifests/kuberay/values.yaml: the flags it derives, a Helm
override that loses a gate, and operators started with flags or an environment that disagree.
usage: values_test.py REPO_ROOT"""

import os
import shutil
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, ".."))
from harness import check, run, start, stop  # noqa: E402
import values  # noqa: E402

repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..")
shipped = os.path.join(repo, "manifests", "kuberay", "values.yaml")
gate_off = os.path.join(here, "values", "gate-off.yaml")
op_deletes = os.path.join(here, "values", "operator-deletes.yaml")
tmp = tempfile.mkdtemp(prefix="rjg-values-test.")


def write(name, text):
    p = os.path.join(tmp, name)
    with open(p, "w") as f:
        f.write(text)
    return p


lost = write("lost.yaml", "featureGates:\n  - {name: RayJobDeletionPolicy, enabled: true}\n")
bad = write("bad.yaml", "featureGates:\n  - {name: RayJobDeletionPolicy, enabled: \"yes\"}\n")
BOTH = "--feature-gates=RayClusterStatusConditions=true,RayJobDeletionPolicy=true"
OFF = "--feature-gates=RayClusterStatusConditions=true,RayJobDeletionPolicy=false"

# (name, values files, operator argv, operator environment, expected problem substrings or [])
CASES = [
    ("shipped file, matching operator", [shipped], ["ray-operator", BOTH], {}, []),
    ("gate-off override, matching", [shipped, gate_off], ["ray-operator", OFF], {}, []),
    ("env override, matching", [shipped, op_deletes], ["ray-operator", BOTH],
     {"DELETE_RAYJOB_CR_AFTER_JOB_FINISHES": "true"}, []),
    ("operator without the flag", [shipped], ["ray-operator"], {},
     ["the operator runs with (no --feature-gates)"]),
    ("operator missing a gate", [shipped],
     ["ray-operator", "--feature-gates=RayJobDeletionPolicy=true"], {},
     ["the values give " + BOTH]),
    ("override replaced the list and lost a gate", [shipped, lost],
     ["ray-operator", "--feature-gates=RayJobDeletionPolicy=true"], {},
     ["no longer states RayClusterStatusConditions"]),
    ("env set but not in the values", [shipped], ["ray-operator", BOTH],
     {"DELETE_RAYJOB_CR_AFTER_JOB_FINISHES": "true"},
     ["environment DELETE_RAYJOB_CR_AFTER_JOB_FINISHES: the values give None"]),
    ("env in the values but not set", [shipped, op_deletes], ["ray-operator", BOTH], {},
     ["the values give 'true', the operator runs with None"]),
]

failed = 0
for name, files, argv, environ, want in CASES:
    got = values.compare(files, argv, environ)
    ok = (not want and not got) or (want and all(any(w in g for g in got) for w in want))
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {got or 'agree'}")
    failed += not ok

# The shipped file must state both gates the lifecycle modes rely on, switched on.
flags, env, problems = values.derive([shipped])
ok = flags == [BOTH] and env == {} and problems == []
print(f"{'ok  ' if ok else 'FAIL'} shipped file derives {flags} {env} {problems}")
failed += not ok

# Bad input: a clear error, exit 2.
code, _, err = run([sys.executable, os.path.join(here, "values.py"), "flags", "-f", shipped, "-f", bad])
ok = code == 2 and "featureGates[0] must be {name: <string>, enabled: <bool>}" in err
print(f"{'ok  ' if ok else 'FAIL'} bad enabled value: exit {code} {err.strip()}")
failed += not ok

# check --pid against a real process started with the derived flags and environment.
p = start([sys.executable, "-c", "import time; time.sleep(30)", BOTH], os.path.join(tmp, "operator.log"),
          env={"DELETE_RAYJOB_CR_AFTER_JOB_FINISHES": "true"})
try:
    code, out, err = run([sys.executable, os.path.join(here, "values.py"), "check", "-f", shipped,
                          "-f", op_deletes, "--pid", str(p.pid)])
    ok = code == 0
    print(f"{'ok  ' if ok else 'FAIL'} check --pid agrees: exit {code} {out.strip()} {err.strip()}")
    failed += not ok
    code, _, err = run([sys.executable, os.path.join(here, "values.py"), "check", "-f", shipped,
                        "--pid", str(p.pid)])
    ok = code == 1 and "DELETE_RAYJOB_CR_AFTER_JOB_FINISHES" in err
    print(f"{'ok  ' if ok else 'FAIL'} check --pid disagrees: exit {code} {err.strip()}")
    failed += not ok
finally:
    stop(p)
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{failed} failed")
check(failed == 0, f"{failed} of the values.py checks above failed")
