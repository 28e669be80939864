#!/usr/bin/env python3
"""A TCP relay from inside a test network namespace to a server on the host's loopback.

    relay.py --netns NS --listen 127.0.0.1:9000 --to 127.0.0.1:PORT --ready-file FILE

The S3 server (MinIO) listens on the host's 127.0.0.1; processes inside the namespace (the pods'
network) reach it at --listen, as pods reach an S3 endpoint. Bytes are copied unchanged both ways
(the SigV4 signature covers the Host header the client sent, so it still verifies). The listening
socket is made inside NS by this process, which stays in the host namespace. The ready file gets
the PID once it listens. SIGTERM ends it.
"""
import argparse
import os
import signal
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402


def host_port(text):
    host, _, port = text.rpartition(":")
    return host, int(port)


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            try:
                s.shutdown(how)
            except OSError:
                pass


def serve(conn, target):
    try:
        upstream = socket.create_connection(target, timeout=10)
        upstream.settimeout(None)
    except OSError:
        conn.close()
        return
    a = threading.Thread(target=pipe, args=(conn, upstream), daemon=True)
    b = threading.Thread(target=pipe, args=(upstream, conn), daemon=True)
    a.start()
    b.start()
    a.join()
    b.join()
    conn.close()
    upstream.close()


def main(argv):
    p = argparse.ArgumentParser(prog="relay.py")
    p.add_argument("--netns", required=True)
    p.add_argument("--listen", required=True, type=host_port)
    p.add_argument("--to", required=True, type=host_port)
    p.add_argument("--ready-file", required=True)
    args = p.parse_args(argv)
    target = args.to
    if not target[0].startswith("127."):
        p.error("--to must be a loopback address")
    sock = netns.listen_in(args.netns, *args.listen)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    with open(args.ready_file + ".tmp", "w") as f:
        f.write(f"{os.getpid()}\n")
    os.replace(args.ready_file + ".tmp", args.ready_file)
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=serve, args=(conn, target), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
