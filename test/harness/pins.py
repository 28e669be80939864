"""The peer versions pinned in test/peers/versions.env, the one file that pins them.

pinned_versions() -> dict: every KEY=value line of the file (read_env: comment lines skipped).
pinned(key) -> str: one pin; a key the file does not pin fails the test (never a default).
"""
import os

from .checks import fail
from .cluster import read_env

VERSIONS_ENV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers", "versions.env")


def pinned_versions(path=VERSIONS_ENV):
    if not os.path.exists(path):
        fail(f"{path} is missing")
    return read_env(path)


def pinned(key, path=VERSIONS_ENV):
    value = pinned_versions(path).get(key)
    if value is None:
        fail(f"{key} is not pinned in test/peers/versions.env")
    return value
