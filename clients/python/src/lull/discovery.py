"""Which daemon to talk to, found as ``lullctl`` finds it (docs/api.md, "Socket path")."""

from __future__ import annotations

import os
import stat
from typing import List, Mapping, Optional

SYSTEM_SOCKET = "/run/lull/lull.sock"


def user_socket_path(environ: Optional[Mapping[str, str]] = None) -> str:
    """The user instance's socket: ``$XDG_RUNTIME_DIR/lull/lull.sock``, else ``lull.sock`` in the
    state directory (``$XDG_STATE_HOME/lull``, else ``$HOME/.local/state/lull``, with ``/root``
    for an unset HOME), as lullctl and lulld make it."""
    env = os.environ if environ is None else environ
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/"):
        return runtime + "/lull/lull.sock"
    state = env.get("XDG_STATE_HOME", "")
    if state.startswith("/"):
        return state + "/lull/lull.sock"
    # As lullctl (LullDefaults.stateDirectory) has it, character for character: with HOME unset,
    # root's home; with HOME set, even to "" or with a trailing slash, HOME as it is.
    return env.get("HOME", "/root") + "/.local/state/lull/lull.sock"


def candidate_sockets(environ: Optional[Mapping[str, str]] = None) -> List[str]:
    """The sockets looked for, in order, when none is named: ``$LULL_SOCKET`` alone when set,
    else the user instance's and then the system instance's."""
    env = os.environ if environ is None else environ
    named = env.get("LULL_SOCKET", "")
    if named:
        return [named]
    return [user_socket_path(env), SYSTEM_SOCKET]


def default_socket_path(environ: Optional[Mapping[str, str]] = None) -> str:
    """The first candidate socket that exists, else the first candidate (so that the error names
    where a daemon was expected). A member of ``lull-clients`` with no daemon of their own thus
    reaches the system instance without settings."""
    candidates = candidate_sockets(environ)
    for path in candidates:
        try:
            if stat.S_ISSOCK(os.stat(path).st_mode):
                return path
        except OSError:
            continue
    return candidates[0]
