#!/usr/bin/env python3
"""CLI tests for rayjob-guard review/check/policy: exit codes, exact output, round trips.

Usage: cli_test.py --binary BIN --golden DIR --corpus DIR TEST_NAME
Each test runs the real binary; the first mismatch prints FAIL and the process exits 1.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, fail, need, run  # noqa: E402

ARGS = None


def rjg(*argv, stdin=None, **kwargs):
    """The binary run with argv: (exit code, stdout bytes, stderr bytes)."""
    return run([ARGS.binary, *argv], stdin=stdin, text=False, **kwargs)


def corpus(name):
    return os.path.join(ARGS.corpus, name)


def expect_of(path):
    with open(path) as f:
        return f.readline().strip()


def pick_corpus(allowed):
    for name in sorted(os.listdir(ARGS.corpus)):
        line = expect_of(corpus(name))
        if allowed and line == "# expect: allowed":
            return corpus(name)
        if not allowed and line.startswith("# expect: denied "):
            return corpus(name)
    fail("no suitable corpus file")


def test_review_matches_golden():
    cases = sorted(os.listdir(ARGS.golden))
    check(len(cases) >= 12, "fewer than 12 golden cases")
    for case in cases:
        d = os.path.join(ARGS.golden, case)
        argv = ["review"]
        if os.path.exists(os.path.join(d, "policy.yaml")):
            argv += ["--policy", os.path.join(d, "policy.yaml")]
        code, out, err = rjg(*argv, os.path.join(d, "request.json"))
        check(code == 0, f"{case}: exit {code}, stderr {err!r}")
        with open(os.path.join(d, "expected.json"), "rb") as f:
            expected = f.read()
        check(out == expected, f"{case}: output differs from expected.json\n{out!r}\n{expected!r}")
    # stdin form
    d = os.path.join(ARGS.golden, "allow-compliant")
    with open(os.path.join(d, "request.json"), "rb") as f:
        code, out, _ = rjg("review", "-", stdin=f.read())
    with open(os.path.join(d, "expected.json"), "rb") as f:
        check(code == 0 and out == f.read(), "review - (stdin) differs")


def test_review_bad_input():
    for body, needle in [(b"not json", b"not valid JSON"),
                         (b'{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{}}',
                          b"v1beta1"),
                         (b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":5}}',
                          b"request.uid")]:
        code, out, err = rjg("review", stdin=body)
        check(code == 2, f"exit {code} for {body!r}")
        check(out == b"", f"stdout not empty: {out!r}")
        check(err.count(b"\n") == 1 and needle in err, f"stderr {err!r}")
    code, _, err = rjg("review", "no-such-file.json")
    check(code == 2 and b"cannot be read" in err, f"missing file: {code} {err!r}")


def test_review_bad_policy():
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("apiVersion: rayjob-guard.io/v1\nkind: Policy\nlifecycle: {maxBackoffLimit: many}\n")
    try:
        code, _, err = rjg("review", "--policy", f.name,
                           os.path.join(ARGS.golden, "allow-compliant", "request.json"))
        check(code == 2 and b"lifecycle.maxBackoffLimit" in err, f"{code} {err!r}")
    finally:
        os.unlink(f.name)


def test_check_exit_codes():
    ok, denied = pick_corpus(True), pick_corpus(False)
    code, out, err = rjg("check", ok)
    check(code == 0, f"allowed manifest: exit {code} {out!r} {err!r}")
    check(b" allowed\n" in out and b"rayjob.ray.io/" in out, f"text output {out!r}")
    code, out, err = rjg("check", ok, denied)
    check(code == 1, f"denied manifest: exit {code} {err!r}")
    check(b") denied:\n  [" in out, f"denied text {out!r}")
    code, out, err = rjg("check", ok, "no-such-file.yaml")
    check(code == 2 and b"no-such-file.yaml: cannot be read" in err, f"missing: {code} {err!r}")
    code, out, err = rjg("check")
    check(code == 2, "no file must be bad input")


def test_check_yaml_error():
    code, out, err = rjg("check", "-", stdin=b"apiVersion: ray.io/v1\nkind: RayJob\nspec: [unclosed\n")
    check(code == 2 and b"line " in err and b"column " in err, f"{code} {err!r}")


def test_check_empty_input():
    # A tenant's CI must not pass on a file that holds nothing to check.
    for text in (b"", b"# only a comment\n", b"\n\n---\n# c\n"):
        code, out, err = rjg("check", "-", stdin=text)
        check(code == 2 and b"no objects" in err and b"--allow-empty" in err,
               f"{text!r}: {code} {err!r}")
        check(out == b"", f"{text!r}: stdout {out!r}")
        code, out, err = rjg("check", "--allow-empty", "-", stdin=text)
        check(code == 0 and err == b"", f"--allow-empty {text!r}: {code} {err!r}")


def test_check_no_metadata():
    manifest = b"apiVersion: ray.io/v1\nkind: RayJob\nspec: {}\n"
    code, out, err = rjg("check", "-", stdin=manifest)
    check(code == 1, f"exit {code} {err!r}")
    check(b"note: - document 1: no metadata: judged under an empty name" in out, f"{out!r}")
    code, out, _ = rjg("check", "-o", "json", "-", stdin=manifest)
    results = json.loads(out)
    check(results[0].get("remark", "").startswith("no metadata"), f"{results!r}")
    named = b"apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: a}\nspec: {}\n"
    code, out, _ = rjg("check", "-", stdin=named)
    check(b"note:" not in out, f"a named RayJob gets no remark: {out!r}")


def test_check_deep_nesting():
    # 100k levels: refused quickly, in linear time, with a message that names the limit.
    for text in (b"a: " + b"[" * 100000 + b"]" * 100000 + b"\n",
                 b"".join(b"  " * i + b"k:\n" for i in range(2000))):
        started = time.monotonic()
        code, _, err = rjg("check", "-", stdin=text)
        took = time.monotonic() - started
        check(code == 2 and b"nesting deeper than 64 levels (the limit)" in err,
               f"{code} {err[:200]!r}")
        # Not a timing assertion on the machine: 10 s only separates linear from the old 38 s.
        check(took < 10, f"took {took:.1f} s")


LIMIT = 7 * 1024 * 1024  # rjg::kMaxInputBytes (common/file.hpp)
LIMIT_TEXT = b"larger than the input limit of 7340032 bytes (7 MiB)"


def run_as_nobody_if_root(*argv):
    """Runs the binary as uid/gid 65534 when the test runs as root (root reads any file)."""
    kwargs = {}
    if os.geteuid() == 0:
        kwargs = {"user": 65534, "group": 65534, "extra_groups": []}
    return rjg(*argv, **kwargs)


def test_check_unreadable_input():
    # --allow-empty accepts a file with nothing in it, never a path that cannot be read.
    with tempfile.TemporaryDirectory() as d:
        regular = os.path.join(d, "job.yaml")
        with open(regular, "wb") as f:
            f.write(open(pick_corpus(True), "rb").read())
        cases = [(d, b"Is a directory"),
                 (os.path.join(d, "missing.yaml"), b"No such file or directory"),
                 (os.path.join(regular, "x.yaml"), b"Not a directory"),
                 ("/proc/self/mem", b"read error")]  # opens, then read() fails part way
        for path, reason in cases:
            for flags in ([], ["--allow-empty"], ["--allow-empty", "-o", "json"]):
                code, out, err = rjg("check", *flags, path)
                check(code == 2, f"{flags} {path}: exit {code} {err!r}")
                check(path.encode() in err and reason in err, f"{flags} {path}: {err!r}")
            # With a good file next to it: the good one is checked, the exit is still 2.
            code, out, err = rjg("check", "--allow-empty", regular, path)
            check(code == 2 and b" allowed\n" in out and reason in err, f"{path}: {code} {err!r}")
        # A permission error (run unprivileged: root reads any file).
        os.chmod(d, 0o755)
        secret = os.path.join(d, "secret.yaml")
        with open(secret, "wb") as f:
            f.write(b"")
        os.chmod(secret, 0)
        code, _, err = run_as_nobody_if_root("check", "--allow-empty", secret)
        check(code == 2 and b"Permission denied" in err and secret.encode() in err,
               f"permission: {code} {err!r}")
        code, _, err = run_as_nobody_if_root("review", secret)
        check(code == 2 and b"Permission denied" in err, f"review permission: {code} {err!r}")


def test_input_size_limit():
    # One limit for every input path (rjg::kMaxInputBytes, the webhook's body limit), enforced
    # while reading: a file, stdin, a policy, a review, a kubeconfig.
    with tempfile.TemporaryDirectory() as d:
        at_limit = os.path.join(d, "at-limit.yaml")
        over = os.path.join(d, "over.yaml")
        # Comments only: at the limit the file is read, and it holds no object.
        line = b"#" * 1023 + b"\n"
        with open(at_limit, "wb") as f:
            f.write(line * (LIMIT // 1024))
        with open(over, "wb") as f:
            f.write(line * (LIMIT // 1024) + b"\n")
        code, _, err = rjg("check", "--allow-empty", at_limit)
        check(code == 0, f"a file of exactly the limit is read: {code} {err!r}")
        for argv in (["check", over], ["check", "--allow-empty", over], ["review", over],
                     ["policy", "validate", over], ["check", "--policy", over, at_limit],
                     ["audit", "-A", "--kubeconfig", over]):
            code, out, err = rjg(*argv)
            check(code == 2, f"{argv}: exit {code}")
            check(over.encode() + b": " + LIMIT_TEXT in err, f"{argv}: {err!r}")
        code, _, err = rjg("check", "-", stdin=line * (LIMIT // 1024) + b"\n")
        check(code == 2 and b"stdin: " + LIMIT_TEXT in err, f"stdin: {code} {err!r}")
        # An endless input stops at the limit instead of being read to the end.
        for argv in (["check", "-"], ["check", "--allow-empty", "-"], ["review", "-"],
                     ["policy", "validate", "-"]):
            with open("/dev/zero", "rb") as zero:
                proc = subprocess.run([ARGS.binary, *argv], stdin=zero, capture_output=True,
                                      timeout=60)
            check(proc.returncode == 2 and b"stdin: " + LIMIT_TEXT in proc.stderr,
                   f"{argv} < /dev/zero: {proc.returncode} {proc.stderr!r}")
        for argv in (["check", "/dev/zero"], ["review", "/dev/zero"]):
            code, _, err = rjg(*argv)
            check(code == 2 and b"/dev/zero: " + LIMIT_TEXT in err, f"{argv}: {code} {err!r}")


def test_check_line_numbers_of_later_documents():
    # Each document is read alone; lines in messages are still the file's.
    filler = b"".join(b"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n" % i
                      for i in range(50))
    bad = b"---\napiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  a: &x 1\n  b: *y\n"
    code, _, err = rjg("check", "-", stdin=filler + bad)
    check(code == 2 and b"line 206, column 6" in err, f"{code} {err!r}")
    code, out, _ = rjg("check", "-o", "json", "-", stdin=filler + b"---\n" + open(pick_corpus(True), "rb").read())
    results = json.loads(out)
    check(code == 0 and results[-1]["line"] >= 202 and results[49]["line"] == 198,
           f"lines {[r['line'] for r in results[-2:]]}")


def test_flag_grammar():
    # One parser for every command: --flag VALUE and --flag=VALUE, and one error wording.
    req = os.path.join(ARGS.golden, "allow-compliant", "request.json")
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("apiVersion: rayjob-guard.io/v1\nkind: Policy\n")
    try:
        for argv in (["review", "--policy", f.name, req], ["review", "--policy=" + f.name, req]):
            code, _, err = rjg(*argv)
            check(code == 0, f"{argv}: {code} {err!r}")
        for cmd in ("review", "check", "reap", "serve"):
            code, _, err = rjg(cmd, "--no-such-flag")
            check(code == 2 and b"unknown option '--no-such-flag'" in err, f"{cmd}: {code} {err!r}")
            code, _, err = rjg(cmd, "--policy")
            check(code == 2 and b"--policy needs a value" in err, f"{cmd} --policy: {code} {err!r}")
        # reap used to refuse --policy=FILE; it reaches its next check now (no namespace given).
        code, _, err = rjg("reap", "--policy=" + f.name)
        check(code == 2 and b"choose exactly one of --namespace" in err, f"reap: {code} {err!r}")
    finally:
        os.unlink(f.name)


def test_check_json_output():
    ok, denied = pick_corpus(True), pick_corpus(False)
    code, out, err = rjg("check", "--output", "json", ok, denied)
    check(code == 1, f"exit {code} {err!r}")
    results = json.loads(out)
    check(isinstance(results, list) and len(results) >= 2, f"{results!r}")
    rayjobs = [r for r in results if not r["skipped"]]
    check(any(r["allowed"] for r in rayjobs) and any(not r["allowed"] for r in rayjobs), "verdicts")
    for r in rayjobs:
        for d in r["denials"]:
            check(d["text"].startswith("[" + d["rule"] + "] "), f"text {d!r}")
    code, _, err = rjg("check", "--output", "xml", ok)
    check(code == 2, "bad --output must be exit 2")


def test_check_ci_reports():
    """-o junit and -o sarif carry exactly what -o json says, for the whole corpus, and parse
    even when a name holds characters XML cannot carry."""
    import xml.etree.ElementTree as ET
    files = [corpus(n) for n in sorted(os.listdir(ARGS.corpus)) if n.endswith(".yaml")]
    code_json, out, _ = rjg("check", "-o", "json", *files)
    results = json.loads(out)
    code_junit, junit, err = rjg("check", "-o", "junit", *files)
    code_sarif, sarif, err2 = rjg("check", "-o", "sarif", *files)
    check(code_json == code_junit == code_sarif == 1, f"exit {code_json} {code_junit} {code_sarif}")
    root = ET.fromstring(junit)
    rayjobs = [r for r in results if not r["skipped"]]
    denied = [r for r in rayjobs if not r["allowed"]]
    check(root.tag == "testsuites" and int(root.get("tests")) == len(results), f"{root.attrib}")
    check(int(root.get("failures")) == len(denied) and
           int(root.get("skipped")) == len(results) - len(rayjobs), f"{root.attrib}")
    suites = root.findall("testsuite")
    check([s.get("name") for s in suites] == files, "one testsuite per file, in order")
    failures = [c for s in suites for c in s.findall("testcase") if c.find("failure") is not None]
    check(len(failures) == len(denied), f"{len(failures)} failures for {len(denied)} denied")
    for case, r in zip(failures, denied):
        text = case.find("failure").text
        check(all(d["text"] in text for d in r["denials"]), f"{case.get('name')}: {text!r}")
    doc = json.loads(sarif)
    check(doc["version"] == "2.1.0" and len(doc["runs"]) == 1, "one SARIF 2.1.0 run")
    run0 = doc["runs"][0]
    rule_ids = {r["id"] for r in run0["tool"]["driver"]["rules"]}
    want = [(f["rule"], "error") for r in rayjobs for f in r["denials"]]
    want += [(f["rule"], "note" if f["kind"] == "advisory" else "warning")
             for r in rayjobs for f in r["warnings"]]
    got = [(x["ruleId"], x["level"]) for x in run0["results"]]
    check(sorted(got) == sorted(want), "one SARIF result per finding, with its level")
    for x in run0["results"]:
        loc = x["locations"][0]["physicalLocation"]
        check(x["ruleId"] in rule_ids and loc["artifactLocation"]["uri"] in files and
               loc["region"]["startLine"] >= 1, f"{x!r}")
    # A name with ESC, BEL and U+0001 (none of which XML 1.0 can carry) next to XML markup.
    manifest = (b"apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: \"a<b>&\\e\\a\\x01\", "
                b"namespace: tenant-a}\nspec: {entrypoint: x}\n")
    code, junit, err = rjg("check", "-o", "junit", "-", stdin=manifest)
    case = ET.fromstring(junit).find("testsuite/testcase")
    check(code == 1 and case.get("name") == "RayJob/a<b>&\ufffd\ufffd\ufffd (document 1)",
           f"{code} {junit!r}")


# A RayJob whose every finding has a literal fix, next to a ConfigMap.
FIXABLE = b"""apiVersion: ray.io/v1
kind: RayJob
metadata: {name: fixme, namespace: tenant-a}
spec:
  entrypoint: python x.py
  backoffLimit: 9
  shutdownAfterJobFinishes: true
  ttlSecondsAfterFinished: 60
  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.52.0
            resources: {requests: {cpu: "1", memory: 2Gi}, limits: {cpu: "1", memory: 2Gi}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: code, namespace: tenant-a}
data: {x.py: "print(1)"}
"""


def test_check_fix():
    # A RayJob whose every finding has a literal fix, next to a ConfigMap: --fix prints both
    # documents, the RayJob fixed, and exits 0; checking the output admits it.
    manifest = FIXABLE
    code, out, err = rjg("check", "-", stdin=manifest)
    check(code == 1, f"the manifest must be denied first: {code} {out!r}")
    code, fixed, err = rjg("check", "--fix", "-", stdin=manifest)
    check(code == 0 and err == b"", f"--fix: {code} {err!r}")
    docs = [json.loads(d) for d in fixed.decode().split("---\n") if d.strip()]
    check([d["kind"] for d in docs] == ["RayJob", "ConfigMap"], f"{fixed!r}")
    spec = docs[0]["spec"]
    check(spec["backoffLimit"] == 2 and spec["activeDeadlineSeconds"] == 86400, f"{spec!r}")
    check(spec["shutdownAfterJobFinishes"] is False and "ttlSecondsAfterFinished" not in spec, f"{spec!r}")
    check(docs[1] == {"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": "code", "namespace": "tenant-a"}, "data": {"x.py": "print(1)"}},
           f"the ConfigMap must be unchanged: {docs[1]!r}")
    code, out, err = rjg("check", "-", stdin=fixed)
    check(code == 0, f"the fixed manifest must be admitted: {code} {out!r}")
    # In -o json each finding carries its kind and fix.
    code, out, _ = rjg("check", "-o", "json", "-", stdin=manifest)
    denials = json.loads(out)[0]["denials"]
    deadline = [d for d in denials if d["rule"] == "active-deadline"][0]
    check(deadline["kind"] == "violation" and
           deadline["fix"] == [{"op": "set", "field": "spec.activeDeadlineSeconds", "value": 86400}],
           f"{deadline!r}")
    # A finding with no literal fix is named on stderr and the exit is 1.
    unpinned = manifest.replace(b"rayproject/ray:2.52.0", b"example.com/ray:2.52.0")
    code, fixed, err = rjg("check", "--fix", "-", stdin=unpinned)
    check(code == 1 and b"yours to change: [image-contract]" in err, f"{code} {err!r}")
    # suspend is never removed by a fix: whoever queues the RayJob sets it again. Suspended with no
    # queue label, in deletionRules mode, the choice is the tenant's: --fix keeps suspend and says so.
    suspended = manifest.replace(b"  backoffLimit: 9\n", b"  backoffLimit: 9\n  suspend: true\n")
    code, fixed, err = rjg("check", "--fix", "-", stdin=suspended)
    check(code == 1 and json.loads(fixed.decode().split("---\n")[1])["spec"].get("suspend") is True
           and b"yours to change: [reap-self]" in err and b"remove suspend" in err,
           f"suspend: {code} {err!r}")
    # Labelled for Kueue, it is judged by kueue.lifecycleMode (reaper): --fix prints the form that
    # Kueue and KubeRay both accept, suspend kept, and checking it admits it.
    queued = suspended.replace(
        b"metadata: {name: fixme, namespace: tenant-a}",
        b"metadata: {name: fixme, namespace: tenant-a, labels: {kueue.x-k8s.io/queue-name: team-a}}")
    code, fixed, err = rjg("check", "--fix", "-", stdin=queued)
    doc = json.loads(fixed.decode().split("---\n")[1])
    spec, annotations = doc["spec"], doc["metadata"].get("annotations", {})
    check(code == 0 and spec.get("suspend") is True and spec.get("shutdownAfterJobFinishes") is True
           and "deletionStrategy" not in spec
           and annotations.get("rayjob-guard.io/ttl-after-success") == "600"
           and annotations.get("rayjob-guard.io/ttl-after-failure") == "3600",
           f"kueue: {code} {err!r} {doc!r}")
    code, out, _ = rjg("check", "-", stdin=fixed)
    check(code == 0, f"the fixed Kueue manifest must be admitted: {out!r}")
    code, _, err = rjg("check", "--fix", "-o", "json", "-", stdin=manifest)
    check(code == 2 and b"--fix prints manifests" in err, f"{code} {err!r}")


def test_check_fix_exit_is_the_verdict_of_the_output():
    # --fix judges what it printed: exit 1 and a stderr line for each violation left, and a
    # second round on its own output prints it byte for byte.
    manifest = FIXABLE.replace(b"rayproject/ray:2.52.0", b"example.com/ray:2.52.0")
    code, fixed, err = rjg("check", "--fix", "-", stdin=manifest)
    check(code == 1, f"an image left to the tenant keeps the RayJob denied: {code} {err!r}")
    lines = err.decode().splitlines()
    check(len(lines) == 1 and "yours to change: [image-contract]" in lines[0], f"{err!r}")
    code2, again, err2 = rjg("check", "--fix", "-", stdin=fixed)
    check(again == fixed and code2 == 1 and err2 == err,
           f"a second round must change nothing: {code2} {again!r} {err2!r}")
    code, _, _ = rjg("check", "-", stdin=fixed)
    check(code == 1, "the printed RayJob is still denied")


def test_check_control_characters():
    # A RayJob name, an image and a file name holding ESC, BEL, CR and a bidi override: every
    # human output shows them as escapes; JSON carries them exactly.
    name = "evil\x1b]0;pwned\x07\r\u202eok"
    manifest = ("apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: %s, namespace: tenant-a}\n"
                "spec:\n  entrypoint: python x.py\n  rayClusterSpec:\n    headGroupSpec:\n"
                "      rayStartParams: {}\n      template:\n        spec:\n          containers:\n"
                "          - name: ray-head\n            image: %s\n"
                % (json.dumps(name), json.dumps("rayproject/ray:latest\x1b[2J"))).encode()

    def printable(data, what):
        text = data.decode("utf-8")
        bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
               or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"]
        check(not bad, f"{what}: raw control characters {bad!r} in {data!r}")

    code, out, err = rjg("check", "-", stdin=manifest)
    check(code == 1, f"denied: {code} {out!r}")
    printable(out, "check stdout")
    printable(err, "check stderr")
    check(b"rayjob.ray.io/evil\\x1b]0;pwned\\x07\\r\\u202eok (-) denied:" in out, f"{out!r}")
    check(b"rayproject/ray:latest\\x1b[2J" in out, f"the image is quoted escaped: {out!r}")
    code, out, err = rjg("check", "-o", "json", "-", stdin=manifest)
    check(json.loads(out)[0]["name"] == name, f"JSON carries the exact name: {out!r}")
    code, fixed, err = rjg("check", "--fix", "-", stdin=manifest)
    printable(err, "check --fix stderr")
    check(b"\\x1b[2J" in err and json.loads(fixed.decode()[4:])["metadata"]["name"] == name,
           f"--fix: {err!r}")
    # File names and error messages that quote the input.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bad\x1b[31m\u202e.yaml")
        with open(path, "wb") as f:
            f.write(b"a: [\n")
        code, out, err = rjg("check", path)
        check(code == 2, f"{code} {err!r}")
        printable(err, "YAML error")
        check(b"bad\\x1b[31m\\u202e.yaml" in err, f"{err!r}")
        policy = os.path.join(d, "policy.yaml")
        with open(policy, "wb") as f:
            f.write(b"apiVersion: rayjob-guard.io/v1\nkind: Policy\nrules: {\"x\\e[2J\\r\": warn}\n")
        code, out, err = rjg("policy", "validate", policy)
        check(code == 2, f"policy validate: {code} {err!r}")
        printable(err, "policy validate")
        check(b"\\x1b[2J\\r" in err, f"policy validate quotes the key escaped: {err!r}")
    # The webhook's deny message reaches the tenant's terminal through kubectl as it is.
    review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
              "request": {"uid": "u1", "kind": {"group": "ray.io", "version": "v1", "kind": "RayJob"},
                          "resource": {"group": "ray.io", "version": "v1", "resource": "rayjobs"},
                          "namespace": "tenant-a", "operation": "CREATE",
                          "userInfo": {"username": "x"},
                          "object": {"apiVersion": "ray.io/v1", "kind": "RayJob",
                                     "metadata": {"name": "n", "namespace": "tenant-a"},
                                     "spec": {"entrypoint": "python x.py", "rayClusterSpec": {
                                         "headGroupSpec": {"rayStartParams": {}, "template": {
                                             "spec": {"containers": [{
                                                 "name": "ray-head",
                                                 "image": "rayproject/ray:latest\x1b[2J"}]}}}}}}}}
    code, out, err = rjg("review", stdin=json.dumps(review).encode())
    check(code == 0, f"review: {code} {err!r}")
    response = json.loads(out)["response"]
    texts = [response["status"]["message"]] + response.get("warnings", [])
    texts += [c["message"] for c in response["status"]["details"]["causes"]]
    for t in texts:
        printable(t.replace("\n", " ").encode(), "review message")
    check("ray:latest\\x1b[2J" in response["status"]["message"] and
           any("ray:latest\\x1b[2J" in w for w in response["warnings"]), f"{response!r}")


def test_check_namespace_conflict():
    manifest = b"apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: a, namespace: tenant-a}\n"
    code, _, err = rjg("check", "--namespace", "tenant-b", "-", stdin=manifest)
    check(code == 2 and b"does not match the namespace" in err, f"{code} {err!r}")


def test_yaml_output():
    """-o yaml is -o json as YAML: PyYAML (YAML 1.1, as kubectl reads it) gives back the same
    data for check over the corpus (names, images and messages with quotes, colons, digits),
    for a RayJob whose name a plain scalar would read as a boolean, and for version."""
    import yaml
    files = [corpus(n) for n in sorted(os.listdir(ARGS.corpus)) if n.endswith(".yaml")]
    tricky = (b"apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: 'yes', namespace: '0x10'}\n"
              b"spec: {entrypoint: 'python -c \"print(1)\"'}\n")
    for argv, stdin in ((["check", *files], None), (["check", "-"], tricky), (["version"], None)):
        code_j, out_j, _ = rjg(*argv[:1], "-o", "json", *argv[1:], stdin=stdin)
        code_y, out_y, err = rjg(*argv[:1], "-o", "yaml", *argv[1:], stdin=stdin)
        check(code_j == code_y, f"{argv[:2]}: exit {code_j} vs {code_y} {err!r}")
        check(yaml.safe_load(out_y) == json.loads(out_j), f"{argv[:2]}: YAML differs:\n{out_y!r}")
    check(b"name: \"yes\"" in rjg("check", "-o", "yaml", "-", stdin=tricky)[1], "quoted")


def test_completion():
    """The completion scripts offer what the binary has: commands from --help, a command's flags
    from its --help, -o values from its usage, in bash and in zsh (through bashcompinit, where zsh
    itself filters by prefix)."""
    def complete(shell, *words):
        script = f"source <({ARGS.binary} completion {shell}); "
        if shell == "zsh":
            script = "autoload -U compinit && compinit -u; " + script + "setopt ksharrays; "
        line = " ".join(json.dumps(w) for w in (ARGS.binary, *words))
        script += f"COMP_WORDS=({line}); COMP_CWORD={len(words)}; _rayjob_guard; "
        script += "printf '%s\\n' \"${COMPREPLY[@]}\""
        code, out, err = run([need(shell, "the completion scripts are tested in bash and zsh"),
                              "-c", script], text=False)
        check(code == 0, f"{shell} {words}: {code} {err!r}")
        return sorted(set(out.decode().split()))

    for shell in ("bash", "zsh"):
        commands = complete(shell, "")
        check(commands == sorted(["serve", "review", "check", "policy", "reap", "audit",
                                   "version", "completion"]), f"{shell}: {commands}")
        check(complete(shell, "check", "-o", "") == ["json", "junit", "sarif", "text", "yaml"],
               shell)
        check(complete(shell, "audit", "--output", "") ==
               ["json", "policyreport", "text", "yaml"], shell)
        check(complete(shell, "policy", "") == ["default", "validate"], shell)
        check("--context" in complete(shell, "reap", "--con"), shell)
        check("--allow-empty" in complete(shell, "check", "--a"), shell)
    # bash filters by prefix itself; every flag it offers is one the command accepts.
    check(complete("bash", "reap", "--con") == ["--context"], "bash prefix")
    for cmd in ("serve", "check", "reap", "audit", "version"):
        for flag in complete("bash", cmd, "--"):
            code, out, err = rjg(cmd, flag, "--help")
            check(b"unknown option" not in err, f"{cmd} {flag}: offered but unknown: {err!r}")
    code, out, err = rjg("completion", "fish")
    check(code == 2 and b"bash or zsh" in err, f"completion fish: {code} {err!r}")


def test_policy_round_trip():
    code, out, err = rjg("policy", "default")
    check(code == 0 and out.startswith(b"#") and b"apiVersion: rayjob-guard.io/v1" in out, f"{err!r}")
    code, out2, err = rjg("policy", "validate", "-", stdin=out)
    check(code == 0, f"validate: {code} {err!r}")
    check(out2.startswith(b"policy - is valid (hash ") and out2.endswith(b")\n"), f"{out2!r}")
    h = out2.split(b"hash ")[1][:-2]
    check(len(h) == 16, f"hash {h!r}")


def test_policy_bad_file():
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("apiVersion: rayjob-guard.io/v1\nkind: Policy\nlifecycle:\n"
                "  maxSucceededTTLSeconds: 600\n  minFailedTTLSeconds: 300\n")
    try:
        code, out, err = rjg("policy", "validate", f.name)
        check(code == 2 and out == b"", f"{code} {out!r}")
        check(b"lifecycle.minFailedTTLSeconds: must be greater than" in err, f"{err!r}")
    finally:
        os.unlink(f.name)
    code, _, err = rjg("policy", "validate", "no-such-policy.yaml")
    check(code == 2 and b"cannot be read" in err, f"{err!r}")
    code, _, _ = rjg("policy", "frobnicate")
    check(code == 2, "unknown subcommand")


def test_version():
    code, text, err = rjg("version")
    check(code == 0 and text.startswith(b"rayjob-guard ") and text.endswith(b"\n"), f"{code} {text!r} {err!r}")
    code, same, _ = rjg("--version")
    check(code == 0 and same == text, f"--version: {same!r}")
    code, out, err = rjg("version", "-o", "json")
    check(code == 0, f"json: {code} {err!r}")
    v = json.loads(out)
    check(set(v) == {"version", "kuberay", "defaultPolicy"}, f"keys {sorted(v)}")
    check(text == f"rayjob-guard {v['version']}\n".encode(), f"{v['version']!r} is not the text form's")
    check(v["kuberay"]["oldest"] == "1.0" and re.fullmatch(r"1\.\d+", v["kuberay"]["newest"]),
           f"kuberay {v['kuberay']}")
    # The default policy's hash and version are what `policy validate` says of `policy default`.
    _, default_policy, _ = rjg("policy", "default")
    _, valid, _ = rjg("policy", "validate", "-", stdin=default_policy)
    check(valid.split(b"hash ")[1][:-2].decode() == v["defaultPolicy"]["hash"],
           f"hash {v['defaultPolicy']} vs {valid!r}")
    pinned = re.search(rb'version: "(1\.\d+)"', default_policy).group(1).decode()
    check(v["defaultPolicy"]["kuberayVersion"] == pinned, f"{v['defaultPolicy']} vs {pinned}")
    check(rjg("version", "--output=json")[1] == out and rjg("version", "-ojson")[1] == out,
           "kubectl's flag forms give the same JSON")
    code, out, err = rjg("version", "-o", "xml")
    check(code == 2 and out == b"" and b"--output: must be text, json or yaml, got 'xml'" in err,
           f"{code} {err!r}")
    code, _, err = rjg("version", "extra")
    check(code == 2 and b"takes no arguments" in err, f"{code} {err!r}")


def test_allocator():
    # The dynamic loader's own account of where each library's malloc and free, and operator new,
    # are bound (LD_DEBUG=bindings): all to mimalloc when the build links it (RJG_MIMALLOC, the
    # release build), none to it when it does not (the sanitizer builds).
    env = dict(os.environ, LD_DEBUG="bindings")
    code, _, err = rjg("version", env=env)
    check(code == 0, f"version: {code}")
    bindings = re.findall(
        rb"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `(malloc|free|_Znwm)'", err)
    check(len(bindings) > 0, f"no binding of malloc, free or operator new in {err[:400]!r}")
    binary = os.path.realpath(ARGS.binary)
    for user, provider, symbol in bindings:
        provider = provider.decode()
        where = f"{user.decode()}'s {symbol.decode()} bound to {provider}"
        if ARGS.allocator == "system":
            check("mimalloc" not in provider, where)
        elif symbol == b"_Znwm":
            check(os.path.realpath(provider) == binary, f"{where}, not to common/allocator.cpp's")
        else:
            check("libmimalloc" in provider, where)
    libraries = {user for user, _, symbol in bindings if symbol == b"malloc"}
    check(ARGS.allocator == "system" or any(b"libyaml" in u for u in libraries),
          f"libyaml's malloc not among the bindings: {sorted(libraries)}")


def test_output_vocabulary():
    # One -o vocabulary: text, json and yaml everywhere, then a command's own forms; anything
    # else refused in one wording that lists them.
    manifest = pick_corpus(True)
    export = json.dumps({"apiVersion": "v1", "kind": "List", "items": []}).encode()
    cases = [
        (["check", manifest], "text, json, yaml, junit or sarif"),
        (["audit", "-f", "-"], "text, json, yaml or policyreport"),
        (["version"], "text, json or yaml"),
    ]
    for argv, choices in cases:
        stdin = export if argv[0] == "audit" else None
        for form in ("text", "json", "yaml"):
            code, out, err = rjg(*argv, "-o", form, stdin=stdin)
            check(code in (0, 1) and out, f"{argv[0]} -o {form}: {code} {err!r}")
        code, out, err = rjg(*argv, "-o", "table2", stdin=stdin)
        want = f"--output: must be {choices}, got 'table2'".encode()
        check(code == 2 and out == b"" and want in err, f"{argv[0]}: {code} {err!r}")
        code, text, _ = rjg(*argv, stdin=stdin)
        code2, same, _ = rjg(*argv, "-o", "text", stdin=stdin)
        check(code == code2 and text == same, f"{argv[0]}: the default is text")
    # audit's former name of text.
    code, table, err = rjg("audit", "-f", "-", "-o", "table", stdin=export)
    _, text, _ = rjg("audit", "-f", "-", "-o", "text", stdin=export)
    check(code == 0 and table == text, f"audit -o table: {code} {err!r}")


def test_help():
    for argv in (["review", "--help"], ["check", "--help"], ["policy", "--help"], ["reap", "--help"],
                 ["serve", "--help"]):
        code, out, _ = rjg(*argv)
        check(code == 0 and out.startswith(b"usage: rayjob-guard " + argv[0].encode()), f"{argv}")


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--golden", required=True)
    p.add_argument("--corpus", required=True)
    p.add_argument("--allocator", choices=("mimalloc", "system"), required=True,
                   help="the process allocator the build links (RJG_MIMALLOC)")
    p.add_argument("test")
    ARGS = p.parse_args()
    fn = globals().get("test_" + ARGS.test)
    if fn is None:
        print(f"unknown test {ARGS.test}", file=sys.stderr)
        return 2
    fn()
    print(f"ok {ARGS.test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
