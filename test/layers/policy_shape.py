#!/usr/bin/env python3
"""The shape the policy engine keeps (issue: version knowledge as one catalogue).

- No source file under policy/ is over 600 lines, and the kuberay-schema rule file is under 200:
  the operator's checks live in policy/kuberay/, one file per part of the operator.
- No KubeRay version is written as a literal ({1, N} or KubeRayVersion{...}) in the code of
  policy/, admission/, cli/, reaper/ or server/ outside the catalogue (policy/kuberay/catalogue.*):
  what varies by version is a catalogue row, so adding a version cannot miss a branch.
- No file under policy/kuberay/ includes a header of policy/rules/: the operator's checks stand on
  policy/rule_context.hpp and policy/shared_fixes.hpp, not on the rules that call them.

usage: policy_shape.py REPO_ROOT
"""
import os
import pathlib
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check  # noqa: E402

MAX_LINES = 600
MAX_RULE_LINES = 200
LITERAL = re.compile(r"KubeRayVersion\s*\{\s*\d|\{\s*1\s*,\s*\d+\s*\}")


def code_of(line: str) -> str:
    """The line without its // comment (string literals here never hold "//")."""
    return line.split("//", 1)[0]


def main():
    root = pathlib.Path(sys.argv[1])
    problems = []
    for path in sorted((root / "policy").rglob("*.[ch]pp")):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            problems.append(f"{path.relative_to(root)}: {n} lines, more than {MAX_LINES}")
    rule = root / "policy/rules/kuberay_schema.cpp"
    n = len(rule.read_text(encoding="utf-8").splitlines())
    if n >= MAX_RULE_LINES:
        problems.append(f"{rule.relative_to(root)}: {n} lines, not under {MAX_RULE_LINES}")
    for path in sorted((root / "policy/kuberay").rglob("*.[ch]pp")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.match(r'\s*#\s*include\s+"policy/rules/', line):
                problems.append(f"{path.relative_to(root)}:{i}: policy/kuberay/ includes a rule "
                                f"header: {line.strip()}")
    checked = 0
    for layer in ("policy", "admission", "cli", "reaper", "server"):
        for path in sorted((root / layer).rglob("*.[ch]pp")):
            if path.parent.name == "kuberay" and path.stem == "catalogue":
                continue
            checked += 1
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if LITERAL.search(code_of(line)):
                    problems.append(f"{path.relative_to(root)}:{i}: a KubeRay version literal "
                                    f"outside the catalogue: {line.strip()}")
    if checked < 50:
        problems.append(f"only {checked} source files found under {root}: wrong root?")
    for p in problems:
        print(p)
    print(f"{checked} files checked, {len(problems)} problems")
    check(not problems, f"{len(problems)} problems with the shape of the policy engine (above)")


if __name__ == "__main__":
    main()
