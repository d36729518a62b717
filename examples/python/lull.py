"""A small client for lulld's control API, using only the Python standard library.

lulld listens on a Unix socket and speaks HTTP/1.1 with JSON bodies (see docs/api.md). This
module talks to it with http.client over AF_UNIX:

    import lull
    client = lull.Client()                       # $LULL_SOCKET, else the user instance's socket
    job = client.submit({"kind": "fetch", "url": "https://example.org/a.iso",
                         "destination": "/home/ada/a.iso"})
    for event in client.follow(after=0):         # every event, resuming after a disconnect
        print(event["seq"], event["type"])
    final = client.wait(job["id"])               # blocks until the job ends

Errors from the daemon raise LullError with its code, message and field; a daemon that cannot
be reached raises Unreachable with what to do about it.
"""

import http.client
import json
import os
import socket
import time
import urllib.parse

TERMINAL_STATES = frozenset({"succeeded", "failed", "cancelled", "expired"})


def default_socket_path(environ=os.environ):
    """The socket lullctl would use: $LULL_SOCKET, else $XDG_RUNTIME_DIR/lull/lull.sock, else
    lull.sock in the state directory ($XDG_STATE_HOME/lull or ~/.local/state/lull)."""
    if environ.get("LULL_SOCKET"):
        return environ["LULL_SOCKET"]
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/"):
        return runtime + "/lull/lull.sock"
    state = environ.get("XDG_STATE_HOME", "")
    if state.startswith("/"):
        return state + "/lull/lull.sock"
    return os.path.join(environ.get("HOME", "/root"), ".local/state/lull/lull.sock")


class LullError(Exception):
    """The daemon answered with an error: {"error": {"code", "message", "field"}}."""

    def __init__(self, status, code, message, field=None):
        super().__init__(f"{message} ({code}, HTTP {status})")
        self.status = status
        self.code = code
        self.message = message
        self.field = field


class Unreachable(Exception):
    """The daemon could not be reached at its socket."""


class UnixHTTPConnection(http.client.HTTPConnection):
    """http.client over a Unix stream socket instead of TCP."""

    def __init__(self, path, timeout=30):
        super().__init__("lull", timeout=timeout)
        self.socket_path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def parse_event_stream(lines):
    """Yields (id, event, data) for each message of a text/event-stream given as byte lines.
    A message ends at a blank line; comment lines (':') are skipped; data lines are joined."""
    fields = {"id": None, "event": None}
    data = []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield fields["id"], fields["event"], "\n".join(data)
            fields = {"id": None, "event": None}
            data = []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name in fields:
            fields[name] = value


class Client:
    def __init__(self, socket_path=None, timeout=30):
        self.socket_path = socket_path or default_socket_path()
        self.timeout = timeout

    # Typed calls -------------------------------------------------------------------------

    def status(self):
        return self._call("GET", "/v1/status")

    def submit(self, job):
        """Submits one job (a dict in the API's snake_case, e.g. {"kind": "fetch", ...})."""
        return self._call("POST", "/v1/jobs", body=job)

    def get(self, job_id):
        return self._call("GET", f"/v1/jobs/{int(job_id)}")

    def list(self, **filters):
        """One page of jobs; filters: state, label, class_, limit, after."""
        query = {("class" if k == "class_" else k): v for k, v in filters.items() if v is not None}
        return self._call("GET", "/v1/jobs", query=query)

    def cancel(self, job_id):
        return self._call("DELETE", f"/v1/jobs/{int(job_id)}")

    def pause(self, job_id):
        return self._call("POST", f"/v1/jobs/{int(job_id)}/pause")

    def resume(self, job_id):
        return self._call("POST", f"/v1/jobs/{int(job_id)}/resume")

    def explain(self, job_id):
        return self._call("GET", f"/v1/jobs/{int(job_id)}/explain")

    def events(self, after=0, limit=1000):
        """One page of events after the cursor, without waiting."""
        return self._call("GET", "/v1/events", query={"after": after, "limit": limit},
                          headers={"Accept": "application/json"})

    # Following events -----------------------------------------------------------------------

    def follow(self, after=0, reconnect_within=60.0, on_disconnect=None):
        """Yields every event after `after`, then new ones as they happen, forever.

        When the connection drops (the daemon restarts, or the socket goes away for a while) it
        reconnects with after= the last seq it yielded, so no event is missed or repeated. It
        gives up with Unreachable once the daemon has not answered for `reconnect_within`
        seconds. `on_disconnect(cursor)` is called each time the stream is lost."""
        cursor = after
        unreachable_since = None
        while True:
            try:
                conn = self._open_stream(cursor)
            except (OSError, http.client.HTTPException) as error:
                now = time.monotonic()
                unreachable_since = unreachable_since or now
                if now - unreachable_since > reconnect_within:
                    raise Unreachable(self._unreachable_message(error)) from error
                time.sleep(0.1)
                continue
            unreachable_since = None
            conn_response, conn_socket = conn
            try:
                for seq, _, data in parse_event_stream(iter(conn_response.readline, b"")):
                    event = json.loads(data)
                    cursor = event["seq"]
                    yield event
            except (OSError, http.client.HTTPException, ValueError):
                pass  # the stream broke mid-way; the cursor says where to pick up
            finally:
                conn_socket.close()
            if on_disconnect:
                on_disconnect(cursor)
            time.sleep(0.1)

    def wait(self, job_id, timeout=None):
        """Blocks until the job is succeeded, failed, cancelled or expired; returns the job."""
        deadline = None if timeout is None else time.monotonic() + timeout
        # The cursor comes before the job is read, so an ending in between is not missed.
        cursor = self.status().get("last_event_seq") or 0
        job = self.get(job_id)
        if job["state"] in TERMINAL_STATES:
            return job
        for event in self.follow(after=cursor):
            if event["job_id"] == job["id"] and event["state"] in TERMINAL_STATES:
                return self.get(job_id)
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} did not end within {timeout} s")

    # Plumbing ---------------------------------------------------------------------------------

    def _open_stream(self, after):
        conn = UnixHTTPConnection(self.socket_path, timeout=None)
        conn.request("GET", "/v1/events?" + urllib.parse.urlencode({"after": after}),
                     headers={"Accept": "text/event-stream"})
        response = conn.getresponse()
        if response.status != 200:
            body = response.read()
            conn.close()
            self._raise_api_error(response.status, body)
        return response, conn

    def _call(self, method, path, body=None, query=None, headers=None):
        if query:
            path += "?" + urllib.parse.urlencode(query)
        headers = dict(headers or {})
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        conn = UnixHTTPConnection(self.socket_path, timeout=self.timeout)
        try:
            try:
                conn.request(method, path, body=payload, headers=headers)
                response = conn.getresponse()
            except OSError as error:
                raise Unreachable(self._unreachable_message(error)) from error
            data = response.read()
        finally:
            conn.close()
        if not 200 <= response.status < 300:
            self._raise_api_error(response.status, data)
        return json.loads(data)

    @staticmethod
    def _raise_api_error(status, data):
        try:
            detail = json.loads(data)["error"]
        except (ValueError, KeyError, TypeError):
            raise LullError(status, "unexpected_answer", f"lulld answered {status} without an error body")
        raise LullError(status, detail.get("code"), detail.get("message"), detail.get("field"))

    def _unreachable_message(self, error):
        path = self.socket_path
        if isinstance(error, PermissionError):
            return (f"permission denied on {path}. Ask an admin to add you to the socket's group, "
                    "or use your own user instance.")
        if isinstance(error, (FileNotFoundError, ConnectionRefusedError)):
            return (f"lulld is not running (nothing answers at {path}). Start it with `lulld` "
                    "(or `systemctl start lulld`), or set LULL_SOCKET to its socket.")
        return f"cannot talk to lulld on {path} ({error})"
