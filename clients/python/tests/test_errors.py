"""Refusals come as LullError with the API's code and field; no daemon, as Unreachable."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

import lull
from peer import Peer


def test_an_invalid_value_names_its_field(client: lull.Client, tmp_path: Path) -> None:
    with pytest.raises(lull.LullError) as raised:
        client.fetch("ftp://example.org/a", tmp_path / "a")
    error = raised.value
    assert (error.status, error.code, error.field) == (400, "invalid_value", "url")
    assert "use http or https" in error.message and "invalid_value" in str(error)


def test_an_unknown_field_is_named(client: lull.Client, peer: Peer, tmp_path: Path) -> None:
    with pytest.raises(lull.LullError) as raised:
        client.submit({"kind": "fetch", "url": peer.url("/x"), "destinaton": str(tmp_path / "x")})
    assert (raised.value.code, raised.value.field) == ("unknown_field", "destinaton")


def test_a_batch_error_names_the_job(client: lull.Client, peer: Peer, tmp_path: Path) -> None:
    with pytest.raises(lull.LullError) as raised:
        client.submit_batch(
            [
                {"kind": "fetch", "url": peer.url("/x"), "destination": str(tmp_path / "x")},
                {"kind": "fetch", "url": peer.url("/y"), "destination": "relative/y"},
            ]
        )
    assert (raised.value.code, raised.value.field) == ("invalid_value", "jobs[1].destination")
    assert all(job.get("destination") != str(tmp_path / "x") for job in client.jobs()), "a refused batch stores nothing"


def test_an_unknown_job_is_not_found(client: lull.Client) -> None:
    with pytest.raises(lull.LullError) as raised:
        client.get(987_654_321)
    assert (raised.value.status, raised.value.code, raised.value.field) == (404, "not_found", "id")


def test_a_missing_daemon_is_unreachable_and_says_what_to_do(tmp_path: Path) -> None:
    path = str(tmp_path / "nothing.sock")
    with pytest.raises(lull.Unreachable) as raised:
        lull.Client(path).status()
    assert raised.value.socket_path == path
    assert "lulld is not running" in str(raised.value) and "LULL_SOCKET" in str(raised.value)


def test_the_socket_is_found_as_lullctl_finds_it(tmp_path: Path) -> None:
    assert lull.default_socket_path({"LULL_SOCKET": "/x/y.sock"}) == "/x/y.sock"
    assert lull.user_socket_path({"XDG_STATE_HOME": "/s"}) == "/s/lull/lull.sock"
    assert lull.user_socket_path({"HOME": "/home/ada"}) == "/home/ada/.local/state/lull/lull.sock"
    runtime = {"XDG_RUNTIME_DIR": str(tmp_path)}
    # No user socket: the system instance's when it exists, else the user's path, for the error.
    fallback = lull.SYSTEM_SOCKET if os.path.exists(lull.SYSTEM_SOCKET) else f"{tmp_path}/lull/lull.sock"
    assert lull.default_socket_path(runtime) == fallback
    (tmp_path / "lull").mkdir()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listening:
        listening.bind(str(tmp_path / "lull/lull.sock"))
        assert lull.default_socket_path(runtime) == f"{tmp_path}/lull/lull.sock"
