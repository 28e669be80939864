#!/usr/bin/env python3
"""Unit test of test/harness: each helper's success path, and each failure path (run in a child
interpreter, since a failure exits) ending with exit 1 and its `FAIL: ` line on stderr.

usage: harness_test.py WORK_DIR
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import (check, check_equal, checks_passed, command_line, run, start,  # noqa: E402
                     stop, wait_for_file, wait_until)


def child(statement):
    """(exit code, stderr) of a child interpreter that imports harness and runs statement."""
    code = f"import sys\nsys.path.insert(0, {os.path.join(HERE, '..')!r})\nfrom harness import *\n"
    p = subprocess.run([sys.executable, "-c", code + statement], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stderr


def expect_failure(statement, line):
    got = child(statement)
    check_equal(got, (1, f"FAIL: {line}\n"), statement)


def fresh(path):
    """path, with no file there."""
    if os.path.exists(path):
        os.remove(path)
    return path


def main():
    work = os.path.abspath(sys.argv[1])
    os.makedirs(work, exist_ok=True)

    check_equal(run(["sh", "-c", "echo out; echo err >&2; exit 3"]), (3, "out\n", "err\n"),
                "run() returns (code, stdout, stderr) as str")
    check_equal(run(["cat"], stdin=b"\x00\xff", text=False), (0, b"\x00\xff", b""),
                "run(text=False) returns bytes; stdin may be bytes")
    check_equal(run(["cat"], stdin="text"), (0, "text", ""), "stdin may be str")
    expect_failure('run(["sh", "-c", "echo no >&2; exit 4"], check=True)',
                   "sh -c echo no >&2; exit 4: exit 4: no")
    expect_failure('run(["sleep", "5"], timeout=0.2)', "sleep 5: still running after 0.2 s")
    check_equal(command_line(["cat", 1, "b"]), "cat 1 b", "command_line() of a short argv")
    check_equal(command_line([f"f{i}" for i in range(20)]), "f0 f1 f2 f3 ... (12 more) ... f16 f17 f18 f19",
                "command_line() cuts the middle of a long argv")
    expect_failure('run(["false", *map(str, range(100))], check=True)',
                   "false 0 1 2 ... (93 more) ... 96 97 98 99: exit 1: ")

    expect_failure('check(1 == 2, "one is two")', "one is two")
    expect_failure('check_equal([1], [2], "the list")', "the list: got [1], want [2]")
    expect_failure('need("no-such-tool-rjg", "the test asks for it")',
                   "no-such-tool-rjg not found on PATH: the test asks for it")

    log = os.path.join(work, "sleeper.log")
    flag = fresh(os.path.join(work, "flag"))
    proc = start(["sh", "-c", f"echo started; touch {flag}; exec sleep 60"], log)
    wait_for_file(flag, 10, proc)
    began = time.monotonic()
    check_equal(stop(proc), -15, "stop() ends a process by SIGTERM to its PID")
    check(time.monotonic() - began < 5, "stop() does not wait out a process that obeys SIGTERM")
    check(wait_until(lambda: "started" in open(log).read(), 5, "the log"),
          "start() writes the process's stdout to its log")
    trapped = fresh(os.path.join(work, "trapped"))
    stubborn = start(["sh", "-c", f"trap '' TERM; touch {trapped}; exec sleep 60"], log)
    wait_for_file(trapped, 10, stubborn)
    check_equal(stop(stubborn, timeout=0.5), -9, "stop() kills a process that ignores SIGTERM")

    expect_failure('wait_until(lambda: False, 0.2, "never")', "never: not within 0.2 s")
    absent = os.path.join(work, "absent")
    expect_failure(f'wait_for_file({absent!r}, 5, start(["true"], {log!r}))',
                   f"{absent} to exist: the process exited 0 first")
    print(f"PASS: {checks_passed()} checks")


if __name__ == "__main__":
    main()
