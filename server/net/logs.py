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

Whatever else the process would print goes through the same format: the PostgreSQL driver's own
warnings (asyncpg's pool, "Failed to restore the pool connection floor", with the exception's
last line, not its traceback), asyncio's (a callback or task that raised), and an exception
nobody caught in a thread (the storage's) or at the interpreter's edge (`sys.excepthook`,
`threading.excepthook`, `sys.unraisablehook`): an error line with the traceback escaped.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from typing import Any, Final

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


def _why(record: logging.LogRecord) -> str:
    """A warning's exception (a library's: asyncpg logs its pool's failures so) in a few words:
    its type and message, not its traceback, which is no bug of ours."""
    exc = record.exc_info[1] if record.exc_info else None
    if exc is None or record.levelno >= logging.ERROR:
        return ""
    text = str(exc).strip()
    return f" ({type(exc).__name__}{': ' + text if text else ''})"


class TextFormatter(logging.Formatter):
    """``time level=... message``: one greppable line per event."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{_stamp(record)} level={record.levelname.lower()} {record.getMessage()}"
        line += _why(record)
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
            "message": record.getMessage() + _why(record),
        }
        if record.exc_info and record.levelno >= logging.ERROR:
            event["exc"] = self.formatException(record.exc_info)
        # ensure_ascii: U+2028 and the like are escaped too, so no reader splits the line.
        return json.dumps(event, ensure_ascii=True)


FOREIGN: Final = ("asyncio", "asyncpg")
"""The libraries whose own log (warnings and worse) goes through the server's format: asyncio
reports what it cannot hand to anyone (a callback that raised), asyncpg its pool's failures
while PostgreSQL is away."""

log = logging.getLogger("sushigo.server")


def setup(level: str, fmt: str) -> logging.Handler:
    """Send the server's log (and its libraries' warnings, and any exception nobody caught) to
    stderr at `level` in format `fmt`: one line each, never Python's bare last-resort lines."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    ours = logging.getLogger("sushigo")
    ours.addHandler(handler)
    ours.setLevel(level.upper())
    for name in FOREIGN:
        foreign = logging.getLogger(name)
        foreign.addHandler(handler)
        foreign.setLevel(logging.WARNING)
        foreign.propagate = False  # not again through the root's last resort
    sys.excepthook = _uncaught
    threading.excepthook = _uncaught_in_thread
    sys.unraisablehook = _unraisable
    return handler


def _uncaught(kind: type[BaseException], exc: BaseException, trace: Any) -> None:
    log.error("uncaught %s", kind.__name__, exc_info=(kind, exc, trace))


def _uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "?"
    exc = args.exc_value or args.exc_type()
    log.error("uncaught %s in thread %s", args.exc_type.__name__, name, exc_info=exc)


def _unraisable(unraisable: Any) -> None:
    exc = unraisable.exc_value
    what = unraisable.err_msg or "exception ignored"
    log.error("%s: %r", what, unraisable.object, exc_info=exc)
