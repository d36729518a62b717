"""The client: one method per route of lulld's control API v1 (docs/api.md)."""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import time
import urllib.parse
from typing import Any, Callable, Dict, Generator, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Tuple, Union

from .discovery import default_socket_path
from .errors import LullError, Unreachable
from .events import TERMINAL_STATES, Event, parse_event_stream
from .transport import UnixHTTPConnection, unreachable_message

#: A job as the API shows it (docs/api.md, "The job object"): ``id``, ``kind``, ``state``,
#: ``owner_uid``, ``url``, ``class``, ``created_at``... in the API's snake_case.
Job = Dict[str, Any]

PathLike = Union[str, "os.PathLike[str]"]


class OutputPage(NamedTuple):
    """A run job's log from an offset on (:meth:`Client.output_page`)."""

    #: The log's bytes from the offset on, as stored (a command's output need not be UTF-8).
    data: bytes
    #: The whole log's size (``Lull-Log-Size``); None from a daemon that does not send it. A
    #: size below the offset asked for means the log was cut to its newest bytes, or a new
    #: attempt began it again: a follower starts over from 0.
    log_size: Optional[int]


class Client:
    """Talks to one lulld over its Unix socket.

    ``socket_path`` defaults to what ``lullctl`` would use: ``$LULL_SOCKET``, else the user
    instance's socket when it exists, else the system instance's ``/run/lull/lull.sock``.
    ``timeout`` bounds each call (not event streams), in seconds.

    Every method raises :class:`~lull.LullError` when the daemon refuses (with its ``code`` and
    ``field``) and :class:`~lull.Unreachable` when it cannot be reached.
    """

    def __init__(self, socket_path: Optional[PathLike] = None, timeout: float = 30.0) -> None:
        self.socket_path = os.fspath(socket_path) if socket_path is not None else default_socket_path()
        self.timeout = timeout

    # Daemon -----------------------------------------------------------------------------------

    def status(self) -> Dict[str, Any]:
        """The daemon's version, job counts, limits and world (``GET /v1/status``)."""
        return self._call("GET", "/v1/status")

    # Submitting -------------------------------------------------------------------------------

    def submit(self, job: Mapping[str, Any]) -> Job:
        """Submits one job given in the API's own keys, e.g. ``{"kind": "fetch", "url": ...,
        "destination": ...}``; returns it as stored (``queued``, with its ``id``)."""
        return self._call("POST", "/v1/jobs", body=dict(job))

    def submit_batch(self, jobs: Iterable[Mapping[str, Any]]) -> List[Job]:
        """Submits several jobs at once, all or none (``POST /v1/jobs:batch``)."""
        answer = self._call("POST", "/v1/jobs:batch", body={"jobs": [dict(job) for job in jobs]})
        return list(answer["jobs"])

    def fetch(self, url: str, destination: PathLike, **fields: Any) -> Job:
        """Downloads ``url`` into ``destination`` (made absolute against the current directory).
        Other job fields as keywords: ``label``, ``class_`` (for ``class``), ``sha256``,
        ``not_before``, ``requires_ac``, ``retry={"max_attempts": 3}``..."""
        return self.submit(_job("fetch", url, fields, destination=os.path.abspath(os.fspath(destination))))

    def push(self, url: str, body: Union[str, bytes, None] = None, **fields: Any) -> Job:
        """Sends a small payload to ``url``: text as ``body``, bytes as ``body_base64``. The same
        ``Idempotency-Key`` goes with every attempt (``idempotency_key=`` to choose it)."""
        if isinstance(body, bytes):
            fields["body_base64"] = base64.b64encode(body).decode("ascii")
        elif body is not None:
            fields["body"] = body
        return self.submit(_job("push", url, fields))

    def upload(self, url: str, source: PathLike, **fields: Any) -> Job:
        """Sends the file ``source`` (made absolute) to ``url``; ``protocol="multipart"`` or
        ``"tus"`` for those (the default is the raw file as a ``PUT`` body)."""
        return self.submit(_job("upload", url, fields, source=os.path.abspath(os.fspath(source))))

    def run(self, argv: Iterable[str], **fields: Any) -> Job:
        """Runs a program: ``argv`` as given, no shell. Other fields as keywords:
        ``working_directory``, ``environment={"K": "V"}``, ``retry_exit_codes=[3]``,
        ``stop_grace_seconds``, ``nice``, ``requires_ac``, ``class_``..., and the limits a
        systemd host enforces: ``cpu_weight``, ``memory_max`` (bytes), ``io_weight``,
        ``tasks_max`` (elsewhere refused: ``LullError`` with status 422)."""
        job: Dict[str, Any] = {"kind": "run", "argv": [str(word) for word in argv]}
        for key, value in fields.items():
            job["class" if key == "class_" else key] = value
        return self.submit(job)

    # Reading ----------------------------------------------------------------------------------

    def get(self, job_id: int) -> Job:
        """One job (``GET /v1/jobs/{id}``)."""
        return self._call("GET", f"/v1/jobs/{int(job_id)}")

    show = get

    def output(self, job_id: int, offset: int = 0) -> bytes:
        """A run job's output as lulld keeps it (``GET /v1/jobs/{id}/output``), from ``offset``."""
        return self.output_page(job_id, offset).data

    def output_page(self, job_id: int, offset: int = 0) -> OutputPage:
        """A run job's output from ``offset``, with the whole log's size: what a follower needs
        to ask for the rest, and to notice that the log was cut (``log_size`` below ``offset``).

        A log that a new attempt empties while it is being sent arrives short of its
        ``Content-Length`` (docs/api.md: "ask again"); it is asked for once more.
        """
        path = f"/v1/jobs/{int(job_id)}/output" + (f"?offset={int(offset)}" if offset else "")
        try:
            return self._output_page(path)
        except http.client.IncompleteRead:
            pass  # the log was emptied mid-send: ask once more
        try:
            return self._output_page(path)
        except http.client.IncompleteRead as error:
            raise Unreachable(unreachable_message(self.socket_path, error), self.socket_path) from error

    def _output_page(self, path: str) -> OutputPage:
        """One ask; a body cut short raises ``IncompleteRead``, for :meth:`output_page` to ask again."""
        connection = UnixHTTPConnection(self.socket_path, timeout=self.timeout)
        try:
            response = connection.exchange("GET", path)
            data = response.read()
        except http.client.IncompleteRead:
            raise
        except (OSError, http.client.HTTPException) as error:
            raise Unreachable(unreachable_message(self.socket_path, error), self.socket_path) from error
        finally:
            connection.close()
        if not 200 <= response.status < 300:
            raise LullError.from_answer(response.status, data)
        size = response.getheader("Lull-Log-Size")
        return OutputPage(data, int(size) if size is not None and size.isdigit() else None)

    def list(
        self,
        state: Optional[str] = None,
        label: Optional[str] = None,
        class_: Optional[str] = None,
        owner: Optional[int] = None,
        limit: Optional[int] = None,
        after: Optional[int] = None,
    ) -> Dict[str, Any]:
        """One page of jobs, oldest first: ``{"jobs": [...], "next_after": N}``, where
        ``next_after`` is there when the page is full; pass it as ``after`` for the next page."""
        query = {"state": state, "label": label, "class": class_, "owner": owner, "limit": limit, "after": after}
        return self._call("GET", "/v1/jobs", query=query)

    def jobs(
        self,
        state: Optional[str] = None,
        label: Optional[str] = None,
        class_: Optional[str] = None,
        owner: Optional[int] = None,
        page_size: int = 1000,
    ) -> Iterator[Job]:
        """Every job that matches, page after page."""
        after: Optional[int] = None
        while True:
            page = self.list(state=state, label=label, class_=class_, owner=owner, limit=page_size, after=after)
            yield from page["jobs"]
            if "next_after" not in page:
                return
            after = int(page["next_after"])

    def explain(self, job_id: int) -> Dict[str, Any]:
        """Why the job is or is not running: ``summary``, ``reasons``, ``world``."""
        return self._call("GET", f"/v1/jobs/{int(job_id)}/explain")

    def simulate(self, **world: Any) -> Dict[str, Any]:
        """What would run in another world (``on_battery=True, battery=15, metered=True``);
        changes nothing."""
        return self._call("POST", "/v1/simulate", body=world)

    # Commands ---------------------------------------------------------------------------------

    def cancel(self, job_id: int) -> Job:
        """Cancels a queued, running or paused job; returns it, ``cancelled``."""
        return self._call("DELETE", f"/v1/jobs/{int(job_id)}")

    def pause(self, job_id: int) -> Job:
        """Holds a queued or running job until :meth:`resume`."""
        return self._call("POST", f"/v1/jobs/{int(job_id)}/pause")

    def resume(self, job_id: int) -> Job:
        """Puts a paused job back in the queue."""
        return self._call("POST", f"/v1/jobs/{int(job_id)}/resume")

    # Events -----------------------------------------------------------------------------------

    def events(self, after: int = 0, limit: int = 1000) -> Dict[str, Any]:
        """One page of events after the cursor, at once: ``{"events": [...], "last_seq": N}``."""
        return self._call(
            "GET", "/v1/events", query={"after": after, "limit": limit}, headers={"Accept": "application/json"}
        )

    def follow(
        self,
        after: int = 0,
        timeout: Optional[float] = None,
        reconnect_within: float = 60.0,
        on_disconnect: Optional[Callable[[int], None]] = None,
        silence: float = 45.0,
    ) -> Generator[Event, None, None]:
        """Yields every event after the cursor ``after``, then new ones as they happen.

        When the stream ends (the daemon stopped or restarted) it reconnects with ``after`` set
        to the last ``seq`` it yielded, so no event is missed or repeated, and calls
        ``on_disconnect(cursor)``. It raises :class:`~lull.Unreachable` once the daemon has not
        answered for ``reconnect_within`` seconds, and ``TimeoutError`` when ``timeout`` seconds
        have passed (None: follow for ever). Keep the last ``seq`` to resume in another process;
        ``close()`` the generator to let go of its connection early.

        lulld sends a ``: keep-alive`` comment when 15 s pass without an event, so a stream on
        which not a byte arrives for ``silence`` seconds is taken for a broken one (a daemon
        stopped with SIGSTOP, a hung machine): it is closed and reconnected from the cursor as
        above, and a daemon that does not answer the new connection within ``silence`` counts
        as not answering. Keep it above the 15 s between keep-alives, or a quiet stream is
        reconnected again and again.
        """
        if not silence > 0:
            raise ValueError(f"silence must be more than 0 seconds, not {silence!r}")
        deadline = None if timeout is None else time.monotonic() + timeout
        cursor = after
        unreachable_since: Optional[float] = None
        while True:
            try:
                response, connection = self._open_stream(cursor, deadline, silence)
            except (OSError, http.client.HTTPException) as error:
                _check_deadline(deadline, cursor)
                now = time.monotonic()
                unreachable_since = unreachable_since or now
                if now - unreachable_since > reconnect_within:
                    raise Unreachable(unreachable_message(self.socket_path, error), self.socket_path) from error
                time.sleep(0.1)
                continue
            unreachable_since = None
            try:
                for message in parse_event_stream(_lines(response, connection, deadline, silence)):
                    # The read may return just after the deadline: an event that late is not given.
                    _check_deadline(deadline, cursor)
                    try:
                        event: Event = json.loads(message.data)
                        seq = int(event["seq"])
                    except (ValueError, KeyError, TypeError) as error:
                        raise LullError(200, "unexpected_answer", f"an event lulld sent is not one: {message.data!r}") from error
                    cursor = seq
                    yield event
                    _check_deadline(deadline, cursor)
            except (OSError, http.client.HTTPException):
                # Else the stream broke, or was silent for `silence` s (a read timed out): pick up
                # from the cursor.
                _check_deadline(deadline, cursor)
            finally:
                connection.close()
            if on_disconnect is not None:
                on_disconnect(cursor)
            # A daemon on its way down may still accept a connection and close it at once.
            time.sleep(0.1)

    def wait(self, job_id: int, timeout: Optional[float] = None, silence: float = 45.0) -> Job:
        """Blocks until the job is succeeded, failed, cancelled or expired, across daemon
        restarts; returns it. Raises ``TimeoutError`` after ``timeout`` seconds. It follows the
        event stream: ``silence`` is :meth:`follow`'s."""
        # The cursor is read before the job, so an ending in between is not missed.
        cursor = int(self.status().get("last_event_seq", 0))
        job = self.get(job_id)
        if job["state"] in TERMINAL_STATES:
            return job
        for event in self.follow(after=cursor, timeout=timeout, silence=silence):
            if event["job_id"] == job["id"] and event["state"] in TERMINAL_STATES:
                return self.get(job_id)
        raise AssertionError("follow() ended")  # it never does: it raises instead

    # Plumbing ---------------------------------------------------------------------------------

    def _open_stream(
        self, after: int, deadline: Optional[float], silence: float
    ) -> Tuple[http.client.HTTPResponse, UnixHTTPConnection]:
        # A daemon that takes the connection but does not answer within `silence` is not answering.
        connection = UnixHTTPConnection(self.socket_path, timeout=_stream_timeout(deadline, silence))
        try:
            response = connection.exchange(
                "GET", "/v1/events?" + urllib.parse.urlencode({"after": after}), headers={"Accept": "text/event-stream"}
            )
        except BaseException:
            connection.close()
            raise
        if response.status != 200:
            body = response.read()
            connection.close()
            raise LullError.from_answer(response.status, body)
        return response, connection

    def _call(
        self,
        method: str,
        path: str,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Dict[str, Any]:
        given = {key: value for key, value in (query or {}).items() if value is not None}
        if given:
            path += "?" + urllib.parse.urlencode(given)
        sent = dict(headers or {})
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            sent["Content-Type"] = "application/json"
        connection = UnixHTTPConnection(self.socket_path, timeout=self.timeout)
        try:
            response = connection.exchange(method, path, body=payload, headers=sent)
            data = response.read()
        except (OSError, http.client.HTTPException) as error:
            raise Unreachable(unreachable_message(self.socket_path, error), self.socket_path) from error
        finally:
            connection.close()
        if not 200 <= response.status < 300:
            raise LullError.from_answer(response.status, data)
        try:
            answer = json.loads(data)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise LullError(response.status, "unexpected_answer", f"lulld answered {method} {path} without a JSON object")
        return answer


def _job(kind: str, url: str, fields: Dict[str, Any], **required: Any) -> Dict[str, Any]:
    """A submission from keyword fields: ``class_`` is ``class`` (a Python keyword)."""
    job: Dict[str, Any] = {"kind": kind, "url": url, **required}
    for key, value in fields.items():
        job["class" if key == "class_" else key] = value
    return job


def _remaining(deadline: Optional[float]) -> Optional[float]:
    return None if deadline is None else max(0.001, deadline - time.monotonic())


def _stream_timeout(deadline: Optional[float], silence: float) -> float:
    """How long one read of the event stream may wait: until the deadline, and no longer than
    the silence that counts as a broken stream."""
    remaining = _remaining(deadline)
    return silence if remaining is None else min(remaining, silence)


def _check_deadline(deadline: Optional[float], cursor: int) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise TimeoutError(f"stopped following events at seq {cursor}: the timeout passed")


def _lines(
    response: http.client.HTTPResponse, connection: UnixHTTPConnection, deadline: Optional[float], silence: float
) -> Iterator[bytes]:
    """The stream's lines; each read waits at most until the deadline, and at most ``silence``
    seconds for a byte (a comment such as ``: keep-alive`` counts), else raises
    ``socket.timeout``. The stream's answer closes the connection, so http.client has handed its
    socket over to the response (``sock`` is None by now): the timeout goes on the socket the
    response reads from."""
    while True:
        if connection.unix_socket is not None:
            connection.unix_socket.settimeout(_stream_timeout(deadline, silence))
        line = response.readline()
        if not line:
            return
        yield line
