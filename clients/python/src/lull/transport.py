"""HTTP/1.1 over lulld's Unix stream socket, with http.client."""

from __future__ import annotations

import http.client
import socket
import time
from typing import Mapping, Optional

#: How long to wait before knocking again on a daemon whose listen backlog is full.
BACKLOG_RETRY_SECONDS = 0.01


class UnixHTTPConnection(http.client.HTTPConnection):
    """An ``http.client.HTTPConnection`` that connects to a Unix socket instead of TCP. The host
    part of the URL is not used by lulld; ``lull`` is sent."""

    def __init__(self, path: str, timeout: Optional[float] = 30.0) -> None:
        super().__init__("lull", timeout=timeout)
        self.socket_path = path
        #: The socket :meth:`connect` made. http.client drops ``sock`` when it hands the socket
        #: to an answer that closes the connection (lulld's event stream does), but that answer
        #: still reads from this socket, so a deadline is set here.
        self.unix_socket: Optional[socket.socket] = None

    def connect(self) -> None:
        # With a timeout the socket is non-blocking underneath, and connecting to a daemon whose
        # listen backlog is full fails at once with EAGAIN rather than waiting for room, so the
        # connect is tried again until the timeout has passed (lullctl waits the same way).
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            while True:
                sock.settimeout(None if deadline is None else max(0.001, deadline - time.monotonic()))
                try:
                    sock.connect(self.socket_path)
                    break
                except BlockingIOError:
                    if deadline is not None and time.monotonic() >= deadline:
                        raise socket.timeout(f"lulld did not take the connection within {self.timeout} s") from None
                    time.sleep(BACKLOG_RETRY_SECONDS)
        except OSError:
            sock.close()
            raise
        sock.settimeout(self.timeout)
        self.sock = sock
        self.unix_socket = sock

    def exchange(
        self, method: str, path: str, body: Optional[bytes] = None, headers: Optional[Mapping[str, str]] = None
    ) -> http.client.HTTPResponse:
        """Sends a request and reads its answer's head.

        lulld may answer before it has read the whole request, and close: ``413 too_large`` as
        soon as it sees a ``Content-Length`` over its limit, ``429 too_many_connections`` before
        reading anything. The rest of the request then meets a broken pipe or a reset, but the
        answer is there to read, and it says what is wrong; the send's error is raised only when
        there is no answer.
        """
        try:
            self.request(method, path, body=body, headers=dict(headers or {}))
        except (BrokenPipeError, ConnectionResetError) as unsent:
            try:
                return self.getresponse()
            except (OSError, http.client.HTTPException):
                raise unsent from None
        return self.getresponse()


def unreachable_message(path: str, error: BaseException) -> str:
    """Why the daemon at ``path`` could not be reached, and what to do about it."""
    if isinstance(error, PermissionError):
        return (
            f"permission denied on {path}: ask an admin to add you to the socket's group "
            "(lull-clients for the system instance), or start your own user instance "
            "(systemctl --user enable --now lulld.socket)"
        )
    if isinstance(error, (FileNotFoundError, ConnectionRefusedError)):
        return (
            f"lulld is not running (nothing answers at {path}): start it (systemctl start lulld.socket, "
            "systemctl --user start lulld.socket, or lulld), or point LULL_SOCKET at its socket"
        )
    if isinstance(error, socket.timeout):
        return f"lulld at {path} did not answer in time: is it stuck? (journalctl -u lulld)"
    return f"cannot talk to lulld at {path}: {error}"
