"""The server's log: one line per event on stderr, as text or as JSON (``--log-format``).

Text: ``2026-11-22T12:42:00Z level=info table t-1 created (...)``, for people and grep. JSON:
one object per line (``time``, ``level``, ``logger``, ``message``, and ``exc`` for a server bug's
traceback), for a log collector. Either way an event is exactly one line: a traceback goes on
the line in the text format escaped (``\\n``), and whatever else could break a line or forge
the next (a control character in a name a client chose) is escaped too.

What is logged: connections and logins (debug), tables, games, resumes, bot takeovers, refusals
and time-outs (info), and what needs the operator (warning, error). Never a token, a key, a
nonce, a hand or a pick: each event names players by id and tables by id, and
tests/integration/test_operations.py plays a game at debug level and searches every line.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Final

FORMATS: Final = ("text", "json")
"""The values of ``--log-format``."""
LEVELS: Final = ("debug", "info", "warning", "error")
"""The values of ``--log-level``."""

_ESCAPES: Final = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)} | {
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
    0x85: "\\x85",
}
"""Characters that would break a text line (or hide in one), and how they are written."""


def _stamp(record: logging.LogRecord) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + "Z"


class TextFormatter(logging.Formatter):
    """``time level=... message``: one greppable line per event."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{_stamp(record)} level={record.levelname.lower()} {record.getMessage()}"
        if record.exc_info and record.levelno >= logging.ERROR:
            # A server bug: the traceback helps whoever fixes it (bad input never gets here).
            line += " exc=" + self.formatException(record.exc_info)
        return line.translate(_ESCAPES)


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        event = {
            "time": _stamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and record.levelno >= logging.ERROR:
            event["exc"] = self.formatException(record.exc_info)
        # ensure_ascii: U+2028 and the like are escaped too, so no reader splits the line.
        return json.dumps(event, ensure_ascii=True)


def setup(level: str, fmt: str) -> logging.Handler:
    """Send the server's log (and asyncio's warnings) to stderr at `level` in format `fmt`."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    ours = logging.getLogger("sushigo")
    ours.addHandler(handler)
    ours.setLevel(level.upper())
    # asyncio reports what it cannot hand to anyone (a callback that raised): in the same
    # format, not as Python's bare last-resort lines.
    loop_log = logging.getLogger("asyncio")
    loop_log.addHandler(handler)
    loop_log.setLevel(logging.WARNING)
    return handler
