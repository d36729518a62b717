"""HTTP/1.1 over lulld's Unix stream socket, with http.client."""

from __future__ import annotations

import http.client
import socket
from typing import Optional


class UnixHTTPConnection(http.client.HTTPConnection):
    """An ``http.client.HTTPConnection`` that connects to a Unix socket instead of TCP. The host
    part of the URL is not used by lulld; ``lull`` is sent."""

    def __init__(self, path: str, timeout: Optional[float] = 30.0) -> None:
        super().__init__("lull", timeout=timeout)
        self.socket_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


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
