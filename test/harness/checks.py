"""Assertions that end the test on the first failure.

fail(msg) prints `FAIL: msg` to stderr and raises Failed, a SystemExit with exit status 1 whose
.message is msg (a suite that cleans up first, or runs cases in threads, may catch it, and repeat
the reason after its logs); check(cond, msg) fails unless cond and counts the checks that held
(checks_passed() returns the count, for a closing `PASS: N checks` line); check_equal(got, want,
what) fails showing both values.
"""
import sys

_passed = 0


class Failed(SystemExit):
    def __init__(self, message):
        super().__init__(1)
        self.message = message


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr, flush=True)
    raise Failed(msg)


def check(cond, msg):
    global _passed
    if not cond:
        fail(msg)
    _passed += 1


def check_equal(got, want, what):
    check(got == want, f"{what}: got {got!r}, want {want!r}")


def checks_passed():
    return _passed
