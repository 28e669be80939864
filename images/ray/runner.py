#!/usr/bin/env python3
"""Diagnostics runner for RayJob entrypoints.

    python runner.py --results s3://BUCKET/PREFIX/ [--endpoint-url URL] -- CMD [ARGS...]

Runs CMD, passing its stdout and stderr through live and line by line (where both streams land
in one log, as in a Ray job's, a line of one is never cut by the other; a line without its end
yet is passed on after LINE_WAIT), keeps a copy of both in temporary files
in a temporary directory (memory stays bounded whatever the output size), and when CMD ends uploads beside the job's
results under s3://BUCKET/PREFIX/:

  stdout.log      everything CMD wrote to stdout
  stderr.log      everything CMD wrote to stderr
  traceback.txt   the last Python traceback found in stderr (with its chained causes), or, when
                  there is none, the tail of stderr
  exit.json       exit code (or signal), start/end time in UTC ISO-8601, duration, the RayJob name,
                  the command

The RayJob name is read from the environment variable RAYJOB_NAME, else RAY_JOB_NAME (set one in
runtimeEnvYAML env_vars or the pod template); exit.json records which one was used, or null.

Uploads use the default boto3 credential chain, i.e. the pod's own identity (EKS Pod Identity or
IRSA); --endpoint-url exists for tests against a local S3 server. An upload failure is reported on
stderr and never changes the exit status: the runner exits with CMD's exit code (128+N when CMD was
killed by signal N). SIGTERM, SIGINT and SIGHUP are forwarded to CMD. The runner exits 2 on bad
arguments (before running anything) and 127 when CMD cannot be started.

Only the Python standard library and boto3 are used.
"""
import argparse
import collections
import datetime
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

TRACEBACK_START = "Traceback (most recent call last):"
CHAIN_MARKERS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
TAIL_LINES = 200            # traceback.txt fallback: the last lines of stderr...
MAX_LINE_BYTES = 4096       # ...each cut to this many bytes
MAX_TRACEBACK_BYTES = 256 * 1024
CHUNK = 64 * 1024
LINE_WAIT = 0.1              # seconds a partial line waits for its end before it is passed on


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def iso(ts):
    return ts.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def log(msg):
    sys.stderr.write(f"runner: {msg}\n")
    sys.stderr.flush()


def parse_s3_url(url):
    """Returns (bucket, prefix ending in '/' or empty), or raises ValueError."""
    if not url.startswith("s3://"):
        raise ValueError(f"--results must be an s3:// URL, got {url!r}")
    bucket, _, prefix = url[len("s3://"):].partition("/")
    if not bucket:
        raise ValueError(f"--results {url!r} names no bucket")
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    return bucket, prefix


def pump(src, sink_fd, spill):
    """Copies the pipe `src` to `spill` as read and to the file descriptor `sink_fd` in whole lines
    (up to the last \\n or \\r read), one write each, until EOF. The other stream's pump writes to
    the same log in a Ray job, and Python writes a traceback line in several pieces: forwarding raw
    reads let a stdout line land inside a traceback line. A partial line is passed on LINE_WAIT
    after its first byte came when its end has not (a prompt, dots of progress), or when it reaches
    CHUNK bytes."""
    fd = src.fileno()
    pending = b""
    pending_since = 0.0  # when the first byte of `pending` was read
    sink_open = True

    def forward(data):
        nonlocal sink_open
        while data and sink_open:
            try:
                data = data[os.write(sink_fd, data):]
            except InterruptedError:
                continue
            except OSError:
                sink_open = False  # our own stdout went away; keep the copy for the upload anyway

    while True:
        if pending:
            left = pending_since + LINE_WAIT - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                forward(pending)
                pending = b""
                continue
        try:
            chunk = os.read(fd, CHUNK)
        except InterruptedError:
            continue
        if not chunk:
            break
        spill.write(chunk)
        data = pending + chunk
        cut = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1
        if cut == 0 and len(data) >= CHUNK:
            cut = len(data)
        forward(data[:cut])
        if not pending or cut > len(pending):
            pending_since = time.monotonic()  # the bytes left over started after the last line end
        pending = data[cut:]
    forward(pending)
    src.close()


def find_traceback(spill):
    """Returns (kind, text): ('traceback', the last traceback with its chain) or ('tail', the last
    TAIL_LINES lines of stderr). Reads `spill` line by line; memory is bounded by the caps."""
    spill.seek(0)
    offset = 0
    chain_start = None       # offset where the last (possibly chained) traceback began
    prev_nonblank = ""
    tail = collections.deque(maxlen=TAIL_LINES)
    for raw in spill:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line.startswith(TRACEBACK_START):
            if chain_start is None or prev_nonblank.strip() not in CHAIN_MARKERS:
                chain_start = offset
        tail.append(line[:MAX_LINE_BYTES])
        if line.strip():
            prev_nonblank = line
        offset += len(raw)
    if chain_start is None:
        return "tail", "\n".join(tail) + ("\n" if tail else "")
    spill.seek(chain_start)
    # frames: indented lines after the header; exc: the exception line(s) up to a blank line;
    # gap/marker: between chained tracebacks. Anything else after the exception ends the block.
    out, pending, size, state, exc_lines = [], [], 0, "frames", 0
    for raw in spill:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        stripped = line.strip()
        if line.startswith(TRACEBACK_START) and state in ("frames", "gap", "marker"):
            state = "frames"
        elif stripped in CHAIN_MARKERS and state in ("exc", "gap"):
            state = "marker"
        elif state == "frames":
            if stripped and line[:1] not in (" ", "\t"):
                state, exc_lines = "exc", 0
        elif state == "exc":
            exc_lines += 1
            if not stripped:
                state = "gap"
            elif exc_lines > 50:
                break
        elif state in ("gap", "marker"):
            if stripped:
                break
        if state in ("gap",) or (state == "marker" and not stripped):
            pending.append(line)
            continue
        out.extend(pending)
        pending = []
        out.append(line[:MAX_LINE_BYTES])
        size += len(raw)
        if size > MAX_TRACEBACK_BYTES:
            out.append("... (traceback cut at %d bytes)" % MAX_TRACEBACK_BYTES)
            break
    return "traceback", "\n".join(out) + "\n"


def run(cmd, stdout_spill, stderr_spill):
    """Runs cmd with both streams pumped; returns (returncode or None, start error or None)."""
    env = dict(os.environ)
    # Python children buffer a piped stdout in 8 KiB blocks; unbuffered keeps the stream live.
    env.setdefault("PYTHONUNBUFFERED", "1")
    try:
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    except OSError as e:
        return None, f"cannot start {cmd[0]!r}: {e}"

    def forward(signum, _frame):
        try:
            child.send_signal(signum)
        except ProcessLookupError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    sys.stdout.flush()
    sys.stderr.flush()
    threads = [
        threading.Thread(target=pump, args=(child.stdout, sys.stdout.fileno(), stdout_spill), daemon=True),
        threading.Thread(target=pump, args=(child.stderr, sys.stderr.fileno(), stderr_spill), daemon=True),
    ]
    for t in threads:
        t.start()
    while True:
        try:
            code = child.wait()
            break
        except InterruptedError:
            continue
    for t in threads:
        t.join()
    return code, None


def upload(args, bucket, prefix, files):
    """Uploads [(key suffix, file path, content type)]; returns the number of failures."""
    try:
        import boto3
        from boto3.s3.transfer import TransferConfig
        from botocore.config import Config
    except ImportError as e:
        log(f"cannot upload diagnostics: boto3 is not installed ({e})")
        return len(files)
    config = Config(connect_timeout=10, read_timeout=60, retries={"max_attempts": 3},
                    s3={"addressing_style": "path"} if args.endpoint_url else None)
    # Multipart in 8 MiB parts, two at a time: the upload's memory stays near 16 MiB whatever the
    # log size (the default of ten parallel parts would hold ~80 MiB).
    transfer = TransferConfig(multipart_threshold=8 * 1024 * 1024, multipart_chunksize=8 * 1024 * 1024,
                              max_concurrency=2)
    failures = 0
    try:
        s3 = boto3.client("s3", endpoint_url=args.endpoint_url, config=config)
    except Exception as e:  # noqa: BLE001 - any client setup error is reported, never raised
        log(f"cannot upload diagnostics: {type(e).__name__}: {e}")
        return len(files)
    for name, path, content_type in files:
        key = prefix + name
        try:
            # By path, not file object: s3transfer reads a file object's parts into memory as it
            # queues them (the whole log), but opens a path lazily, part by part.
            s3.upload_file(path, bucket, key, ExtraArgs={"ContentType": content_type}, Config=transfer)
            log(f"uploaded s3://{bucket}/{key}")
        except Exception as e:  # noqa: BLE001 - the job's exit code must survive any upload error
            failures += 1
            log(f"upload of s3://{bucket}/{key} failed: {type(e).__name__}: {e}")
    return failures


def main(argv):
    parser = argparse.ArgumentParser(
        prog="runner.py", description="Run a RayJob entrypoint and upload its diagnostics to S3.",
        usage="%(prog)s --results s3://BUCKET/PREFIX/ [--endpoint-url URL] -- CMD [ARGS...]")
    parser.add_argument("--results", required=True, help="s3://BUCKET/PREFIX/ to write the diagnostics under")
    parser.add_argument("--endpoint-url", help="S3 endpoint (tests only; default: AWS)")
    if "--" not in argv:
        parser.print_usage(sys.stderr)
        log("missing '--' before the command")
        return 2
    split = argv.index("--")
    args = parser.parse_args(argv[:split])
    cmd = argv[split + 1:]
    if not cmd:
        parser.print_usage(sys.stderr)
        log("no command after '--'")
        return 2
    try:
        bucket, prefix = parse_s3_url(args.results)
    except ValueError as e:
        log(str(e))
        return 2

    name_source = next((v for v in ("RAYJOB_NAME", "RAY_JOB_NAME") if os.environ.get(v)), None)
    with tempfile.TemporaryDirectory(prefix="rayjob-runner-") as tmp:
        paths = {n: os.path.join(tmp, n) for n in ("stdout.log", "stderr.log", "traceback.txt", "exit.json")}
        with open(paths["stdout.log"], "w+b") as out_spill, open(paths["stderr.log"], "w+b") as err_spill:
            start = utc_now()
            t0 = time.monotonic()
            code, start_error = run(cmd, out_spill, err_spill)
            end = utc_now()
            duration = round(time.monotonic() - t0, 3)
            if start_error:
                log(start_error)
                err_spill.write((start_error + "\n").encode())
                exit_code, signame = 127, None
            elif code < 0:
                exit_code, signame = 128 - code, signal.Signals(-code).name
            else:
                exit_code, signame = code, None
            err_spill.flush()
            kind, tb_text = find_traceback(err_spill)
        if kind == "tail":
            tb_text = f"(no Python traceback in stderr; its last {TAIL_LINES} lines at most follow)\n" + tb_text
        record = {
            "exitCode": exit_code,
            "signal": signame,
            "startTime": iso(start),
            "endTime": iso(end),
            "durationSeconds": duration,
            "rayJobName": os.environ.get(name_source) if name_source else None,
            "rayJobNameSource": name_source,
            "command": cmd,
            "startError": start_error,
            "traceback": kind == "traceback",
            "hostname": socket.gethostname(),
        }
        with open(paths["traceback.txt"], "w", encoding="utf-8") as f:
            f.write(tb_text)
        with open(paths["exit.json"], "w", encoding="utf-8") as f:
            f.write(json.dumps(record, indent=2) + "\n")
        failures = upload(args, bucket, prefix, [
            ("stdout.log", paths["stdout.log"], "text/plain; charset=utf-8"),
            ("stderr.log", paths["stderr.log"], "text/plain; charset=utf-8"),
            ("traceback.txt", paths["traceback.txt"], "text/plain; charset=utf-8"),
            ("exit.json", paths["exit.json"], "application/json"),
        ])
        if failures:
            log(f"{failures} diagnostics file(s) not uploaded; exiting with the command's code {exit_code}")
    return exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
