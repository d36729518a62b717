"""A real lulld for the tests: its own state directory, socket and config, readiness taken from
the sd_notify protocol (a datagram socket in NOTIFY_SOCKET), never from sleeping."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional

REPOSITORY = Path(__file__).resolve().parents[3]


def lulld_path() -> str:
    """$LULLD (what `make test-python` sets), else the debug build in the repository."""
    path = os.environ.get("LULLD") or str(REPOSITORY / ".build/debug/lulld")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"no lulld at {path}: build it (swift build --product lulld) or set LULLD to one")
    return path


class Daemon:
    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="lull-pytest-"))
        self.socket_path = str(self.directory / "run/lull.sock")
        self.state_dir = str(self.directory / "state")
        self.log_path = self.directory / "lulld.log"
        self.config_path = self.directory / "lull.toml"
        self.process: Optional[subprocess.Popen[bytes]] = None
        proc = self.directory / "proc"
        # Pressure files at zero, so a busy test machine does not hold jobs (as the Swift
        # tests' ProcFixture); the rest of /proc is the real one.
        (proc / "pressure").mkdir(parents=True)
        for name in ("self", "stat", "meminfo", "loadavg"):
            (proc / name).symlink_to("/proc/" + name)
        for name in ("cpu", "memory", "io"):
            (proc / "pressure" / name).write_text(
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
            )
        self.config_path.write_text(f'[sensors]\nproc_root = "{proc}"\n')

    def start(self, timeout: float = 30.0) -> None:
        notify_path = str(self.directory / "notify.sock")
        if os.path.exists(notify_path):
            os.unlink(notify_path)
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        try:
            env = dict(os.environ, NOTIFY_SOCKET=notify_path)
            env.pop("LULL_SOCKET", None)
            with open(self.log_path, "ab") as log:
                self.process = subprocess.Popen(
                    [
                        lulld_path(),
                        "--state-dir", self.state_dir,
                        "--socket", self.socket_path,
                        "--config", str(self.config_path),
                    ],
                    stdout=log,
                    stderr=log,
                    env=env,
                )
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                notify.settimeout(0.1)
                try:
                    if b"READY=1" in notify.recv(4096):
                        return
                except socket.timeout:
                    pass
                if self.process.poll() is not None:
                    raise RuntimeError(f"lulld exited with {self.process.returncode} before READY:\n{self.log()}")
            raise RuntimeError(f"lulld did not say READY=1 within {timeout} s:\n{self.log()}")
        finally:
            notify.close()

    def stop(self) -> int:
        """SIGTERM and a clean exit (its exit status)."""
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)

    def restart(self) -> None:
        self.stop()
        self.start()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def remove(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)
