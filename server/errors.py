"""The error a request gets when the server refuses it for a reason of its own (not the
protocol's): carries the wire error code for the ERROR reply."""

from __future__ import annotations

from sushigo.protocol import ErrorCode


class TableError(Exception):
    """A request the lobby, a table or the tournament desk refuses; `code` goes on the wire."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
