"""Reading lulld's event stream (``text/event-stream``, docs/api.md "GET /v1/events")."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, NamedTuple, Optional

#: Job states after which nothing more happens to a job.
TERMINAL_STATES = frozenset({"succeeded", "failed", "cancelled", "expired"})

#: An event as the API sends it: ``seq``, ``job_id``, ``owner_uid``, ``time``, ``type``,
#: ``state``, and per type ``attempt``, ``progress``, ``usage`` (a run job's sample),
#: ``result``, ``error``, ``retry_at``, ``message``.
Event = Dict[str, Any]


class Message(NamedTuple):
    """One server-sent event: its ``id:``, ``event:`` and joined ``data:`` lines."""

    id: Optional[str]
    event: Optional[str]
    data: str


def parse_event_stream(lines: Iterable[bytes]) -> Iterator[Message]:
    """Yields each message of a ``text/event-stream`` given as byte lines. A message ends at a
    blank line; comment lines (``:``) are skipped; several ``data:`` lines are joined with a
    newline. A message cut off by the end of the input is not yielded."""
    message_id: Optional[str] = None
    event: Optional[str] = None
    data: List[str] = []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield Message(message_id, event, "\n".join(data))
            message_id, event, data = None, None, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "id":
            message_id = value
        elif name == "event":
            event = value
