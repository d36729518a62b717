"""Following the event log: across daemon restarts, from a saved cursor, with time limits."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Generator, List

import pytest

import lull
from daemon import Daemon
from fake import FakeDaemon, json_answer, read_head, sleep_until
from peer import Peer


def until_done(stream: Generator[lull.Event, None, None], job_id: int, seen: List[lull.Event]) -> None:
    for event in stream:
        seen.append(event)
        if event["job_id"] == job_id and event["state"] in lull.TERMINAL_STATES:
            return
    raise AssertionError("the stream ended")


def test_follow_carries_on_across_a_restart_without_missing_or_repeating(
    client: lull.Client, daemon: Daemon, peer: Peer, tmp_path: Path
) -> None:
    peer.files["/follow.bin"] = b"f" * 50_000
    cursor = client.status()["last_event_seq"]
    disconnects: List[int] = []
    stream = client.follow(after=cursor, timeout=60, on_disconnect=disconnects.append)
    first = client.fetch(peer.url("/follow.bin"), tmp_path / "1.bin")
    seen: List[lull.Event] = []
    until_done(stream, first["id"], seen)
    before_restart = seen[-1]["seq"]

    daemon.restart()  # ends the open stream; the generator waits, suspended, meanwhile
    second = client.fetch(peer.url("/follow.bin"), tmp_path / "2.bin")
    until_done(stream, second["id"], seen)
    stream.close()

    seqs = [event["seq"] for event in seen]
    assert seqs == sorted(set(seqs)), "in order, none twice"
    assert disconnects == [before_restart], "one disconnect, resumed from the last event seen"
    logged = [event["seq"] for event in client.events(after=cursor)["events"] if event["seq"] <= seqs[-1]]
    assert logged == seqs, "every event of the log, none missed"
    assert [event["type"] for event in seen if event["job_id"] == second["id"]][0] == "submitted"
    assert seen[-1]["state"] == "succeeded"


def test_a_new_follower_starts_from_a_saved_cursor(client: lull.Client, peer: Peer, tmp_path: Path) -> None:
    peer.files["/cursor.bin"] = b"c" * 1000
    start = client.status()["last_event_seq"]
    job = client.fetch(peer.url("/cursor.bin"), tmp_path / "c.bin")
    assert client.wait(job["id"], timeout=30)["state"] == "succeeded"
    log = client.events(after=start)["events"]
    saved = log[1]["seq"]  # as if a program stopped after the second event and kept its seq
    resumed = lull.Client(client.socket_path).follow(after=saved, timeout=30)
    rest = [next(resumed) for _ in log[2:]]
    resumed.close()
    assert rest == log[2:]


def test_wait_and_follow_give_up_at_their_timeout(client: lull.Client, peer: Peer, tmp_path: Path) -> None:
    job = client.fetch(peer.url("/never.bin"), tmp_path / "never.bin", not_before="2999-01-01T00:00:00Z")
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        client.wait(job["id"], timeout=0.5)
    assert 0.5 <= time.monotonic() - started < 5
    client.cancel(job["id"])


def test_follow_raises_unreachable_when_the_daemon_stays_away(client: lull.Client, daemon: Daemon) -> None:
    cursor = client.status()["last_event_seq"]
    daemon.stop()
    try:
        started = time.monotonic()
        with pytest.raises(lull.Unreachable) as raised:
            next(client.follow(after=cursor, reconnect_within=0.5))
        assert time.monotonic() - started < 5
        assert "lulld is not running" in str(raised.value)
    finally:
        daemon.start()


#: The time limit of the tests below, in seconds; the fake sends an event every 0.9 of it.
LIMIT = 2.0


def slow_events(connection: socket.socket, _: int) -> None:
    """lulld's event stream (it closes the connection when it ends), with an event for job 1
    every 0.9 LIMIT; status and job 1 for wait()."""
    head = read_head(connection)
    if head.startswith(b"GET /v1/status"):
        connection.sendall(json_answer("200 OK", {"last_event_seq": 0}))
    elif head.startswith(b"GET /v1/jobs/1"):
        connection.sendall(json_answer("200 OK", {"id": 1, "state": "running"}))
    elif head.startswith(b"GET /v1/events"):
        connection.sendall(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-store\r\n"
            b"connection: close\r\n\r\n: lull event stream after seq 0\n\n"
        )
        start = time.monotonic()
        for seq in range(1, 10):
            sleep_until(start + seq * 0.9 * LIMIT)
            event = b'{"seq":%d,"job_id":1,"state":"running","type":"progress"}' % seq
            connection.sendall(b"id: %d\nevent: progress\ndata: %s\n\n" % (seq, event))


def test_follow_stops_at_its_timeout_between_events(tmp_path: Path) -> None:
    # Each read is bounded by what is left of the timeout, not the whole of it again, and an
    # event read after the deadline is not given.
    fake = FakeDaemon(str(tmp_path / "e.sock"), slow_events)
    try:
        started = time.monotonic()
        yielded: List[float] = []
        with pytest.raises(TimeoutError):
            for _ in lull.Client(fake.path).follow(timeout=LIMIT):
                yielded.append(time.monotonic() - started)
        elapsed = time.monotonic() - started
    finally:
        fake.close()
    assert LIMIT <= elapsed < 1.2 * LIMIT
    assert all(moment < LIMIT for moment in yielded), yielded


def test_follow_does_not_give_an_event_it_finished_reading_after_its_timeout(tmp_path: Path) -> None:
    # The event's one line starts before the deadline and ends after it: each of the line's reads
    # is within its timeout, but the line is read only after the deadline.
    def straddling(connection: socket.socket, _: int) -> None:
        read_head(connection)
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
        start = time.monotonic()
        sleep_until(start + 0.9 * LIMIT)
        connection.sendall(b'data: {"seq":1,')
        sleep_until(start + 1.1 * LIMIT)
        connection.sendall(b'"job_id":1,"state":"running","type":"progress"}\n\n')
        time.sleep(LIMIT)

    fake = FakeDaemon(str(tmp_path / "s.sock"), straddling)
    try:
        started = time.monotonic()
        yielded: List[lull.Event] = []
        with pytest.raises(TimeoutError):
            for event in lull.Client(fake.path).follow(timeout=LIMIT):
                yielded.append(event)
        elapsed = time.monotonic() - started
    finally:
        fake.close()
    assert yielded == []
    assert LIMIT <= elapsed < 1.2 * LIMIT


def test_wait_stops_at_its_timeout_between_events(tmp_path: Path) -> None:
    fake = FakeDaemon(str(tmp_path / "w.sock"), slow_events)
    try:
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            lull.Client(fake.path).wait(1, timeout=LIMIT)
        elapsed = time.monotonic() - started
    finally:
        fake.close()
    assert LIMIT <= elapsed < 1.2 * LIMIT


#: The head of lulld's event stream and its first comment, as lulld sends them after seq 0.
STREAM_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-store\r\n"
    b"connection: close\r\n\r\n: lull event stream after seq 0\n\n"
)


def progress(seq: int) -> bytes:
    """Event ``seq`` of job 1 as the stream sends it."""
    event = b'{"seq":%d,"job_id":1,"state":"running","type":"progress"}' % seq
    return b"id: %d\nevent: progress\ndata: %s\n\n" % (seq, event)


def test_a_silent_stream_is_taken_for_a_broken_one(tmp_path: Path) -> None:
    # A daemon that stops answering without closing its socket (SIGSTOP, a hung machine): the
    # first stream gives one event and then not a byte, and later connections are taken (the
    # kernel does that for a stopped daemon) but their requests never answered.
    connected: List[float] = []

    def stopped_after_one_event(connection: socket.socket, index: int) -> None:
        connected.append(time.monotonic())
        read_head(connection)
        if index == 0:
            connection.sendall(STREAM_HEAD + progress(1))
        connection.recv(1)  # holds the connection open, silent, until the client hangs up

    fake = FakeDaemon(str(tmp_path / "q.sock"), stopped_after_one_event)
    disconnects: List[int] = []
    yielded: List[lull.Event] = []
    try:
        started = time.monotonic()
        with pytest.raises(lull.Unreachable) as raised:
            stream = lull.Client(fake.path).follow(
                after=0, timeout=10, reconnect_within=1.0, on_disconnect=disconnects.append, silence=1.0
            )
            for event in stream:
                yielded.append(event)
        elapsed = time.monotonic() - started
    finally:
        fake.close()
    assert [event["seq"] for event in yielded] == [1]
    assert disconnects == [1], "the silent stream counts as a disconnect, resumed from the event seen"
    assert len(connected) >= 2 and connected[1] - connected[0] < 3, connected
    assert "did not answer in time" in str(raised.value)
    # One silence on the stream, then unanswered requests, each given up after a silence, for
    # reconnect_within: about 3.2 s; well short of the 10 s timeout.
    assert elapsed < 6, elapsed


def test_keep_alive_comments_keep_a_quiet_stream(tmp_path: Path) -> None:
    # No event for twice the silence limit, but a comment every 0.3 s: a quiet daemon, not a
    # stopped one. The comments are not events, and the event after them is given.
    connected: List[float] = []

    def quiet(connection: socket.socket, _: int) -> None:
        connected.append(time.monotonic())
        read_head(connection)
        connection.sendall(STREAM_HEAD)
        start = time.monotonic()
        while time.monotonic() - start < 2.0:
            time.sleep(0.3)
            connection.sendall(b": keep-alive\n\n")
        connection.sendall(progress(1))
        connection.recv(1)

    fake = FakeDaemon(str(tmp_path / "k.sock"), quiet)
    disconnects: List[int] = []
    try:
        started = time.monotonic()
        stream = lull.Client(fake.path).follow(after=0, timeout=10, on_disconnect=disconnects.append, silence=1.0)
        first = next(stream)
        elapsed = time.monotonic() - started
        stream.close()
    finally:
        fake.close()
    assert first["seq"] == 1
    assert elapsed >= 2.0
    assert disconnects == [] and len(connected) == 1, "one connection, never given up for silence"
