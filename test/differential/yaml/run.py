#!/usr/bin/env python3
"""The YAML differential test: admission::yaml_to_json against kubectl's YAML reading.

usage: run.py --ours YAML_JSON --reference REF [--seed N] [--count M] [--keep DIR]

gen.py writes M files from seed N; yaml-json (ours, yaml_json.cpp) and yaml-reference (main.go:
apimachinery's NewYAMLOrJSONDecoder after kubectl's BOM handling, sigs.k8s.io/yaml) read each.
A file agrees when both give the same documents (parsed JSON values compared, numbers by value)
or both refuse it. The intended differences below are counted and printed; any other
disagreement is printed with the file and fails the run (exit 1). The default seed and count
are what ctest runs; a longer seeded run is `run.py ... --seed 7 --count 500000`.
"""
import argparse
import json
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from harness import check, run  # noqa: E402

# Known and intended differences, each with its reason. A disagreement is one of these only when
# our side refuses with the given message and the reference is as described.
INTENDED = {
    "duplicate-key": (
        "",
        "a key repeated in a mapping (also by a `<<` merge after an explicit key, or two keys that "
        "become one JSON key, such as `1` and `1.0`): kubectl's "
        "non-strict conversion keeps one of the values without a word; sigs.k8s.io/yaml's strict "
        "conversion refuses the file, and so do we (which value the author meant is a guess; our "
        "message may name another problem of the file, found first)",
        lambda ref: "already set in map" in ref.get("strict_error", "") or
        bool(ref.get("key_collision"))),
    "tab-before-flow": (
        "found character that cannot start any token",
        "a tab before a flow collection (`\\t{a: 1}`): go-yaml v2 reads it, libyaml (like YAML "
        "itself, which forbids tabs in indentation) refuses it; a refusal, never another value",
        lambda ref: True),
    "tag-before-flow-indicator": (
        "right after this tag as part of it",
        "a tag right before `,`, `]` or `}` (`[!!str, a]`): go-yaml v2 reads the indicator as "
        "part of the tag (and so reads [\"a\"]), libyaml reads an empty string; we refuse it",
        lambda ref: True),
    "byte-order-mark-inside": (
        "a byte-order mark starts this line",
        "a byte-order mark at the start of a line that does not start the file or a piece: "
        "kubectl keeps it as an invisible first character of a key or value; we refuse it",
        lambda ref: True),
    "separator-comment-no-space": (
        "kubectl ends a document here, YAML does not",
        "a `---#` line: kubectl's splitter takes it as a document separator, YAML (go-yaml and "
        "libyaml alike) as text, so a parser reading the whole stream and kubectl read different "
        "documents; we refuse it and name the fix (`--- #`)",
        lambda ref: True),
    "dropped-after-document-end": (
        "did not find expected <document start>",
        "a document after `...` with no `---` line: kubectl reads the first document of each "
        "`---` piece and drops the rest without a word; we refuse it so that `check` never "
        "judges a file differently from what kubectl creates",
        lambda ref: "docs" in ref or not ref.get("error")),
}


def same(a, b):
    """JSON values equal: numbers by value (exactly when both are integers; as float64 when one
    is not, since Go writes an integral float64 such as 2^64 as 18446744073709552000), objects
    whatever their member order."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return float(a) == float(b)
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return False


def read_lines(argv, files):
    out = {}
    for i in range(0, len(files), 2000):
        _, printed, _ = run(argv + files[i:i + 2000], timeout=600, check=True)
        for line in printed.splitlines():
            r = json.loads(line, parse_constant=lambda c: math.nan)
            out[r["name"]] = r
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--keep", help="write the corpus here (and keep it) instead of a temporary directory")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = a.keep or os.path.join(tmp, "corpus")
        run([sys.executable, os.path.join(HERE, "gen.py"), "--seed", str(a.seed),
             "--count", str(a.count), "--out", corpus], timeout=600, check=True)
        files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus))
        ours = read_lines([a.ours], files)
        ref = read_lines([a.reference], files)
        texts = {f: open(f, "rb").read() for f in files}
    same_docs = both_refuse = docs = 0
    intended = {k: 0 for k in INTENDED}
    bad = []
    for f in files:
        o, r = ours[f], ref[f]
        if "error" in o and "error" in r:
            both_refuse += 1
            continue
        if "error" not in o and "error" not in r:
            if same(o.get("docs", []), r.get("docs", [])):
                same_docs += 1
                docs += len(o.get("docs", []))
                continue
        kind = next((k for k, (msg, _, ok) in INTENDED.items()
                     if "error" in o and msg in o["error"] and ok(r)), None)
        if kind:
            intended[kind] += 1
            continue
        bad.append((f, o, r))
    shapes = {"other values": 0, "only ours refuses": 0, "only the reference refuses": 0}
    for f, o, r in bad:
        shapes["other values" if "error" not in o and "error" not in r else
               "only ours refuses" if "error" in o else "only the reference refuses"] += 1
    for f, o, r in bad[:20]:
        text = texts[f]
        print(f"DIFFERENT {os.path.basename(f)}:\n  input: {text[:600]!r}\n  ours:      "
              f"{json.dumps(o.get('docs', o.get('error')), ensure_ascii=False)[:600]}\n  reference: "
              f"{json.dumps(r.get('docs', r.get('error')), ensure_ascii=False)[:600]}")
    print(f"seed {a.seed}: {len(files)} files: {same_docs} read the same ({docs} documents), "
          f"{both_refuse} refused by both, "
          + ", ".join(f"{n} {k} (intended)" for k, n in intended.items())
          + f", {len(bad)} different"
          + (" (" + ", ".join(f"{n} {k}" for k, n in shapes.items()) + ")" if bad else ""))
    check(not bad, f"{len(bad)} files read differently, not as an intended difference (above)")


if __name__ == "__main__":
    main()
