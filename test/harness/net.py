"""Loopback networking for tests.

free_ports(n, host="127.0.0.1") -> n distinct ports nothing listens on at host right now ("" checks
  every address: for a program that binds some ports on 0.0.0.0 whatever address it is given).
  They are bound all at once: ports found one call at a time can repeat (the kernel may hand a
  port just released to the next caller), and two listeners then fight for one.
free_port(host="127.0.0.1") -> one such port.
http_ok(url, timeout=2) -> whether GET url answers 200 (anything else, or no answer, is False:
  the "not yet" of a health probe polled with wait_until).
"""
import socket
import urllib.request


def free_ports(n, host="127.0.0.1"):
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind((host, 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def free_port(host="127.0.0.1"):
    return free_ports(1, host)[0]


def http_ok(url, timeout=2):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status == 200
    except Exception:  # noqa: BLE001 - refused, reset, timed out, 5xx: all "not yet"
        return False
