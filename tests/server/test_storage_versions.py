"""The storage contract on databases an older server left (test_storage_contract.py has the rest):
a database of an earlier schema version, on either backend, gains what came since and keeps its
data."""

from __future__ import annotations

import sqlite3

import pytest
from storage_helpers import Opener, ban

from sushigo.protocol.identity import player_id_for_key
from sushigo.server.lookalike import skeleton

NODE_COLUMNS = ("draining", "connections", "sessions", "playing")
"""The columns schema 14 added to the nodes' rows."""

NAME_KEYS = ("DROP INDEX identities_by_name_key", "ALTER TABLE identities DROP COLUMN name_key")
"""What takes a database back from version 13 to 12: its names' look-alike keys."""


_SQLITE_V11_RATINGS = (
    "DROP TABLE ratings",
    "CREATE TABLE ratings (player_id TEXT PRIMARY KEY, mu REAL NOT NULL, sigma REAL NOT NULL)",
    "CREATE TABLE game_ratings (kind TEXT, player_id TEXT, mu REAL, sigma REAL, "
    "PRIMARY KEY (kind, player_id))",
)
"""An SQLite database's ratings before version 12 (Sushi Go!'s apart from every other kind's)."""


def make_older(
    request: pytest.FixtureRequest,
    db_name: str,
    version: int,
    statements: list[str],
    *,
    pg: list[str] | tuple[str, ...] = (),
    sqlite: list[str] | tuple[str, ...] = (),
) -> None:
    """Turn the test's (closed) database back into one of schema `version`, as an older server
    left it: `statements`, then the backend's own (`pg` or `sqlite`), then its version number."""
    if db_name.startswith("postgresql://"):
        cluster = request.getfixturevalue("pg_cluster")
        cluster.sql(
            *statements,
            *pg,
            f"UPDATE sushigo_schema SET version = {version}",
            database=db_name.rsplit("/", 1)[1],
        )
        return
    raw = sqlite3.connect(db_name)
    try:
        for statement in [*statements, *sqlite, f"PRAGMA user_version = {version}"]:
            raw.execute(statement)
        raw.commit()
    finally:
        raw.close()


def test_a_version_4_database_gains_moderation_and_keeps_its_data(
    opener: Opener, db_name: str, request: pytest.FixtureRequest
) -> None:
    first = opener()
    first.save_table("t", b"kept")
    version = first.schema_version
    first.close()
    older = [f"DROP TABLE {t}" for t in ("aborted_results", "aborted_games", "audit_log")]
    older += ["DROP TABLE sanctions", "DROP TABLE tournaments", *NAME_KEYS]
    older += ["ALTER TABLE records DROP COLUMN server_key"]
    cluster = ["DROP TABLE table_leases", "DROP TABLE cluster_nodes", "DROP TABLE tickets"]
    cluster += ["DROP TABLE quick_tables", "DROP TABLE listed_tables"]
    cluster += ["DROP TABLE listed_tournaments", "DROP INDEX records_by_table"]
    make_older(request, db_name, 4, older, pg=cluster, sqlite=_SQLITE_V11_RATINGS)
    again = opener()
    assert again.schema_version == version == 14
    assert again.load_tables() == [("t", b"kept")]
    again.save_sanction(ban("k:ann", 1))
    assert again.load_sanctions() == [ban("k:ann", 1)]


def test_a_version_9_database_gains_tournaments_and_keeps_its_data(
    opener: Opener, db_name: str, request: pytest.FixtureRequest
) -> None:
    first = opener()
    first.save_table("t", b"kept")
    first.close()
    older = ["DROP TABLE tournaments", "ALTER TABLE records DROP COLUMN server_key", *NAME_KEYS]
    nodes = [f"ALTER TABLE cluster_nodes DROP COLUMN {c}" for c in NODE_COLUMNS]
    make_older(request, db_name, 9, older, pg=nodes, sqlite=_SQLITE_V11_RATINGS)
    again = opener()
    assert again.schema_version == 14
    assert again.load_tables() == [("t", b"kept")]
    again.save_tournament("cup", b"state")
    assert again.load_tournaments() == [("cup", b"state")]


# --- names' look-alike keys ------------------------------------------------------------------------


def test_a_version_12_database_gains_the_names_look_alike_keys(
    opener: Opener, db_name: str, request: pytest.FixtureRequest
) -> None:
    """Identities stored before version 13 (as today's databases hold them: no key) get their
    names' keys when the database is opened, so a look-alike of a registered name is
    found at once."""
    first = opener()
    first.save_table("t", b"kept")
    first.close()
    admin_key, coco_key = bytes(range(32)), bytes(range(1, 33))
    older = [*NAME_KEYS, "ALTER TABLE records DROP COLUMN server_key"]  # and 14's
    insert = "INSERT INTO identities VALUES ('{}', {}, '{}', 1, 2)"
    known = ((admin_key, "admin"), (coco_key, "coco"))
    nodes = [f"ALTER TABLE cluster_nodes DROP COLUMN {c}" for c in NODE_COLUMNS]
    pg_rows = [insert.format(player_id_for_key(k), f"'\\x{k.hex()}'::bytea", n) for k, n in known]
    sqlite_rows = [insert.format(player_id_for_key(k), f"X'{k.hex()}'", n) for k, n in known]
    make_older(request, db_name, 12, older, pg=[*nodes, *pg_rows], sqlite=sqlite_rows)
    again = opener()
    assert again.schema_version == 14
    assert again.load_tables() == [("t", b"kept")]
    assert again.name_holders(skeleton("admın")) == [player_id_for_key(admin_key)]
    assert again.name_holders(skeleton("сосо")) == [player_id_for_key(coco_key)]
    assert again.name_holders(skeleton("nobody")) == []
    again.upsert_identity(admin_key, "root", 3)  # a new name: the old one is free again
    assert again.name_holders(skeleton("admin")) == []
    assert again.name_holders(skeleton("R00T")) == [player_id_for_key(admin_key)]
