"""What the client raises: the daemon's own errors, and not reaching the daemon at all."""

from __future__ import annotations

import json
from typing import Optional


class LullError(Exception):
    """The daemon answered with an error, ``{"error": {"code", "message", "field"}}``.

    ``code`` is the API's stable machine-readable code (``invalid_value``, ``not_found``,
    ``invalid_state``, ``quota_exceeded``...; docs/api.md lists them), ``field`` the request
    field, query parameter or path part it is about (``url``, ``jobs[2].destination``, ``id``,
    ``state``) or None, ``status`` the HTTP status, and ``message`` what is wrong and what to do,
    in words.
    """

    def __init__(self, status: int, code: str, message: str, field: Optional[str] = None) -> None:
        where = f", field {field}" if field else ""
        super().__init__(f"{message} ({code}{where}, HTTP {status})")
        self.status = status
        self.code = code
        self.message = message
        self.field = field

    @classmethod
    def from_answer(cls, status: int, body: bytes) -> LullError:
        """The error an error answer carries; one that does not parse as the API's error object
        still becomes a LullError, with code ``unexpected_answer``."""
        try:
            detail = json.loads(body)["error"]
            return cls(status, str(detail["code"]), str(detail.get("message", "")), detail.get("field"))
        except (ValueError, KeyError, TypeError):
            text = body[:200].decode("utf-8", "replace")
            return cls(status, "unexpected_answer", f"lulld answered HTTP {status} without an error object: {text!r}")


class Unreachable(Exception):
    """The daemon could not be reached at its socket; the message says what to do about it."""

    def __init__(self, message: str, socket_path: str) -> None:
        super().__init__(message)
        self.socket_path = socket_path
