"""A stand-in for lulld on a Unix socket, for answers the real one cannot be made to give on cue
(a cut body, a refused connection for root, events at chosen times, a full listen backlog)."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any, Callable, List

#: Serves one accepted connection: the connection and its index (0 for the first accepted).
Handler = Callable[[socket.socket, int], None]


def read_head(connection: socket.socket) -> bytes:
    """The request's line and headers (the body, if any, is left unread); b"" when the client
    went away first."""
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = connection.recv(4096)
        if not chunk:
            return b""
        head += chunk
    return head.split(b"\r\n\r\n", 1)[0]


def answer(status: str, body: bytes, headers: str = "content-type: application/json\r\n") -> bytes:
    """A whole answer that closes the connection, as lulld sends them."""
    return (
        f"HTTP/1.1 {status}\r\n{headers}content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode() + body
    )


def json_answer(status: str, value: Any) -> bytes:
    return answer(status, json.dumps(value).encode())


class FakeDaemon:
    """Listens at ``path``; from ``accept_after`` seconds on, accepts each connection and gives it
    to ``handle`` on a thread of its own. The connections it accepted are closed by ``close``."""

    def __init__(self, path: str, handle: Handler, backlog: int = 16, accept_after: float = 0.0) -> None:
        self.path = path
        self.handle = handle
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(backlog)
        self.accepted: List[socket.socket] = []
        self.closed = threading.Event()
        self.accept_after = accept_after
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        if self.closed.wait(self.accept_after):
            return
        index = 0
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return  # closed
            self.accepted.append(connection)
            threading.Thread(target=self._serve, args=(connection, index), daemon=True).start()
            index += 1

    def _serve(self, connection: socket.socket, index: int) -> None:
        try:
            self.handle(connection, index)
        except OSError:
            pass  # the client left
        finally:
            connection.close()

    def close(self) -> None:
        self.closed.set()
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        except OSError:
            pass
        self.listener.close()
        for connection in self.accepted:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def fill_backlog(path: str) -> List[socket.socket]:
    """Connects to ``path`` without being accepted until its listen backlog is full (the next
    connect fails with EAGAIN); the caller closes what it returns."""
    held: List[socket.socket] = []
    while len(held) < 1000:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.connect(path)
        except BlockingIOError:
            sock.close()
            return held
        held.append(sock)
    raise AssertionError(f"the backlog of {path} did not fill")


def sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.monotonic()))
