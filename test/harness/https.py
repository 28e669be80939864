"""An HTTPS server on loopback for a stand-in a test talks to (a recording webhook, a fake
apiserver), stdlib only.

https_server(handler, cert, key, alpn=None) -> a ThreadingHTTPServer on 127.0.0.1 port 0 (the
  port: .server_address[1]) that speaks TLS with the pair cert/key and offers the ALPN protocols
  alpn; handler threads are daemons. The caller runs serve_forever() and shutdown().
"""
import ssl
from http.server import ThreadingHTTPServer


def https_server(handler, cert, key, alpn=None):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    if alpn:
        ctx.set_alpn_protocols(list(alpn))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    return server
