"""The peer versions pinned in test/peers/versions.env, the one file that pins them.

pinned_versions() -> dict: every KEY=value line of the file (comments and blank lines skipped).
pinned(key) -> str: one pin; a key the file does not pin fails the test (never a default).
"""
import os

from .checks import fail

VERSIONS_ENV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers", "versions.env")


def pinned_versions(path=VERSIONS_ENV):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                key, eq, value = line.partition("=")
                if eq:
                    out[key] = value
    return out


def pinned(key, path=VERSIONS_ENV):
    value = pinned_versions(path).get(key)
    if value is None:
        fail(f"{key} is not pinned in test/peers/versions.env")
    return value
