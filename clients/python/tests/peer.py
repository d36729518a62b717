"""The HTTP server the daemon's jobs talk to: serves files for fetches, and records what pushes
and uploads send."""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, NamedTuple


class Received(NamedTuple):
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


class Peer:
    def __init__(self) -> None:
        self.files: Dict[str, bytes] = {}
        self.received: List[Received] = []
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        peer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                data = peer.files.get(self.path)
                if data is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("ETag", '"' + hashlib.sha256(data).hexdigest()[:16] + '"')
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                self._record()

            def do_PUT(self) -> None:
                self._record()

            def _record(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                with peer.arrived:
                    peer.received.append(
                        Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    peer.arrived.notify_all()
                answer = b'{"stored":true}'
                self.send_response(201)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def requests_to(self, path: str) -> List[Received]:
        with self.lock:
            return [request for request in self.received if request.path == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
