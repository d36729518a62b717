"""Listing, showing, explaining and commanding jobs that wait (their not_before is a day away)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Dict

import pytest

import lull
from peer import Peer

TOMORROW = "2999-01-01T00:00:00Z"


def held_job(client: lull.Client, peer: Peer, tmp_path: Path, label: str) -> Dict[str, Any]:
    return client.fetch(peer.url("/never.bin"), tmp_path / f"{uuid.uuid4().hex}.bin", label=label, not_before=TOMORROW)


def test_list_filters_and_pages(client: lull.Client, peer: Peer, tmp_path: Path) -> None:
    label = "py-list-" + uuid.uuid4().hex[:8]
    ids = [held_job(client, peer, tmp_path, label)["id"] for _ in range(3)]
    first = client.list(label=label, limit=2)
    assert [job["id"] for job in first["jobs"]] == ids[:2]
    assert first["next_after"] == ids[1]
    second = client.list(label=label, limit=2, after=first["next_after"])
    assert [job["id"] for job in second["jobs"]] == ids[2:] and "next_after" not in second
    assert [job["id"] for job in client.jobs(label=label, page_size=1)] == ids
    assert [job["id"] for job in client.jobs(label=label, state="queued")] == ids
    assert list(client.jobs(label=label, state="running")) == []
    for job_id in ids:
        client.cancel(job_id)


def test_show_explain_pause_resume_cancel(client: lull.Client, peer: Peer, tmp_path: Path) -> None:
    job = held_job(client, peer, tmp_path, "py-commands")
    shown = client.show(job["id"])
    assert shown["state"] == "queued" and shown["not_before"] == "2999-01-01T00:00:00Z"
    assert [reason["code"] for reason in shown["waiting_for"]] == ["not_before"]
    explained = client.explain(job["id"])
    assert explained["job_id"] == job["id"] and explained["state"] == "queued"
    assert [reason["code"] for reason in explained["reasons"]] == ["not_before"]
    assert "waits" in explained["summary"] and "world" in explained

    assert client.pause(job["id"])["state"] == "paused"
    assert client.explain(job["id"])["reasons"][0]["code"] == "paused"
    assert client.resume(job["id"])["state"] == "queued"
    assert client.cancel(job["id"])["state"] == "cancelled"
    assert client.get(job["id"])["state"] == "cancelled"


def test_simulate_changes_nothing(client: lull.Client, peer: Peer, tmp_path: Path) -> None:
    job = held_job(client, peer, tmp_path, "py-simulate")
    answer = client.simulate(on_battery=True, battery=15, metered=True)
    assert answer["world"]["power"]["on_battery"] is True
    assert client.get(job["id"])["state"] == "queued"
    client.cancel(job["id"])


def test_a_command_that_does_not_apply_raises_invalid_state(client: lull.Client, peer: Peer, tmp_path: Path) -> None:
    job = held_job(client, peer, tmp_path, "py-invalid-state")
    with pytest.raises(lull.LullError) as raised:
        client.resume(job["id"])
    assert raised.value.status == 409
    assert raised.value.code == "invalid_state" and raised.value.field == "state"
    assert "only paused jobs can be resumed" in raised.value.message
    client.cancel(job["id"])
