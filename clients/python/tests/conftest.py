"""Fixtures: one real lulld and one HTTP peer for the whole session (a daemon starts in about a
second), and a client per test."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import lull  # noqa: E402
from daemon import Daemon  # noqa: E402
from peer import Peer  # noqa: E402


@pytest.fixture(scope="session")
def daemon() -> Iterator[Daemon]:
    started = Daemon()
    started.start()
    yield started
    status = started.stop()
    log = started.log()
    started.remove()
    assert status == 0, f"lulld exited with {status}:\n{log}"


@pytest.fixture(scope="session")
def peer() -> Iterator[Peer]:
    server = Peer()
    yield server
    server.close()


@pytest.fixture
def client(daemon: Daemon) -> lull.Client:
    return lull.Client(daemon.socket_path, timeout=10)
