"""`sushigo-server migrate --from PATH --to URL`: a server's SQLite database copied into a real
PostgreSQL, after which every finished game still verifies with `sushigo-replay`, and identities,
ratings of each game kind, tables in play and tokens are all there."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sushigo.client.bot import parser as bot_parser
from sushigo.client.bot import run as run_bot
from sushigo.server.cli import main as server_main
from sushigo.server.hub.core import Hub
from sushigo.server.keys import load_or_create_server_key
from sushigo.server.net.app import Server
from sushigo.server.replay import main as replay_main
from sushigo.server.storage.contract import (
    AuditRecord,
    PlayerResult,
    StoredSanction,
    TokenEntry,
)
from sushigo.server.storage.postgres.storage import PgStorage
from sushigo.server.storage.sqlite.storage import SqliteStorage

KEY = bytes(range(32))


async def test_migrate_copies_everything_and_every_record_still_verifies(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "server.db"
    key_file = db.with_name(db.name + ".key")
    storage = SqliteStorage(db)
    server = Server(
        Hub(storage=storage, key=load_or_create_server_key(key_file), wall_ms=lambda: 1_000),
        "127.0.0.1",
        0,
        None,
    )
    ((host, port),) = await server.start()
    argv = [f"{host}:{port}", "--players", "2", "--games", "2", "--strategy", "greedy"]
    assert await asyncio.wait_for(
        asyncio.gather(
            run_bot(bot_parser().parse_args([*argv, "--name", "ann", "--seed", "1"])),
            run_bot(bot_parser().parse_args([*argv, "--name", "bob", "--seed", "2"])),
        ),
        timeout=60,
    ) == [0, 0]
    await server.stop()
    ann = storage.upsert_identity(KEY, "ann", 5)
    storage.set_ratings({ann: (30.0, 2.0)}, "sushi-go")
    storage.set_ratings({ann: (20.0, 3.0)}, "sushi-roll")
    storage.save_table("t", b"head", [b"turn 0", b"turn 1"])
    storage.save_token(b"h" * 32, "t", 1, 99)
    storage.save_sanction(StoredSanction("ban", "10.0.0.0/8", "flood", ann, 7, None))
    storage.add_audit(AuditRecord(8, ann, "ban", "10.0.0.0/8", "flood"))
    storage.save_table("u", b"aborted")
    aborted = [PlayerResult(ann, "ann", 0, 12, 1), PlayerResult(None, "bot", 1, 3, 2)]
    storage.abort_game("u", "ga", "sushi-go", b"rec", b"sig", aborted, aborted_ms=9, reason="x")
    storage.save_tournament("spring", b"state of spring")
    storage.save_tournament("autumn", b"state of autumn")
    games = [g.game_id for g in storage.list_records()]
    storage.close()
    assert len(games) == 2
    capsys.readouterr()

    assert server_main(["migrate", "--from", str(db), "--to", pg_url]) == 0
    out = capsys.readouterr().out
    assert "copied 2 records, 4 results, 1 identities, 2 ratings, 1 tables in progress" in out
    assert "1 sanctions, 1 audit log, 1 aborted games, 2 aborted results, 2 tournaments" in out
    for game_id in games:
        assert replay_main(["--db", pg_url, "--key", str(key_file), game_id]) == 0
        assert "verified:" in capsys.readouterr().out
    with PgStorage(pg_url) as pg:
        assert pg.get_identity(ann) is not None
        assert pg.get_rating(ann, "sushi-go") == (30.0, 2.0)
        assert pg.get_rating(ann, "sushi-roll") == (20.0, 3.0)
        assert pg.load_tables() == [("t", b"headturn 0turn 1")]
        assert pg.find_token(b"h" * 32) == TokenEntry("t", 1, 99)
        assert pg.load_sanctions() == [StoredSanction("ban", "10.0.0.0/8", "flood", ann, 7, None)]
        pg.add_audit(AuditRecord(10, ann, "unban", "10.0.0.0/8", ""))  # numbered after the copy
        assert [e.action for e in pg.audit_log()] == ["unban", "ban"]
        (game,) = pg.aborted_games()
        assert (game.game_id, game.record, game.players) == ("ga", b"rec", tuple(aborted))
        pg.save_tournament("winter", b"state of winter")  # made after the copied ones
        assert [name for name, _ in pg.load_tournaments()] == ["spring", "autumn", "winter"]
        assert pg.load_tournaments()[0] == ("spring", b"state of spring")

    # Once is enough: a database with rows is never written into.
    assert server_main(["migrate", "--from", str(db), "--to", pg_url]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the database is not empty" in err[0]


def test_migrate_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as usage:
        server_main(["migrate", "--from", str(tmp_path / "x.db"), "--to", str(tmp_path / "y.db")])
    assert usage.value.code == 2
    assert "must be a PostgreSQL URL" in capsys.readouterr().err
    assert (
        server_main(["migrate", "--from", str(tmp_path / "none.db"), "--to", "postgresql://x/y"])
        == 1
    )
    assert "no SQLite database at" in capsys.readouterr().err
