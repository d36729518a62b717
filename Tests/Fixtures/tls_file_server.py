"""An HTTPS file server on loopback for TLS tests: serves the files of DIR with a certificate.

usage: tls_file_server.py PORT CERT KEY DIR
"""
import functools
import http.server
import ssl
import sys

port, certificate, key, root = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(certificate, key)
# The handshake happens in each request's thread: a client that refuses the certificate (or a
# readiness probe that only connects) does not hold up the accept loop.
server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
server.serve_forever()
