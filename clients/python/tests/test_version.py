"""Lull's one version: the VERSION file, the installed package and the daemon agree."""

from __future__ import annotations

import importlib.metadata

import lull
from daemon import REPOSITORY


def test_the_package_the_module_and_the_daemon_state_the_version_file() -> None:
    version = (REPOSITORY / "VERSION").read_text().strip()
    assert lull.__version__ == version
    assert importlib.metadata.version("lull-client") == version


def test_the_daemon_reports_the_same_version(client: lull.Client) -> None:
    assert client.status()["version"] == lull.__version__
