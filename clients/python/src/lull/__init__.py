"""A client for lulld, Lull's background transfer scheduler, over its Unix socket.

lulld speaks HTTP/1.1 with JSON bodies on a Unix socket (docs/api.md); this package talks to it
with the standard library only::

    import lull

    client = lull.Client()      # $LULL_SOCKET, else your user instance, else the system one
    cursor = client.status()["last_event_seq"]
    job = client.fetch("https://example.org/a.iso", "/home/ada/a.iso", label="iso")
    for event in client.follow(after=cursor):       # resumes from the cursor across restarts
        if event["job_id"] == job["id"]:
            print(event["seq"], event["type"])
            if event["state"] in lull.TERMINAL_STATES:
                break
    final = client.wait(job["id"])                  # or simply this

Refusals raise :class:`LullError` with the API's ``code``, ``field`` and ``message``; a daemon
that cannot be reached raises :class:`Unreachable`, saying what to do.
"""

from ._version import __version__
from .client import Client, Job, OutputPage
from .discovery import SYSTEM_SOCKET, default_socket_path, user_socket_path
from .errors import LullError, Unreachable
from .events import TERMINAL_STATES, Event, Message, parse_event_stream
from .transport import UnixHTTPConnection

__all__ = [
    "Client",
    "Event",
    "Job",
    "LullError",
    "Message",
    "OutputPage",
    "SYSTEM_SOCKET",
    "TERMINAL_STATES",
    "Unreachable",
    "UnixHTTPConnection",
    "__version__",
    "default_socket_path",
    "parse_event_stream",
    "user_socket_path",
]
