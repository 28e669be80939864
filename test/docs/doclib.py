"""What the docs suites (docs_truth.py, policy_snippets.py) share.

doc_files(source_dir, docs=None) -> the files to read: `docs` when given, else README.md,
  CONTRIBUTING.md and docs/*.md of source_dir (the latter sorted).
rule_ids(binary) -> the rule ids, in the order `rayjob-guard policy validate` lists them when it
  refuses an unknown one; the test fails when it lists none.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import fail, run  # noqa: E402


def doc_files(source_dir, docs=None):
    if docs:
        return docs
    folder = os.path.join(source_dir, "docs")
    return [os.path.join(source_dir, "README.md"), os.path.join(source_dir, "CONTRIBUTING.md")] + sorted(
        os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".md"))


def rule_ids(binary):
    code, _, err = run([binary, "policy", "validate", "-"],
                       stdin=b"apiVersion: rayjob-guard.io/v1\nkind: Policy\nrules: {no-such-rule: warn}\n")
    m = re.search(r"expected one of: ([a-z, -]+)", err)
    if code != 2 or not m:
        fail(f"policy validate did not list the rule ids: exit {code}: {err}")
    return [r.strip() for r in m.group(1).split(",") if r.strip()]
