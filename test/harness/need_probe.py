#!/usr/bin/env python3
"""Shows need() failing for a tool that is not on PATH: prints `exit N: STDERR` of a child that
calls need(TOOL) with every PATH directory holding TOOL dropped, and exits 0; the CTest test
matches `exit 1: FAIL: TOOL not found on PATH: ` in that line. TOOL must be on PATH to begin
with (else hiding it shows nothing, and the probe fails).

usage: need_probe.py TOOL
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import need  # noqa: E402

CHILD = """import sys
sys.path.insert(0, sys.argv[1])
from harness import need
print("need() returned", need(sys.argv[2], "the probe hid it"))
"""


def main():
    tool = sys.argv[1]
    need(tool, "need_probe.py hides it from PATH, so it must be there to begin with")
    kept = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not os.access(os.path.join(d, tool), os.X_OK)]
    # The interpreter is an absolute path: the child needs nothing from PATH to start.
    p = subprocess.run([sys.executable, "-c", CHILD, os.path.join(HERE, ".."), tool],
                       env=dict(os.environ, PATH=os.pathsep.join(kept)),
                       capture_output=True, text=True, timeout=60)
    print(f"exit {p.returncode}: {p.stderr.strip()}{p.stdout.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
