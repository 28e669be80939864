"""need(tool, why): the absolute path of a tool on PATH, or the test FAILS.

A missing tool or prerequisite is a failure of the test that needs it, with the reason; there is
no skip path (scripts/install-deps.sh installs every tool the suites use).
"""
import os
import shutil

from .checks import fail


def need(tool, why):
    path = shutil.which(tool)
    if path is None:
        fail(f"{tool} not found on PATH: {why}")
    return os.path.abspath(path)
