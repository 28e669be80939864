#!/usr/bin/env python3
"""Docs that cannot drift: every name README.md, CONTRIBUTING.md and docs/*.md write must exist.

usage: docs_truth.py --binary PATH --source-dir REPO --build-dir BUILD [--ctest PATH] [--docs FILE...]

What is checked, against what the binary and the build expose:
  metric names (rayjob_guard_*) and the label names and values written with them
      -> /metrics of a running `rayjob-guard serve` (127.0.0.1, port 0, certificates minted now,
         after one allowed, one denied and one warned review so every family has a series)
  ctest labels (`ctest -L X|Y`, and the label column of a table headed "label", which must also
      list every label there is) -> `ctest --print-labels` in BUILD
  flags of a rayjob-guard command (in a code span or code line that names `rayjob-guard CMD`, or
      a fenced block that starts with it) -> `rayjob-guard CMD --help`; a flag written alone in
      a code span -> some command's --help, or else a program of the repository that spells it
  rule ids ([id] message prefixes, rule="id", and the `## `id`` sections of docs/rules.md, which
      must cover every rule) -> the rule list `rayjob-guard policy validate` gives for an unknown id
  policy keys (`kuberay.*`, `lifecycle.*`, `images.*`, `quota.*`, `rules.*` in code spans; a
      <placeholder> segment matches any key) -> the keys of `rayjob-guard policy default`
      (commented-out example keys included: the binary prints them), or else a test (or group of
      tests) of `ctest -N`, which can look the same (`lifecycle.values`)
  documents cited by name (`docs/NAME.md`, `NAME.md`) in any file of the repository, comments
      included -> a tracked file whose path ends so; names in capitals (FILE.md) are placeholders
Nothing is allow-listed. Every miss is printed as FILE:LINE: what; exit 1 if there is one.
The server is stopped by PID, also on failure.
"""
import argparse
import http.client
import os
import re
import shutil
import ssl
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import Serve, cluster_quota_flags, fail, mint_certs, run  # noqa: E402
import doclib  # noqa: E402

ARGS = None
COMMANDS = ("serve", "review", "check", "policy", "reap", "audit")
POLICY_SECTIONS = ("kuberay", "lifecycle", "images", "quota", "rules")


def rjg(*argv, stdin=None):
    """The binary run with argv: (exit code, stdout, stderr)."""
    return run([ARGS.binary, *argv], stdin=stdin)


def doc_files():
    return doclib.doc_files(ARGS.source_dir, ARGS.docs)


def read_docs():
    """[(file, line number, line text, in_fence, fence_first_line)]"""
    out = []
    for path in doc_files():
        rel = os.path.relpath(path, ARGS.source_dir)
        fence, first = False, None
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.lstrip().startswith("```"):
                    fence, first = (not fence), None
                    continue
                if fence and first is None:
                    first = line.strip()
                out.append((rel, n, line.rstrip("\n"), fence, first))
    return out


def spans(line, fence):
    """The code in a line: the whole line inside a fence, else its `code spans`."""
    return [line] if fence else re.findall(r"`([^`]+)`", line)


# ---------------------------------------------------------------------------------------------
# What exists


def metrics_exposed():
    """{metric name: {label name: set of values}} from a running server's /metrics."""
    work = tempfile.mkdtemp(prefix="rjg-docs-")
    certs = mint_certs(ARGS.source_dir, os.path.join(work, "certs"))
    # Quota from a cluster nobody answers at, so that the cluster-quota families are exposed too.
    server = Serve([ARGS.binary, "serve"], certs, work, shutdown_delay="0", start_timeout=15,
                   extra=cluster_quota_flags(ARGS.binary, work, os.path.join(certs, "ca.crt")))
    try:
        ctx = ssl.create_default_context(cafile=server.ca)
        golden = os.path.join(ARGS.source_dir, "test", "golden", "cases")
        for case in ("allow-compliant", "deny-several-rules", "warn-only-image-pinned"):
            with open(os.path.join(golden, case, "request.json"), "rb") as f:
                body = f.read()
            c = http.client.HTTPSConnection("127.0.0.1", server.https, timeout=10, context=ctx)
            c.request("POST", "/validate", body=body, headers={"Content-Type": "application/json"})
            r = c.getresponse()
            r.read()
            c.close()
            if r.status != 200:
                fail(f"review {case}: HTTP {r.status}")
        c = http.client.HTTPConnection("127.0.0.1", server.probe, timeout=10)
        c.request("GET", "/metrics")
        text = c.getresponse().read().decode()
        c.close()
    finally:
        code = server.stop()
        if code == 0:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"rayjob-guard serve exited {code}; its log is kept in {work}", file=sys.stderr)
    metrics = {}
    for line in text.splitlines():
        m = re.match(r"# TYPE (\w+) (\w+)", line)
        if m:
            metrics.setdefault(m.group(1), {})
            if m.group(2) == "histogram":
                for suffix in ("_bucket", "_sum", "_count"):
                    metrics.setdefault(m.group(1) + suffix, {})
            continue
        m = re.match(r"(\w+)\{([^}]*)\}", line)
        if m:
            labels = metrics.setdefault(m.group(1), {})
            for k, v in re.findall(r'(\w+)="([^"]*)"', m.group(2)):
                labels.setdefault(k, set()).add(v)
    return metrics


def labels_exposed():
    ctest = ARGS.ctest or "ctest"
    p = subprocess.run([ctest, "--print-labels"], cwd=ARGS.build_dir, capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        fail(f"ctest --print-labels failed: {p.stderr}")
    return {line.strip() for line in p.stdout.splitlines()[1:] if line.startswith("  ")}


def tests_exposed():
    """Every test name of `ctest -N` in BUILD (a doc may name one that looks like a policy key)."""
    ctest = ARGS.ctest or "ctest"
    p = subprocess.run([ctest, "-N"], cwd=ARGS.build_dir, capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        fail(f"ctest -N failed: {p.stderr}")
    return set(re.findall(r"Test +#\d+: (\S+)", p.stdout))


def flags_exposed():
    """{command: set of --flags in its --help}"""
    out = {}
    for cmd in COMMANDS:
        code, text, err = rjg(cmd, "--help")
        if code != 0:
            fail(f"rayjob-guard {cmd} --help: exit {code}: {err}")
        out[cmd] = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))
    return out


def rule_ids_exposed():
    return set(doclib.rule_ids(ARGS.binary))


def policy_keys_exposed():
    """Every dotted key path of `policy default`, commented-out example keys included."""
    code, text, err = rjg("policy", "default")
    if code != 0:
        fail(f"policy default: exit {code}: {err}")
    keys, stack = set(), []
    for raw in text.splitlines():
        line = re.sub(r"^(\s*)# ?", r"\1", raw) if re.match(r"^\s*#\s*[\w.-]+:", raw) else raw
        m = re.match(r"^(\s*)(- )?([\w./-]+):(\s|$)", line)
        if not m or line.lstrip().startswith("#"):
            continue
        indent = len(m.group(1)) + (2 if m.group(2) else 0)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = ".".join([k for _, k in stack] + [m.group(3)])
        keys.add(path)
        stack.append((indent, m.group(3)))
        # Flow mappings on the same line: {a: 1, b: 2}
        rest = line[m.end():]
        if rest.strip().startswith("{"):
            for k in re.findall(r"[{,]\s*([\w./-]+):", rest):
                keys.add(path + "." + k)
    return keys


# ---------------------------------------------------------------------------------------------
# What the docs say


def check_metrics(lines, metrics, misses):
    for rel, n, line, fence, _ in lines:
        for name, labels in re.findall(r"\b(rayjob_guard_[a-z0-9_]*[a-z0-9])(\{[^}]*\})?", line):
            if name not in metrics:
                misses.append(f"{rel}:{n}: metric {name} is not in /metrics")
                continue
            for key, _, value in re.findall(r'(\w+)(="([^"]*)")?', labels.strip("{}")):
                exposed = metrics[name]
                if key not in exposed:
                    misses.append(f"{rel}:{n}: metric {name} has no label {key!r}")
                elif value and not value.startswith("...") and value not in exposed[key]:
                    misses.append(f"{rel}:{n}: metric {name}{{{key}}} has no value {value!r} "
                                  f"(it has {sorted(exposed[key])})")


def check_labels(lines, labels, misses):
    in_label_table = None
    tables = {}  # file -> labels its label table lists; such a table must list every label
    for rel, n, line, fence, _ in lines:
        for code in spans(line, fence):
            for m in re.finditer(r"\bctest\b[^|`]*?-L\s+'?([\w|]+)'?", code):
                for label in m.group(1).split("|"):
                    if label not in labels:
                        misses.append(f"{rel}:{n}: ctest label {label!r} does not exist")
        if re.match(r"^\|\s*label\s*\|", line):
            in_label_table = rel
            continue
        if in_label_table == rel and line.startswith("|"):
            first = line.split("|")[1]
            for label in re.findall(r"`([\w-]+)`", first):
                tables.setdefault(rel, set()).add(label)
                if label not in labels:
                    misses.append(f"{rel}:{n}: ctest label {label!r} does not exist")
        elif not line.startswith("|"):
            in_label_table = None
    for rel, listed in tables.items():
        for label in sorted(labels - listed):
            misses.append(f"{rel}: the label table does not list {label!r}")


def repo_spells(flag):
    """True when a program of the repository (not its docs) spells `flag`."""
    p = subprocess.run(["git", "-C", ARGS.source_dir, "grep", "-l", "-F", "-e", flag, "--",
                        ".", ":!*.md"], capture_output=True, text=True, timeout=60)
    return p.returncode == 0 and p.stdout.strip() != ""


def check_flags(lines, flags, misses):
    every = set().union(*flags.values())
    for rel, n, line, fence, first in lines:
        block_cmd = None
        if fence and first:
            m = re.match(r"^(?:\S*/)?rayjob-guard (\w+)", first)
            block_cmd = m.group(1) if m and m.group(1) in flags else None
        for code in spans(line, fence):
            m = re.search(r"(?:^|[\s/(])rayjob-guard (\w+)", code)
            cmd = m.group(1) if m and m.group(1) in flags else block_cmd
            found = re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", code[m.end():] if m else code)
            for flag in found:
                if cmd is not None:
                    if flag not in flags[cmd] and flag != "--help":
                        misses.append(f"{rel}:{n}: rayjob-guard {cmd} has no flag {flag}")
                elif re.fullmatch(r"\s*--[a-z][a-z0-9-]*(=\S*|\s+\S+)?\s*", code):
                    if flag not in every and flag != "--help" and not repo_spells(flag):
                        misses.append(f"{rel}:{n}: flag {flag} is in no command's --help "
                                      "and no program of the repository")


def check_rules(lines, rules, misses):
    sections = set()
    for rel, n, line, fence, _ in lines:
        for code in spans(line, fence) + [line]:
            for rule in re.findall(r"\[([a-z]{2,}(?:-[a-z]{2,})+)\]", code):
                if rule not in rules:
                    misses.append(f"{rel}:{n}: rule id [{rule}] does not exist")
        for rule in re.findall(r'\brule="([^".]+)"', line):
            if rule not in rules:
                misses.append(f"{rel}:{n}: rule id {rule!r} does not exist")
        m = re.match(r"^## `([a-z-]+)`", line)
        if m and rel.endswith("rules.md"):
            sections.add(m.group(1))
            if m.group(1) not in rules:
                misses.append(f"{rel}:{n}: section for rule {m.group(1)!r}, which does not exist")
    if any(rel.endswith("docs/rules.md") for rel, *_ in lines):
        for rule in sorted(rules - sections):
            misses.append(f"docs/rules.md: rule {rule!r} has no section")


def check_policy_keys(lines, keys, tests, misses):
    def known(key):
        parts = key.split(".")
        for k in keys:
            kp = k.split(".")
            if len(kp) >= len(parts) and all(p.startswith("<") or p == q for p, q in zip(parts, kp)):
                return True
        return False

    for rel, n, line, fence, _ in lines:
        if fence:
            continue
        for code in re.findall(r"`([^`]+)`", line):
            for key in re.findall(r"^(?:%s)\.[\w.<>/-]*[\w>]$" % "|".join(POLICY_SECTIONS), code):
                if known(key) or key in tests or any(t.startswith(key + ".") for t in tests):
                    continue
                misses.append(f"{rel}:{n}: {key} is neither a key of `policy default` nor a "
                              "test of `ctest -N`")


CITATION = re.compile(r"(?<![\w$/.<>-])((?:docs/)?[A-Za-z0-9_-]+\.md)\b")


def check_citations(misses):
    """Every document a file of the repository names exists in the repository."""
    root = ARGS.source_dir
    files = [f for f in subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                                       text=True, timeout=60, check=True).stdout.split("\0") if f]
    tracked = set(files)
    for rel in files:
        path = os.path.join(root, rel)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for name in CITATION.findall(line):
                stem = os.path.basename(name)[:-3]
                if stem.isupper() and stem not in ("README", "CONTRIBUTING"):
                    continue  # FILE.md: a placeholder
                if name in tracked or any(f.endswith("/" + name) for f in tracked):
                    continue
                misses.append(f"{rel}:{n}: cites {name}, which is not in the repository")


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--ctest", default="")
    p.add_argument("--docs", nargs="*", default=None, help="check these files instead")
    ARGS = p.parse_args()
    lines = read_docs()
    misses = []
    check_metrics(lines, metrics_exposed(), misses)
    check_labels(lines, labels_exposed(), misses)
    check_flags(lines, flags_exposed(), misses)
    check_rules(lines, rule_ids_exposed(), misses)
    check_policy_keys(lines, policy_keys_exposed(), tests_exposed(), misses)
    if not ARGS.docs:
        check_citations(misses)
    misses = list(dict.fromkeys(misses))  # one line per distinct miss, in order
    for m in misses:
        print("FAIL " + m)
    print(f"{len(doc_files())} files, {len(misses)} names that do not exist")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
