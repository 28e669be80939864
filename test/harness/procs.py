"""Child processes for tests, each with a deadline.

run(argv, stdin=None, timeout=60, check=False, text=True, **kwargs) -> (code, stdout, stderr),
  a Completed tuple (also .returncode, .stdout, .stderr): str outputs (bytes with text=False);
  stdin may be str or bytes; check=True fails the test on a non-zero exit; a run past its timeout
  fails the test.
command_line(argv) -> argv as one line for a message, its middle cut when it is long (a batch of
  thousands of files).
start(argv, log_path, **kwargs) -> Popen with stderr, and stdout unless kwargs name another
  place for it, appended to log_path.
stop(proc, sig=SIGTERM, timeout=10) -> exit status: the signal to its PID, a wait, then SIGKILL.
wait_until(predicate, timeout, what, proc=None, log_path=None, poll=0.01, detail=None) ->
  predicate's first truthy value, polled every poll s, or the test fails at the deadline (or as
  soon as proc has exited), adding what detail() says (e.g. what is still there) and the end of
  log_path when given.
wait_for_file(path, timeout, proc=None, log_path=None) -> path, once it exists.
"""
import collections
import os
import signal
import subprocess
import time

from .checks import fail

SHOWN_ARGS = 8  # arguments of a long command line a message shows, first and last together
Completed = collections.namedtuple("Completed", "returncode stdout stderr")


def command_line(argv):
    words = [str(a) for a in argv]
    if len(words) > SHOWN_ARGS:
        half = SHOWN_ARGS // 2
        words = [*words[:half], f"... ({len(words) - SHOWN_ARGS} more) ...", *words[-half:]]
    return " ".join(words)


def run(argv, stdin=None, timeout=60, check=False, text=True, **kwargs):
    data = stdin.encode() if isinstance(stdin, str) else stdin
    try:
        p = subprocess.run(argv, input=data, capture_output=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        fail(f"{command_line(argv)}: still running after {timeout} s")
    out, err = (p.stdout.decode(), p.stderr.decode()) if text else (p.stdout, p.stderr)
    if check and p.returncode != 0:
        shown = err.strip() if text else err.decode(errors="replace").strip()
        fail(f"{command_line(argv)}: exit {p.returncode}: {shown}")
    return Completed(p.returncode, out, err)


def start(argv, log_path, **kwargs):
    with open(log_path, "ab") as log:
        kwargs.setdefault("stdout", log)
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stderr=log, **kwargs)


def stop(proc, sig=signal.SIGTERM, timeout=10):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def log_tail(log_path, limit=4000):
    """The last `limit` bytes of log_path (all of it for None), as text."""
    with open(log_path, "rb") as f:
        data = f.read()
    return (data if limit is None else data[-limit:]).decode(errors="replace")


def wait_until(predicate, timeout, what, proc=None, log_path=None, poll=0.01, detail=None):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            why = f"the process exited {proc.returncode} first"
        elif time.monotonic() > deadline:
            why = f"not within {timeout} s"
        else:
            time.sleep(poll)
            continue
        said = f"; {detail()}" if detail else ""
        said += f"; its log ends: {log_tail(log_path)}" if log_path else ""
        fail(f"{what}: {why}{said}")


def wait_for_file(path, timeout, proc=None, log_path=None):
    wait_until(lambda: os.path.exists(path), timeout, f"{path} to exist", proc, log_path)
    return path
