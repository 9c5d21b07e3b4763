"""The server's log formats (`server.net.logs`): one line per event, whatever the event holds."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys

import pytest

from sushigo.server.cli import main
from sushigo.server.net.logs import JsonFormatter, TextFormatter


def record(message: str, *args: object, level: int = logging.INFO) -> logging.LogRecord:
    return logging.LogRecord("sushigo.server", level, __file__, 1, message, args, None)


def failed() -> logging.LogRecord:
    try:
        raise ValueError("a bug")
    except ValueError:
        entry = record("internal error handling %s", "commit", level=logging.ERROR)
        entry.exc_info = sys.exc_info()
        return entry


def test_text_is_one_line_per_event_whatever_a_client_put_in_it() -> None:
    forged = "ann\n2026-01-01T00:00:00Z level=error forged\x1b[2J\u2028"
    line = TextFormatter().format(record("login %s", forged))
    assert "\n" not in line and "\x1b" not in line and "\u2028" not in line
    assert line.endswith(
        " level=info login ann\\n2026-01-01T00:00:00Z level=error forged\\x1b[2J\\u2028"
    )
    bug = TextFormatter().format(failed())
    assert "\n" not in bug
    assert " exc=Traceback (most recent call last):\\n" in bug and "ValueError: a bug" in bug


def test_json_is_one_object_per_line() -> None:
    line = JsonFormatter().format(record("login %s", "ann\n\u2028"))
    assert "\n" not in line and "\u2028" not in line
    event = json.loads(line)
    assert event["level"] == "info" and event["logger"] == "sushigo.server"
    assert event["message"] == "login ann\n\u2028" and event["time"].endswith("Z")
    bug = json.loads(JsonFormatter().format(failed()))
    assert "ValueError: a bug" in bug["exc"]


def test_an_unknown_log_format_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--log-format", "xml"])
    assert exited.value.code == 2
    assert "argument --log-format: invalid choice: 'xml'" in capsys.readouterr().err


FOREIGN = """
import asyncio, logging, sys, threading
from sushigo.server.net import logs
logs.setup("info", "text")
failed = ConnectionRefusedError(111, "Connection refused")
logging.getLogger("asyncpg.pool").warning(
    "Failed to restore the pool connection floor; retrying", exc_info=failed
)
threading.Thread(target=lambda: 1 / 0, name="sushigo-postgresql").start()
async def main():
    asyncio.get_running_loop().call_soon(lambda: {}["missing"])
    await asyncio.sleep(0.01)
asyncio.run(main())
raise RuntimeError("nobody caught it")
"""


def test_what_the_server_does_not_log_itself_is_in_its_format_too() -> None:
    """The driver's warnings (asyncpg's pool, while PostgreSQL is away), an exception in a
    thread, a callback of the event loop that raised, and one nobody caught: one formatted
    line each, never Python's bare lines."""
    done = subprocess.run(
        [sys.executable, "-c", FOREIGN], capture_output=True, text=True, timeout=60, check=False
    )
    lines = done.stderr.splitlines()
    assert len(lines) == 4, done.stderr
    assert all(
        re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ level=(warning|error) ", x) for x in lines
    )
    assert lines[0].endswith(
        "level=warning Failed to restore the pool connection floor; retrying"
        " (ConnectionRefusedError: [Errno 111] Connection refused)"
    )
    assert "uncaught ZeroDivisionError in thread sushigo-postgresql exc=Traceback" in lines[1]
    assert "level=error Exception in callback" in lines[2] and "KeyError" in lines[2]
    assert "uncaught RuntimeError exc=Traceback" in lines[3] and "nobody caught it" in lines[3]


DRIVER_TASK = """
import asyncio, gc
import asyncpg
from sushigo.server.net import logs
from sushigo.server.storage.postgres.schema import quiet_driver_tasks
logs.setup("info", "text")
class PoolConnectionHolder:  # named as asyncpg's own, whose release task this stands for
    async def release(self):
        raise asyncpg.exceptions.ConnectionDoesNotExistError(
            "connection was closed in the middle of operation"
        )
async def ours():
    raise KeyError("a bug of ours")
async def main():
    quiet_driver_tasks(asyncio.get_running_loop())
    for job in (PoolConnectionHolder().release(), ours()):
        task = asyncio.get_running_loop().create_task(job)
        await asyncio.wait([task])
        del task
        gc.collect()
asyncio.run(main())
"""


def test_a_connection_lost_as_the_pool_takes_it_back_is_one_info_line() -> None:
    """asyncpg's pool gives a connection back in a task of its own; a dead connection's failure
    there, awaited by nobody, is the outage or the node's stop (one line, no traceback); any other task's
    unretrieved exception is still an error with its traceback."""
    done = subprocess.run(
        [sys.executable, "-c", DRIVER_TASK], capture_output=True, text=True, timeout=60, check=False
    )
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr
    assert lines[0].endswith(
        "level=info a connection to PostgreSQL was lost as the pool took it back"
        " (connection was closed in the middle of operation)"
    ), lines[0]
    assert "level=error Task exception was never retrieved" in lines[1], lines[1]
    assert "KeyError: 'a bug of ours'" in lines[1] and "Traceback" in lines[1]
