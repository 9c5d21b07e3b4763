"""A SQLite database file as another connection sees it: what a server's process left on disk,
read past the storage under test."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def heads(path: Path) -> dict[str, bytes]:
    """The saved tables' head rows, by table."""
    raw = sqlite3.connect(path)
    try:
        return dict(raw.execute("SELECT table_id, state FROM tables_in_progress").fetchall())
    finally:
        raw.close()


def turn_rows(path: Path) -> dict[str, list[int]]:
    """The turn numbers stored, by table."""
    raw = sqlite3.connect(path)
    try:
        found: dict[str, list[int]] = {}
        for table_id, n in raw.execute("SELECT table_id, n FROM table_turns ORDER BY 1, 2"):
            found.setdefault(table_id, []).append(n)
        return found
    finally:
        raw.close()


def assert_intact(path: Path) -> None:
    """SQLite's own check of the whole file finds nothing wrong."""
    check = sqlite3.connect(path)
    try:
        assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        check.close()
