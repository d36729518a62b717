"""Following the event log: across daemon restarts, from a saved cursor, with time limits."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Generator, List

import pytest

import lull
from daemon import Daemon
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
