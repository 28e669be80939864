#!/usr/bin/env python3
"""reaper.stop_mid_pass: `reap --interval` finishes the pass it is in when SIGTERM arrives, then
exits 0.

The fake API (fake_apiserver.py) holds the reaper's first list for a few seconds; the test sends
SIGTERM as soon as that list has arrived, so the reaper is in the middle of a pass, and expects:
  - exit status 0, not death by the signal: every thread of the reaper, the logger's flusher
    included, must block SIGTERM while a pass runs, or the kernel hands the signal to a thread
    that does not and its default action ends the process between a decision and its DELETE;
  - the pass completed after the signal: the DELETE of rj-ok reached the API after the held list;
  - on stderr, a `reap pass` line, then `reap stopping signal=SIGTERM`.

usage: stop_signal_test.py --binary PATH --work DIR
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import check, check_equal, checks_passed, fail, mint_certs, start, stop, wait_until  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
HOLD_SECONDS = 3
TOKEN = "sekret"
END_TIME = "2026-11-29T15:07:29Z"


def logged_requests(path):
    """The fake API's request log, one dict per request."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    certs = mint_certs(REPO, os.path.join(args.work, "certs"))
    token_file = os.path.join(args.work, "token")
    with open(token_file, "w", encoding="utf-8") as f:
        f.write(TOKEN + "\n")
    requests = os.path.join(args.work, "requests.jsonl")

    api = start([sys.executable, os.path.join(HERE, "fake_apiserver.py"),
                 "--cert", os.path.join(certs, "tls.crt"), "--key", os.path.join(certs, "tls.key"),
                 "--token", TOKEN, "--log", requests, "--end-time", END_TIME,
                 "--hold-first-get", str(HOLD_SECONDS)],
                os.path.join(args.work, "fake-apiserver.log"), stdout=subprocess.PIPE)
    reaper = None
    try:
        first = api.stdout.readline().decode().split()
        if len(first) != 2 or first[0] != "PORT":
            fail(f"fake_apiserver.py did not print its port: {first}")
        reaper_log = os.path.join(args.work, "reap.log")
        reaper = start([args.binary, "reap", "--interval", "60", "-n", "tenant-a",
                        "--page-size", "2", "--server", f"https://127.0.0.1:{first[1]}",
                        "--token-file", token_file, "--ca", os.path.join(certs, "ca.crt")],
                       reaper_log)
        wait_until(lambda: any(r["method"] == "GET" for r in logged_requests(requests)), 30,
                   "the reaper's first list at the fake API", proc=reaper, log_path=reaper_log)
        reaper.send_signal(signal.SIGTERM)
        try:
            code = reaper.wait(60)
        except subprocess.TimeoutExpired:
            fail("reap --interval still runs 60 s after SIGTERM")
        with open(reaper_log, encoding="utf-8") as f:
            log = f.read()
        check_equal(code, 0, f"reap --interval's exit status after a SIGTERM mid-pass (log:\n{log})")
        deletes = [r["path"].rsplit("/", 1)[-1] for r in logged_requests(requests)
                   if r["method"] == "DELETE"]
        check("rj-ok" in deletes, f"the pass cut by SIGTERM deleted rj-ok (DELETEs: {deletes})")
        passed = log.find("reap pass ")
        stopping = log.find("reap stopping signal=SIGTERM")
        check(0 <= passed < stopping,
              f"a 'reap pass' line, then 'reap stopping signal=SIGTERM' (log:\n{log})")
        print(f"ok: SIGTERM {HOLD_SECONDS} s before the first list's answer: the pass finished "
              f"(DELETEs: {', '.join(deletes)}), then reap stopped with exit 0")
    finally:
        if reaper is not None and reaper.poll() is None:
            stop(reaper, signal.SIGKILL)
        stop(api)
    print(f"PASS: {checks_passed()} checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
