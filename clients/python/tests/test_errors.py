"""Refusals come as LullError with the API's code and field; no daemon, as Unreachable."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

import lull
from fake import FakeDaemon, fill_backlog, json_answer, read_head
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


def test_a_body_over_the_limit_is_refused_with_413_not_unreachable(client: lull.Client, peer: Peer) -> None:
    # 800,000 bytes are about 1.07 MB as base64: over the 1 MiB request limit, under the push
    # body limit. lulld answers 413 on seeing Content-Length and closes without reading the body,
    # so the client's send breaks off; the answer is still there.
    with pytest.raises(lull.LullError) as raised:
        client.push(peer.url("/too-large"), b"x" * 800_000)
    error = raised.value
    assert (error.status, error.code, error.field) == (413, "too_large", "body"), error
    assert "limits.max_request_bytes" in error.message
    assert client.status()["version"] == lull.__version__  # and the daemon is fine


def test_a_refused_connection_is_429_not_unreachable(tmp_path: Path) -> None:
    # lulld does not count root's connections, so its refusal is played: 429 at once, nothing
    # read, closed, while the client is still sending a body larger than the socket's buffer.
    refusal = {"error": {"code": "too_many_connections", "message": "uid 1000 has 128 connections open"}}

    def refuse(connection: socket.socket, _: int) -> None:
        connection.sendall(json_answer("429 Too Many Requests", refusal))

    fake = FakeDaemon(str(tmp_path / "f.sock"), refuse)
    try:
        with pytest.raises(lull.LullError) as raised:
            lull.Client(fake.path, timeout=5).submit({"kind": "push", "url": "https://x/", "body": "y" * 600_000})
    finally:
        fake.close()
    assert (raised.value.status, raised.value.code) == (429, "too_many_connections"), raised.value


def test_a_full_backlog_is_waited_for_up_to_the_timeout(tmp_path: Path) -> None:
    def status(connection: socket.socket, _: int) -> None:
        if read_head(connection):
            connection.sendall(json_answer("200 OK", {"version": "fake"}))

    # Connecting to a full backlog fails at once (EAGAIN); lulld accepting 0.5 s later makes room.
    fake = FakeDaemon(str(tmp_path / "b.sock"), status, backlog=0, accept_after=0.5)
    held = fill_backlog(fake.path)
    try:
        started = time.monotonic()
        assert lull.Client(fake.path, timeout=3).status() == {"version": "fake"}
        assert 0.4 < time.monotonic() - started < 3
    finally:
        for sock in held:
            sock.close()
        fake.close()

    # One that never makes room: unreachable once the timeout has passed, saying so.
    never = FakeDaemon(str(tmp_path / "n.sock"), status, backlog=0, accept_after=3600)
    held = fill_backlog(never.path)
    try:
        started = time.monotonic()
        with pytest.raises(lull.Unreachable) as raised:
            lull.Client(never.path, timeout=0.5).status()
        assert 0.5 <= time.monotonic() - started < 2
        assert "did not answer in time" in str(raised.value)
    finally:
        for sock in held:
            sock.close()
        never.close()


def test_the_user_socket_is_lullctls_without_a_usable_home() -> None:
    # LullDefaults (Sources/LullAPI/LullDefaults.swift) joins strings: stateDirectory is
    # (HOME ?? "/root") + "/.local/state/lull", and socketPath adds "/lull.sock"; XDG_RUNTIME_DIR
    # and XDG_STATE_HOME count only when absolute.
    assert lull.user_socket_path({}) == "/root/.local/state/lull/lull.sock"
    assert lull.user_socket_path({"HOME": ""}) == "/.local/state/lull/lull.sock"
    assert lull.user_socket_path({"HOME": "/home/ada/"}) == "/home/ada//.local/state/lull/lull.sock"
    relative = {"HOME": "/home/ada", "XDG_RUNTIME_DIR": "run", "XDG_STATE_HOME": "state"}
    assert lull.user_socket_path(relative) == "/home/ada/.local/state/lull/lull.sock"
