"""The names' look-alike keys (schema version 13) reached from a database made by the code of
version 12 (data/names-v12.db, made by data/make_names_v12.py: four registered players, their
ratings and one game, no keys): a real server on a copy refuses look-alikes of the registered
names at once, keeps what was there, and a migration to PostgreSQL carries the keys."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from processes import server_process
from socket_helpers import refusal

from sushigo.client.connection import Client
from sushigo.protocol import ErrorCode
from sushigo.server.lookalike import skeleton
from sushigo.server.storage.migrate import migrate
from sushigo.server.storage.postgres.storage import PgStorage
from sushigo.server.storage.sqlite.schema import SCHEMA_VERSION
from sushigo.server.storage.sqlite.storage import SqliteStorage

V12 = Path(__file__).resolve().parent / "data" / "names-v12.db"

LOOK_ALIKES = {"admın": "admin", "сосо": "coco", "ANN": "Ann", "b0b": "bob"}
"""A name a guest tries, and the registered name it looks like."""


def _v12_identities(path: Path) -> dict[str, str]:
    """The version 12 file's players' ids by name, read as they are stored."""
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (12,)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(identities)")}
        assert "name_key" not in columns
        ids = {name: pid for pid, name in conn.execute("SELECT player_id, name FROM identities")}
    conn.close()
    return ids


async def test_a_server_on_a_version_12_database_refuses_look_alikes_of_its_players(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "server.db"
    shutil.copyfile(V12, copy)
    ids = _v12_identities(copy)
    async with server_process(copy) as server:
        for tried in LOOK_ALIKES:
            refused = await refusal(
                Client.connect("127.0.0.1", server.port, name=tried, timeout=10)
            )
            assert refused.code is ErrorCode.NAME_TAKEN, tried
            assert "registered" in str(refused)
        fresh = await Client.connect("127.0.0.1", server.port, name="newcomer", timeout=10)
        await fresh.close()
    with SqliteStorage(str(copy)) as db:
        assert db.schema_version == SCHEMA_VERSION == 14
        for tried, registered in LOOK_ALIKES.items():
            assert db.name_holders(skeleton(tried)) == [ids[registered]]
        assert [e.name for e in db.leaderboard(kind="sushi-go")] == ["bob", "Ann", "coco", "admin"]
        assert {e.name: e.games for e in db.leaderboard(kind="sushi-go")}["admin"] == 1


def test_a_version_12_sqlite_database_migrates_to_postgresql_with_its_keys(
    tmp_path: Path, pg_url: str
) -> None:
    copy = tmp_path / "server.db"
    shutil.copyfile(V12, copy)
    ids = _v12_identities(copy)
    counts = migrate(str(copy), pg_url)
    assert counts["identities"] == 4 and counts["records"] == 1
    with PgStorage(pg_url) as pg:
        for tried, registered in LOOK_ALIKES.items():
            assert pg.name_holders(skeleton(tried)) == [ids[registered]]
        assert pg.name_holders(skeleton("newcomer")) == []
