"""Loopback networking for tests.

free_port(host="127.0.0.1") -> a port nothing listens on at host right now ("" checks every
  address: for a program that binds some ports on 0.0.0.0 whatever address it is given).
http_ok(url, timeout=2) -> whether GET url answers 200 (anything else, or no answer, is False:
  the "not yet" of a health probe polled with wait_until).
"""
import socket
import urllib.request


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def http_ok(url, timeout=2):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status == 200
    except Exception:  # noqa: BLE001 - refused, reset, timed out, 5xx: all "not yet"
        return False
