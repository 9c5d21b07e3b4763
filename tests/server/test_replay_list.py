"""`sushigo-replay --db PATH` lists the newest games: each with its game, and a last line when
more are stored than it shows (`--limit`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sushigo.server.replay import main as replay_main
from sushigo.server.storage.contract import PlayerResult
from sushigo.server.storage.sqlite.storage import SqliteStorage


def _stored(db: Path, games: int) -> None:
    """`games` finished games of both kinds, their records stand-ins that no key verifies."""
    with SqliteStorage(db) as storage:
        for n in range(games):
            kind = "sushi-roll" if n % 2 else "sushi-go"
            storage.finish_game(
                f"t{n}",
                f"g{n:02d}",
                kind,
                b"record",
                bytes(64),
                [PlayerResult(None, "ann", 0, 10 + n, 1), PlayerResult(None, "bob", 1, 5, 2)],
                finished_ms=1_700_000_000_000 + n * 60_000,
            )


def test_the_list_names_each_games_kind_and_says_when_there_are_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "server.db"
    _stored(db, 26)
    # The stand-in records verify against nothing: each line says so, and so does the status.
    assert replay_main(["--db", str(db)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert all(line.endswith("NOT VERIFIED (no key to check it with)") for line in lines[:-1])
    assert len(lines) == 21, lines
    assert lines[0].startswith("g25 ") and "Sushi Roll" in lines[0] and "table t25" in lines[0]
    assert "Sushi Go!" in lines[1] and "ann 34, bob 5" in lines[1]
    assert lines[-1] == "(the newest 20 games; more are stored: --limit N lists more)"
    assert replay_main(["--db", str(db), "--limit", "26"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 26 and lines[-1].startswith("g00 "), "all of them, and no more to say"
