"""Every game's ladder in one table by kind, on both backends, reached from databases of schema
version 11 with their ratings kept exactly: a SQLite file made by that version's code
(data/ladders-v11.db, made by data/make_ladders_v11.py: Sushi Go!'s ratings in `ratings`, other
kinds' in `game_ratings`), and a PostgreSQL database at version 11 with the same rows. Before,
every game of a kind without a ladder of its own (the plug-in's) counted on Sushi Go!'s."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import asyncpg

from sushigo.server.storage.migrate import migrate
from sushigo.server.storage.postgres.schema import MIGRATIONS as PG_MIGRATIONS
from sushigo.server.storage.postgres.storage import PgStorage
from sushigo.server.storage.sqlite.schema import SCHEMA_VERSION
from sushigo.server.storage.sqlite.storage import SqliteStorage

V11 = Path(__file__).resolve().parent / "data" / "ladders-v11.db"

GAMES = {"sushi-go": {"ann": 1, "bob": 1}, "rps": {"ann": 3, "cat": 3}, "sushi-roll": {"ann": 2}}
"""Each ladder's players and their games there (the file's six games: one of Sushi Go!, three of
rock-paper-scissors, two of Sushi Roll; bob played Sushi Roll unrated)."""


def _v11_rows(path: Path) -> tuple[set[tuple[str, str, float, float]], dict[str, str]]:
    """The version 11 file's ratings as (kind, player, mu, sigma), read as they are stored, and
    the players' names by id."""
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (11,)
        rows = {("sushi-go", *row) for row in conn.execute("SELECT * FROM ratings")}
        rows |= set(conn.execute("SELECT kind, player_id, mu, sigma FROM game_ratings"))
        names = dict(conn.execute("SELECT player_id, name FROM identities").fetchall())
    conn.close()
    return rows, names


def _check_ladders(db: SqliteStorage | PgStorage, rows: set[tuple[str, str, float, float]]) -> None:
    """The ratings exactly as they were, and each ladder counting its own games."""
    for kind, player_id, mu, sigma in rows:
        assert db.get_rating(player_id, kind) == (mu, sigma)  # the same floats, bit for bit
    for kind, games in GAMES.items():
        board = db.leaderboard(kind=kind)
        assert {e.name: e.games for e in board} == games, kind
        assert {(kind, e.player_id, e.mu, e.sigma) for e in board} == {
            row for row in rows if row[0] == kind
        }


def test_a_version_11_sqlite_database_keeps_its_ratings_exactly(tmp_path: Path) -> None:
    copy = tmp_path / "server.db"
    shutil.copyfile(V11, copy)
    rows, _ = _v11_rows(copy)
    assert len(rows) == 5 and {row[0] for row in rows} == set(GAMES)
    with SqliteStorage(str(copy)) as db:
        _check_ladders(db, rows)
    with sqlite3.connect(copy) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_schema")}
        assert "game_ratings" not in tables
        stored = set(conn.execute("SELECT kind, player_id, mu, sigma FROM ratings"))
    conn.close()
    assert stored == rows


def test_a_version_11_sqlite_database_migrates_to_postgresql_exactly(
    tmp_path: Path, pg_url: str
) -> None:
    copy = tmp_path / "server.db"
    shutil.copyfile(V11, copy)
    rows, _ = _v11_rows(copy)
    counts = migrate(str(copy), pg_url)
    assert counts["ratings"] == 5 and counts["records"] == 6
    with PgStorage(pg_url) as pg:
        _check_ladders(pg, rows)


async def _make_v11(
    url: str, rows: set[tuple[str, str, float, float]], names: dict[str, str]
) -> None:
    """A PostgreSQL database as version 11's code leaves it: its migrations (which are never
    edited, only appended to) up to 11, and the file's identities, ratings and games."""
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            for version, statements in PG_MIGRATIONS:
                if version <= 11:
                    for statement in statements:
                        await conn.execute(statement)
            await conn.execute("INSERT INTO sushigo_schema (version) VALUES (11)")
            await conn.executemany(
                "INSERT INTO identities VALUES ($1, $2, $3, 1, 1)",
                [(pid, pid.encode(), name) for pid, name in names.items()],
            )
            await conn.executemany("INSERT INTO ratings VALUES ($1, $2, $3, $4)", sorted(rows))
            ids = {name: pid for pid, name in names.items()}
            n = 0
            for kind, games in GAMES.items():
                for _ in range(max(games.values())):
                    await conn.execute(
                        "INSERT INTO records (game_id, table_id, kind, finished_ms, record, "
                        "signature) VALUES ($1, $1, $2, $3, '', '')",
                        f"g{n}",
                        kind,
                        n,
                    )
                    await conn.executemany(
                        "INSERT INTO results VALUES ($1, $2, $3, $4, 0, $2 + 1)",
                        [(f"g{n}", seat, ids[name], name) for seat, name in enumerate(games)],
                    )
                    n += 1
    finally:
        await conn.close()


def test_a_version_11_postgresql_database_keeps_its_ratings_exactly(pg_url: str) -> None:
    rows, names = _v11_rows(V11)
    asyncio.run(_make_v11(pg_url, rows, names))
    with PgStorage(pg_url) as pg:
        _check_ladders(pg, rows)
        assert pg.leaderboard(kind="sushi-go")[0].games == 1
