#!/usr/bin/env python3
"""Every policy snippet the docs show is accepted by the real policy loader, exactly as written.

usage: policy_snippets.py --binary PATH --source-dir REPO [--docs FILE...]

Snippets, from README.md, CONTRIBUTING.md and docs/*.md (or the --docs files):
  - a fenced ```yaml block whose top-level keys include a policy section (kuberay, lifecycle,
    images, quota, rules) or that says `kind: Policy`;
  - a code span `section.key.path: value` or `section: value` (e.g. `lifecycle.mode: reaper`,
    `rules: {image-pinned: off}`); the template `<id>: enforce|warn|off` stands for every rule
    id with each of the three actions.
A code span whose key path holds a `/` is an annotation or label (`lifecycle.rayjob-guard.io/hold`),
not a policy key. A snippet that is a whole policy (`kind: Policy`) is loaded as it is. A fragment is merged into
the built-in default (`rayjob-guard policy default`), as the docs tell an operator to edit it:
the fragment's text is put, unchanged, at its key path (a fenced block replaces the sections it
names), and the rest of the default is written as JSON (which YAML reads as it is). Each result
goes to `rayjob-guard policy validate -`; every refusal is printed as FILE:LINE: snippet: error,
and the exit status is 1 if there is one (2 when no snippet was found at all, which would mean
this extraction broke). The docs also show snippets to say that the loader refuses them: those
are listed in EXPECTED_REFUSALS with the docs' words, and must be refused (and found). PyYAML (python3-yaml) reads the default's structure only.
"""
import argparse
import json
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import fail, run  # noqa: E402
import doclib  # noqa: E402

SECTIONS = ("kuberay", "lifecycle", "images", "quota", "rules")
HEADER = "apiVersion: rayjob-guard.io/v1\nkind: Policy\n"
ACTIONS = ("enforce", "warn", "off")
ARGS = None
# (file, snippet as shown) -> what the docs say about it. Each must be refused, and found.
EXPECTED_REFUSALS = {
    ("docs/lifecycle.md", 'kuberay.version: "1.5"'):
        "`policy validate` refuses `lifecycle.mode: deletionRules` (the default's mode) with "
        "`kuberay.version: \"1.5\"`",
}


def rjg(*argv, stdin=None):
    """The binary run with argv: (exit code, stdout, stderr)."""
    return run([ARGS.binary, *argv], stdin=stdin)


def doc_files():
    return doclib.doc_files(ARGS.source_dir, ARGS.docs)


def rule_ids():
    return doclib.rule_ids(ARGS.binary)


SPAN = re.compile(r"^(" + "|".join(SECTIONS) + r")((?:\.[\w<>/-]+)*): (.+)$")


def snippets():
    """[(where, kind, path or None, text)]: kind 'policy', 'block' or 'span'."""
    out = []
    for path in doc_files():
        rel = os.path.relpath(path, ARGS.source_dir)
        lines = open(path, encoding="utf-8").read().split("\n")
        fence, start, body = None, 0, []
        for n, line in enumerate(lines, 1):
            m = re.match(r"^\s*```(\w*)", line)
            if m and fence is None:
                fence, start, body = m.group(1), n, []
                continue
            if fence is not None:
                if re.match(r"^\s*```\s*$", line):
                    text = "\n".join(body) + "\n"
                    tops = set(re.findall(r"^([\w.-]+):", text, re.M))
                    if fence in ("yaml", "yml") and re.search(r"^kind: Policy\s*$", text, re.M):
                        out.append((f"{rel}:{start}", "policy", None, text))
                    elif fence in ("yaml", "yml") and tops & set(SECTIONS):
                        out.append((f"{rel}:{start}", "block", None, text))
                    fence = None
                else:
                    body.append(line)
                continue
            for span in re.findall(r"`([^`\n]+)`", line):
                m = SPAN.match(span)
                if m and "/" not in m.group(2):
                    keys = [m.group(1)] + [k for k in m.group(2).split(".") if k]
                    out.append((f"{rel}:{n}", "span", keys, m.group(3)))
    return out


def expand(keys, value):
    """The `<id>: enforce|warn|off` template -> every rule id with each action; others as is."""
    if keys == ["rules"] and re.fullmatch(r"\{\s*<id>:\s*enforce\|warn\|off\s*\}", value):
        return [(["rules"], "{%s: %s}" % (r, a)) for r in rule_ids() for a in ACTIONS]
    if any("<" in k for k in keys) or "<" in value:
        fail(f"a placeholder this test cannot expand: {'.'.join(keys)}: {value}")
    return [(keys, value)]


def merged_span(default, keys, value):
    """The default with `value` (verbatim text) at the key path `keys`."""
    def emit(node, path, indent):
        text = ""
        pad = "  " * indent
        key = path[0]
        items = dict(node) if isinstance(node, dict) else {}
        if key not in items:
            items[key] = None
        for k, v in items.items():
            if k != key:
                text += f"{pad}{json.dumps(k)}: {json.dumps(v)}\n"
            elif len(path) == 1:
                text += f"{pad}{k}: {value}\n"
            else:
                text += f"{pad}{k}:\n" + emit(v, path[1:], indent + 1)
        return text
    body = {k: v for k, v in default.items() if k not in ("apiVersion", "kind")}
    return HEADER + emit(body, keys, 0)


def merged_block(default, text):
    """The default with the sections the block names replaced by the block's text."""
    named = set(re.findall(r"^([\w.-]+):", text, re.M))
    rest = "".join(f"{json.dumps(k)}: {json.dumps(v)}\n" for k, v in default.items()
                   if k not in named and k not in ("apiVersion", "kind"))
    return HEADER + rest + text


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--docs", nargs="*")
    ARGS = ap.parse_args()
    code, default_text, err = rjg("policy", "default")
    if code != 0:
        fail(f"policy default: exit {code}: {err}")
    default = yaml.safe_load(default_text)
    found = snippets()
    if not found:
        print("no policy snippet found in the docs: the extraction is broken")
        return 2
    failures, checked, refused_as_documented = [], 0, set()
    for where, kind, keys, text in found:
        if kind == "policy":
            cases = [(text, text)]
        elif kind == "block":
            cases = [(text.strip(), merged_block(default, text))]
        else:
            cases = [(f"{'.'.join(k)}: {v}", merged_span(default, k, v)) for k, v in expand(keys, text)]
        for shown, policy in cases:
            checked += 1
            code, _, err = rjg("policy", "validate", "-", stdin=policy.encode())
            expected = (where.rsplit(":", 1)[0], shown)
            if expected in EXPECTED_REFUSALS:
                if code == 2:
                    refused_as_documented.add(expected)
                else:
                    failures.append(f"{where}: {shown!r}: the docs say it is refused "
                                    f"({EXPECTED_REFUSALS[expected]}), but exit {code}")
            elif code != 0:
                failures.append(f"{where}: {shown!r}: exit {code}: {err.strip()}\n--- policy as loaded:\n{policy}")
    for expected in sorted(set(EXPECTED_REFUSALS) - refused_as_documented):
        failures.append(f"{expected[0]}: {expected[1]!r}: listed as a documented refusal, not found refused")
    for f in failures:
        print(f)
    print(f"{checked} policies from {len(found)} snippets: {len(failures)} failures, "
          f"{len(refused_as_documented)} refused as the docs say")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
