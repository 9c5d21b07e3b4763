"""The server's log formats (`server.net.logs`): one line per event, whatever the event holds."""

from __future__ import annotations

import json
import logging
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
