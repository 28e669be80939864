"""Assertions that end the test on the first failure.

fail(msg) prints `FAIL: msg` to stderr and exits 1; check(cond, msg) fails unless cond and counts
the checks that held (checks_passed() returns the count, for a closing `PASS: N checks` line);
check_equal(got, want, what) fails showing both values.
"""
import sys

_passed = 0


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def check(cond, msg):
    global _passed
    if not cond:
        fail(msg)
    _passed += 1


def check_equal(got, want, what):
    check(got == want, f"{what}: got {got!r}, want {want!r}")


def checks_passed():
    return _passed
