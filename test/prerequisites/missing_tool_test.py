#!/usr/bin/env python3
"""A missing tool fails its suite; it never turns into a skip or a pass.

Each row runs one suite's entry point with PATH replaced by a directory that holds every program
of the real PATH but the hidden one, and expects exit status 1 or 2 (not 0, not 77) and the
tool's name in what the suite printed. The entry points check their tools before they build or
start anything, so a row costs a second or two (the server rows start one server).

usage: missing_tool_test.py --source-dir REPO --binary BUILD/rayjob-guard --work DIR
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, need, run  # noqa: E402

# The Debian Python has PyYAML and boto3 (scripts/install-deps.sh), which the suites import.
DEBIAN_PYTHON = "/usr/bin/python3"


def shadow_path(work, hidden):
    """A directory of symlinks to every program on PATH except those named in `hidden`."""
    d = os.path.join(work, "path-without-" + "-".join(sorted(hidden)))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isdir(entry):
            continue
        for name in sorted(os.listdir(entry)):
            src = os.path.join(entry, name)
            dst = os.path.join(d, name)
            if name in hidden or os.path.lexists(dst):
                continue
            if os.path.isfile(src) and os.access(src, os.X_OK):
                os.symlink(src, dst)
    return d


def rows(repo, binary, work):
    """(suite, hidden tool, argv). Interpreters are absolute paths, so hiding a tool never hides
    the interpreter that runs the suite."""
    py = sys.executable
    t = os.path.join(repo, "test")
    return [
        ("server_e2e (promtool check metrics)", "promtool",
         [py, f"{t}/server/server_e2e.py", "--binary", binary, "--source-dir", repo, "basics"]),
        ("server_e2e (wrk under rotation)", "wrk",
         [py, f"{t}/server/server_e2e.py", "--binary", binary, "--source-dir", repo, "rotation"]),
        ("hardening.fairness", "wrk",
         [py, f"{t}/hardening/fairness_load.py", "--binary", binary, "--source-dir", repo]),
        ("hardening.tls_scan", "testssl", [f"{t}/hardening/tls_scan.sh", "--binary", binary]),
        ("hardening.tls_scan", "sslscan", [f"{t}/hardening/tls_scan.sh", "--binary", binary]),
        ("chart.alerts", "promtool",
         [DEBIAN_PYTHON, f"{t}/chart/alerts_test.py", repo, "helm-not-needed", binary,
          os.path.join(work, "alerts")]),
        ("ship.manifests", "kubectl", [DEBIAN_PYTHON, f"{t}/ship/manifests_test.py", repo, "kubectl"]),
        ("ship.inject_cabundle", "kubectl",
         [f"{t}/ship/inject_cabundle_test.sh", repo, os.path.join(work, "inject"), "kubectl"]),
        ("ship.image", "podman", [f"{t}/ship/image_test.sh", repo, os.path.join(work, "image")]),
        ("fuzz.build", "clang++",
         [f"{t}/fuzz/run-fuzzers.sh", "build", "--build-dir", os.path.join(work, "fuzz")]),
        ("identity (every test)", "curl",
         [f"{t}/identity/run.sh", "botocore_matrix_test.py", repo, os.path.join(work, "identity")]),
        ("lifecycle groups", "jq",
         [DEBIAN_PYTHON, f"{t}/lifecycle/lifecycle_test.py", "v16", "--binary", binary]),
        ("bench.instructions", "valgrind",
         [f"{repo}/bench/instructions.sh", "--binary", os.path.join(work, "no-benchmark")]),
        ("lifecycle.acceptance", "unshare",
         [DEBIAN_PYTHON, f"{t}/lifecycle/acceptance_test.py", "--binary", binary]),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    repo, binary, work = (os.path.abspath(p) for p in (args.source_dir, args.binary, args.work))
    os.makedirs(work, exist_ok=True)
    failures = []
    table = rows(repo, binary, work)
    for suite, tool, _ in table:
        need(tool, f"the row of {suite} hides it from PATH, so it must be there to begin with")
    for suite, tool, argv in table:
        env = dict(os.environ, PATH=shadow_path(work, {tool}))
        # A suite still running after 120 s did not stop at its check: run() fails the test.
        code, out, err = run(argv, env=env, timeout=120, stdin="")
        said = (out + err).strip()
        last = said.splitlines()[-1] if said else "(nothing)"
        if code in (1, 2) and tool in said:
            print(f"ok   {suite} without {tool}: exit {code}: {last}")
        else:
            failures.append(f"{suite} without {tool}: exit {code} (want 1 or 2, naming {tool}); "
                            f"it said: {said[-600:]}")
    for f in failures:
        print(f"FAIL {f}")
    print(f"{len(table) - len(failures)}/{len(table)} rows: a hidden tool failed its suite")
    check(not failures, f"{len(failures)} of {len(table)} suites did not fail without their tool (above)")


if __name__ == "__main__":
    main()
