#!/usr/bin/env python3
"""A TCP relay between a test network namespace and the host's loopback.

    relay.py --netns NS --listen 127.0.0.1:9000 --to 127.0.0.1:PORT --ready-file FILE
    relay.py --netns NS --reverse --listen 127.0.0.1:PORT --to 127.0.0.1:8265 --ready-file FILE

By default it listens inside NS and connects on the host: the S3 server (MinIO) listens on the
host's 127.0.0.1, and processes inside the namespace (the pods' network) reach it at --listen, as
pods reach an S3 endpoint. With --reverse it listens on the host's loopback and connects inside NS,
so a host process (an operator polling a Ray head's dashboard) reaches a server in the pods'
network. Bytes are copied unchanged both ways (the SigV4 signature covers the Host header the
client sent, so it still verifies). The sockets inside NS are made by this process, which stays in
the host namespace; --to must be a loopback address. The ready file gets the PID once it listens.
SIGTERM ends it.
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


def serve(conn, connect):
    try:
        upstream = connect()
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
    p.add_argument("--reverse", action="store_true", help="listen on the host, connect inside NS")
    p.add_argument("--ready-file", required=True)
    args = p.parse_args(argv)
    target = args.to
    if not target[0].startswith("127."):
        p.error("--to must be a loopback address")
    if args.reverse:
        if not args.listen[0].startswith("127."):
            p.error("--listen must be a loopback address with --reverse")
        sock = socket.create_server(args.listen, backlog=128)
        connect = lambda: netns.connect_in(args.netns, target)  # noqa: E731
    else:
        sock = netns.listen_in(args.netns, *args.listen)
        connect = lambda: socket.create_connection(target, timeout=10)  # noqa: E731
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    with open(args.ready_file + ".tmp", "w") as f:
        f.write(f"{os.getpid()}\n")
    os.replace(args.ready_file + ".tmp", args.ready_file)
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=serve, args=(conn, connect), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
