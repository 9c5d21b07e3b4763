"""The storage contract (server.storage.contract.Storage), the same tests on both backends: SQLite
(a file) and PostgreSQL (a real server from tests/pgcluster.py, a fresh database per test).
Everything the server relies on: tables in play and their turns, finished records, identities,
ratings per game kind, resume tokens, write-behind (held in order, committed together, kept on
failure), schema versions, and what survives a SIGKILL of the process that wrote it."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from processes import kill_when_ready

from sushigo.protocol.identity import player_id_for_key
from sushigo.server.lookalike import skeleton
from sushigo.server.storage.contract import (
    AuditRecord,
    PlayerResult,
    Storage,
    StorageError,
    StoredSanction,
    TokenEntry,
)
from sushigo.server.storage.database import open_storage
from sushigo.server.storage.postgres.storage import PgStorage
from sushigo.server.storage.sqlite.storage import SqliteStorage

ROOT = Path(__file__).resolve().parents[2]
KEY_A = bytes(range(32))
KEY_B = bytes(range(1, 33))
NODE_COLUMNS = ("draining", "connections", "sessions", "playing")
"""The columns schema 14 added to the nodes' rows."""

Opener = Callable[..., Storage]


@pytest.fixture(params=["sqlite", "postgresql"])
def db_name(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What ``--db`` would say: a file, or the URL of a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "contract.db")
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def opener(db_name: str) -> Iterator[Opener]:
    """Opens the test's database (as often as a test likes); closes what is left open."""
    opened: list[Storage] = []

    def open_(*, write_behind: bool = False, exclusive: bool = False) -> Storage:
        storage = open_storage(db_name, write_behind=write_behind, exclusive=exclusive)
        opened.append(storage)
        return storage

    yield open_
    for storage in opened:
        storage.close()


@pytest.fixture
def db(opener: Opener) -> Storage:
    return opener()


@pytest.fixture
def wb(opener: Opener) -> Storage:
    return opener(write_behind=True)


@pytest.fixture(params=[False, True])
def storage(opener: Opener, request: pytest.FixtureRequest) -> Storage:
    """The test's database, written through at once, and again with write-behind."""
    return opener(write_behind=request.param)


def results(*ids: str | None) -> list[PlayerResult]:
    return [
        PlayerResult(player_id=pid, name=f"p{seat}", seat=seat, score=10 * seat, place=seat + 1)
        for seat, pid in enumerate(ids)
    ]


def h(token: bytes) -> bytes:
    return hashlib.sha256(token).digest()


# --- tables in progress ------------------------------------------------------------------------


def test_tables_upsert_load_delete(db: Storage) -> None:
    assert db.load_tables() == []
    db.save_table("b", b"1")
    db.save_table("a", b"2")
    db.save_table("b", b"3")
    assert db.load_tables() == [("a", b"2"), ("b", b"3")]
    db.delete_table("b")
    db.delete_table("missing")
    assert db.load_tables() == [("a", b"2")]


def test_table_ids_sort_by_bytes(db: Storage) -> None:
    for table_id in ("b", "B", "a", "_", "Z"):
        db.save_table(table_id, table_id.encode())
    assert [t for t, _ in db.load_tables()] == ["B", "Z", "_", "a", "b"]


def test_appended_turns_load_after_the_head_and_a_whole_save_replaces_them(
    storage: Storage,
) -> None:
    storage.save_table("t", b"H", [b"a"])
    storage.append_turns("t", 1, [b"b"])
    storage.append_turns("t", 2, [b"c", b"d"])
    storage.save_table("u", b"U")
    assert storage.load_tables() == [("t", b"Habcd"), ("u", b"U")]
    storage.append_turns("t", 4, [b"e"], b"G")  # a new head; the turns stay
    storage.append_turns("t", 5, [b"f"])
    storage.append_turns("t", 5, [b"F"])  # the same turn again: it replaces
    assert storage.load_tables() == [("t", b"GabcdeF"), ("u", b"U")]
    storage.save_table("t", b"N", [b"x"])  # a new game: the old turns go
    assert storage.load_tables() == [("t", b"Nx"), ("u", b"U")]


def test_a_head_and_its_turns_are_written_together_or_not_at_all(db: Storage) -> None:
    db.save_table("t", b"H", [b"a"])
    with pytest.raises(StorageError):
        db.append_turns("t", 1, [b"b", None], b"G")  # type: ignore[list-item]
    assert db.load_tables() == [("t", b"Ha")]
    with pytest.raises(ValueError, match="from 0"):
        db.append_turns("t", -1, [b"x"])


def test_a_missing_turn_ends_what_loads_and_is_logged(
    db: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    db.save_table("t", b"H", [b"a", b"b"])
    db.append_turns("t", 3, [b"d"])  # turn 2 never came
    db.append_turns("t", 5, [b"f"])
    db.append_turns("orphan", 0, [b"o"])  # turns of no table
    with caplog.at_level(logging.ERROR, logger="sushigo.server"):
        assert db.load_tables() == [("t", b"Hab")]
    assert caplog.text.count("turn 2 is missing") == 1


def test_reopen_keeps_data(opener: Opener) -> None:
    first = opener()
    first.save_table("t1", b"state", [b"+1"])
    first.close()
    assert opener().load_tables() == [("t1", b"state+1")]


# --- finished games ----------------------------------------------------------------------------


def test_finish_game_is_one_transaction(db: Storage) -> None:
    db.save_table("t1", b"state", [b"turn"])
    db.save_token(h(b"x"), "t1", 0, 1000)
    pid = db.upsert_identity(KEY_A, "ann", 5)
    players = results(pid, None, "k:someone")
    db.finish_game("t1", "g1", "sushi-go", b"record", b"sig", players, finished_ms=1234)
    assert db.load_tables() == []
    assert db.find_token(h(b"x")) is None
    stored = db.get_record("g1")
    assert stored is not None
    assert (stored.game_id, stored.table_id, stored.kind) == ("g1", "t1", "sushi-go")
    assert (stored.record, stored.signature, stored.finished_ms) == (b"record", b"sig", 1234)
    assert stored.players == tuple(players)
    assert db.get_record("nope") is None
    db.save_table("t1", b"next game")  # the same table plays again: nothing of the last game
    assert db.load_tables() == [("t1", b"next game")]


def test_duplicate_game_changes_nothing(db: Storage) -> None:
    db.finish_game("t1", "g1", "sushi-go", b"r", b"s", results(None, None), finished_ms=1)
    db.save_table("t2", b"state")
    with pytest.raises(StorageError, match="already stored"):
        db.finish_game("t2", "g1", "sushi-go", b"r2", b"s2", results(None), finished_ms=2)
    assert db.load_tables() == [("t2", b"state")]
    stored = db.get_record("g1")
    assert stored is not None
    assert stored.record == b"r"
    assert len(stored.players) == 2


def test_failure_half_way_through_finish_game_stores_nothing(db: Storage) -> None:
    db.save_table("t1", b"state")
    bad = PlayerResult(player_id=None, name=None, seat=1, score=0, place=2)  # type: ignore[arg-type]
    with pytest.raises(StorageError):
        db.finish_game("t1", "g1", "sushi-go", b"r", b"s", [*results(None), bad], finished_ms=1)
    assert db.get_record("g1") is None
    assert db.list_records() == []
    assert db.load_tables() == [("t1", b"state")]
    with pytest.raises(ValueError, match="duplicate seats"):
        db.finish_game("t", "g", "sushi-go", b"r", b"s", [*results(None)] * 2, finished_ms=1)


def test_list_records_newest_first_paged_and_by_player(db: Storage) -> None:
    for n in range(5):
        ids = ("k:ann", None) if n % 2 == 0 else ("k:bob", "k:cat")
        db.finish_game(f"t{n}", f"g{n}", "sushi-go", b"r", b"s", results(*ids), finished_ms=n)
    assert [r.game_id for r in db.list_records()] == ["g4", "g3", "g2", "g1", "g0"]
    assert [r.game_id for r in db.list_records(limit=2, offset=1)] == ["g3", "g2"]
    assert [r.game_id for r in db.list_records(player_id="k:ann")] == ["g4", "g2", "g0"]
    assert [r.game_id for r in db.list_records(player_id="k:cat", limit=1)] == ["g3"]
    assert db.list_records(player_id="k:nobody") == []
    summary = db.list_records(limit=1)[0]
    assert summary.players == tuple(results("k:ann", None))
    with pytest.raises(ValueError):
        db.list_records(limit=-1)


# --- identities and ratings --------------------------------------------------------------------


def test_identities(db: Storage) -> None:
    pid = db.upsert_identity(KEY_A, "ann", 100)
    assert pid == player_id_for_key(KEY_A)
    assert db.upsert_identity(KEY_A, "Ann B", 200) == pid
    ident = db.get_identity(pid)
    assert ident is not None
    assert (ident.public_key, ident.name, ident.first_seen_ms, ident.last_seen_ms) == (
        KEY_A,
        "Ann B",
        100,
        200,
    )
    assert db.get_identity("k:unknown") is None
    with pytest.raises(ValueError):
        db.upsert_identity(b"short", "x", 1)


def test_ratings_per_kind_and_leaderboards(db: Storage) -> None:
    ann = db.upsert_identity(KEY_A, "ann", 1)
    bob = db.upsert_identity(KEY_B, "bob", 1)
    assert db.get_rating(ann, "sushi-go") is None
    db.set_ratings({ann: (25.0, 8.0), bob: (30.0, 2.0)}, "sushi-go")
    db.set_ratings({ann: (40.0, 1.0)}, "sushi-roll")
    assert db.get_rating(ann, "sushi-go") == (25.0, 8.0)
    assert db.get_rating(ann, "sushi-roll") == (40.0, 1.0)
    assert db.get_rating(bob, "sushi-roll") is None
    db.finish_game("t", "g", "sushi-go", b"r", b"s", results(ann, bob), finished_ms=1)
    db.finish_game("u", "h", "sushi-roll", b"r", b"s", results(ann), finished_ms=2)
    db.set_ratings({ann: (26.0, 7.5)}, "sushi-go")
    board = db.leaderboard(10, kind="sushi-go")
    assert [(e.player_id, e.name, e.games) for e in board] == [(bob, "bob", 1), (ann, "ann", 1)]
    assert board[0].ordinal == pytest.approx(24.0)
    assert len(db.leaderboard(1, kind="sushi-go")) == 1
    roll = db.leaderboard(10, kind="sushi-roll")
    assert [(e.player_id, e.games, e.mu) for e in roll] == [(ann, 1, 40.0)]


def test_every_kind_counts_on_its_own_ladder_only(db: Storage) -> None:
    """A player's games on a ladder are that game's alone: one Sushi Go! game and three of a
    plug-in game are one game on Sushi Go!'s ladder and three on the plug-in's."""
    ann = db.upsert_identity(KEY_A, "ann", 1)
    bob = db.upsert_identity(KEY_B, "bob", 1)
    db.set_ratings({ann: (25.0, 8.0), bob: (30.0, 2.0)}, "sushi-go")
    db.set_ratings({ann: (27.0, 4.0), bob: (22.0, 6.0)}, "rps")
    db.finish_game("t", "g", "sushi-go", b"r", b"s", results(ann, bob), finished_ms=1)
    for n in range(3):
        db.finish_game(f"u{n}", f"h{n}", "rps", b"r", b"s", results(ann, bob), finished_ms=2 + n)
    assert [e.games for e in db.leaderboard(kind="sushi-go")] == [1, 1]
    assert [(e.player_id, e.games) for e in db.leaderboard(kind="rps")] == [(ann, 3), (bob, 3)]
    assert db.standing(ann, "sushi-go")[2].games == 1  # type: ignore[union-attr]
    assert db.standing(ann, "rps") == (2, 1, db.leaderboard(kind="rps")[0])
    assert db.leaderboard(kind="sushi-roll") == []


def test_a_players_standing_is_their_place_in_the_leaderboards_order(db: Storage) -> None:
    players = [db.upsert_identity(bytes([i]) * 32, f"p{i}", 1) for i in range(1, 8)]
    # Ordinals 10, 10, 5, 4, 0, -1, -20 (mu - 3 sigma): the two tied ones by id.
    ladder = [(25.0, 5.0), (16.0, 2.0), (20.0, 5.0), (13.0, 3.0), (24.0, 8.0), (5.0, 2.0), (1, 7)]
    db.set_ratings(dict(zip(players, ladder, strict=True)), "sushi-go")
    db.finish_game("t", "g", "sushi-go", b"r", b"s", results(players[0], players[1]), finished_ms=1)
    board = db.leaderboard(100, kind="sushi-go")
    for rank, entry in enumerate(board, 1):
        total, at, mine = db.standing(entry.player_id, "sushi-go")
        assert (total, at) == (7, rank), entry
        assert mine == entry
    assert db.standing(players[0], "sushi-roll") == (0, 0, None)
    assert db.standing("k:" + "00" * 16, "sushi-go") == (7, 0, None)
    db.set_ratings({players[2]: (30.0, 1.0)}, "sushi-roll")
    total, at, mine = db.standing(players[2], "sushi-roll")
    assert (total, at) == (1, 1) and mine is not None and mine.games == 0


def test_rating_an_unknown_player_changes_nothing(db: Storage) -> None:
    ann = db.upsert_identity(KEY_A, "ann", 1)
    with pytest.raises(StorageError):
        db.set_ratings({ann: (20.0, 5.0), "k:guest": (20.0, 5.0)}, "sushi-go")
    assert db.get_rating(ann, "sushi-go") is None
    with pytest.raises(ValueError):
        db.set_ratings({ann: (float("nan"), 1.0)}, "sushi-go")


def test_rate_game_reads_and_writes_in_one_go(storage: Storage) -> None:
    ann = storage.upsert_identity(KEY_A, "ann", 1)
    bob = storage.upsert_identity(KEY_B, "bob", 1)
    storage.set_ratings({ann: (20.0, 4.0)}, "sushi-roll")
    seen: list[Sequence[tuple[float, float] | None]] = []

    def rate(old: Sequence[tuple[float, float] | None]) -> list[tuple[float, float]]:
        seen.append(list(old))
        return [(21.0, 3.0), (19.0, 3.5)]

    storage.rate_game("sushi-roll", [ann, bob], rate)
    storage.flush(wait=True)
    assert seen == [[(20.0, 4.0), None]]
    assert storage.get_rating(ann, "sushi-roll") == (21.0, 3.0)
    assert storage.get_rating(bob, "sushi-roll") == (19.0, 3.5)
    assert storage.get_rating(ann, "sushi-go") is None  # the card game's ladder is another


def test_a_held_rating_that_cannot_be_stored_is_logged_and_the_batch_goes_on(
    wb: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    ann = wb.upsert_identity(KEY_A, "ann", 1)
    wb.flush(wait=True)
    wb.rate_game("sushi-go", [ann, "k:guest"], lambda old: [(1.0, 1.0), (2.0, 2.0)])
    wb.save_table("t", b"after")
    with caplog.at_level(logging.ERROR, logger="sushigo.server"):
        wb.flush(wait=True)
    assert "not stored" in caplog.text
    assert wb.get_rating(ann, "sushi-go") is None
    assert wb.load_tables() == [("t", b"after")]


# --- reconnect tokens --------------------------------------------------------------------------


def test_tokens_save_find_delete(db: Storage) -> None:
    db.save_token(h(b"a"), "t1", 0, 100)
    db.save_token(h(b"b"), "t1", 1, 200)
    db.save_token(h(b"c"), "t2", 0, 300)
    assert db.find_token(h(b"a")) == TokenEntry("t1", 0, 100) == ("t1", 0, 100)
    assert db.find_token(h(b"zz")) is None
    db.delete_token(h(b"a"))
    assert db.find_token(h(b"a")) is None
    db.delete_tokens_for("t1")
    assert db.find_token(h(b"b")) is None
    assert db.find_token(h(b"c")) == TokenEntry("t2", 0, 300)
    assert db.delete_expired_tokens(300) == 0
    assert db.delete_expired_tokens(301) == 1
    assert db.find_token(h(b"c")) is None


def test_one_live_token_per_seat(db: Storage) -> None:
    db.save_token(h(b"old"), "t", 2, 100)
    db.save_token(h(b"new"), "t", 2, 100)
    assert db.find_token(h(b"old")) is None
    assert db.find_token(h(b"new")) == TokenEntry("t", 2, 100)


def test_rotation_refuses_the_old_token(db: Storage) -> None:
    db.save_token(h(b"first"), "t", 1, 100)
    assert db.rotate_token(h(b"first"), h(b"second"), 500) == TokenEntry("t", 1, 500)
    assert db.find_token(h(b"first")) is None
    assert db.find_token(h(b"second")) == TokenEntry("t", 1, 500)
    assert db.rotate_token(h(b"first"), h(b"thief"), 900) is None
    assert db.find_token(h(b"thief")) is None
    assert db.find_token(h(b"second")) == TokenEntry("t", 1, 500)


def test_tokens_are_there_after_reopening(opener: Opener) -> None:
    first = opener(write_behind=True)
    first.save_token(h(b"a"), "t", 0, 100)
    first.save_token(h(b"b"), "t", 1, 100)
    first.rotate_token(h(b"b"), h(b"c"), 200)
    first.save_table("t", b"s")
    first.save_table("gone", b"s")
    first.save_token(h(b"d"), "gone", 0, 100)
    first.delete_table("gone")
    first.close()
    again = opener()
    assert again.find_token(h(b"a")) == TokenEntry("t", 0, 100)
    assert again.find_token(h(b"b")) is None
    assert again.find_token(h(b"c")) == TokenEntry("t", 1, 200)
    assert again.find_token(h(b"d")) is None


# --- moderation: bans and mutes, the audit log, aborted games -----------------------------------


def ban(target: str, at: int, kind: str = "ban", until: int | None = None) -> StoredSanction:
    return StoredSanction(kind, target, f"why {target}", "k:admin", at, until)


def test_sanctions_are_kept_replaced_lifted_and_outlast_a_reopen(opener: Opener) -> None:
    db = opener()
    assert db.load_sanctions() == []
    db.save_sanction(ban("10.0.0.0/8", 3))
    db.save_sanction(ban("k:ann", 1, until=99))
    db.save_sanction(ban("k:ann", 2, kind="mute"))  # a mute of the same player is its own
    db.save_sanction(ban("2001:db8::/32", 4))
    db.save_sanction(StoredSanction("ban", "10.0.0.0/8", "again", "k:other", 5, None))
    db.delete_sanction("ban", "2001:db8::/32")
    db.delete_sanction("ban", "never banned")
    db.close()
    assert opener().load_sanctions() == [  # oldest first
        ban("k:ann", 1, until=99),
        ban("k:ann", 2, kind="mute"),
        StoredSanction("ban", "10.0.0.0/8", "again", "k:other", 5, None),
    ]


def test_the_audit_log_is_newest_first_in_the_order_written(db: Storage) -> None:
    for n, action in enumerate(["ban", "kick", "close", "announce"]):
        db.add_audit(AuditRecord(100 + n // 2, "k:root", action, f"x{n}", "détail ✓"))
    assert [e.action for e in db.audit_log()] == ["announce", "close", "kick", "ban"]
    assert db.audit_log(limit=1, offset=1) == [
        AuditRecord(101, "k:root", "close", "x2", "détail ✓")
    ]
    assert db.audit_log(offset=9) == []
    with pytest.raises(ValueError):
        db.audit_log(limit=-1)


def test_an_aborted_game_retires_its_table_and_is_kept_apart(storage: Storage) -> None:
    storage.save_table("t1", b"state", [b"turn"])
    storage.save_token(h(b"x"), "t1", 0, 1000)
    storage.finish_game("t0", "g0", "sushi-go", b"r", b"s", results(None, None), finished_ms=1)
    players = results("k:ann", None)
    storage.abort_game(
        "t1", "g1", "sushi-go", b"partial", b"sig", players, aborted_ms=7, reason="spam"
    )
    storage.abort_game(
        "t2", "g2", "sushi-roll", b"p2", b"s2", results(None), aborted_ms=9, reason=""
    )
    storage.flush(wait=True)
    assert storage.load_tables() == []
    assert storage.find_token(h(b"x")) is None
    assert [g.game_id for g in storage.list_records()] == ["g0"]  # never among the finished
    assert storage.get_record("g1") is None
    assert storage.list_records(player_id="k:ann") == []
    second, first = storage.aborted_games()
    assert (first.game_id, first.table_id, first.kind, first.finished_ms) == (
        "g1",
        "t1",
        "sushi-go",
        7,
    )
    assert (first.record, first.signature, first.reason) == (b"partial", b"sig", "spam")
    assert first.players == tuple(players)
    assert second.game_id == "g2" and storage.aborted_games(limit=1, offset=1) == [first]
    storage.save_table("t1", b"next game")
    assert storage.load_tables() == [("t1", b"next game")]


def test_an_aborted_game_stored_twice_changes_nothing(opener: Opener) -> None:
    db = opener()
    db.abort_game("t", "g", "sushi-go", b"r", b"s", results(None), aborted_ms=1, reason="a")
    db.save_table("u", b"state")
    with pytest.raises(StorageError, match="already stored"):
        db.abort_game("u", "g", "sushi-go", b"r2", b"s", results(None), aborted_ms=2, reason="b")
    assert db.load_tables() == [("u", b"state")]
    assert [g.record for g in db.aborted_games()] == [b"r"]
    with pytest.raises(ValueError, match="duplicate seats"):
        db.abort_game("t", "h", "sushi-go", b"r", b"s", results(None) * 2, aborted_ms=1, reason="")


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


def test_moderation_writes_wait_for_flush(wb: Storage, opener: Opener) -> None:
    wb.save_sanction(ban("k:ann", 1))
    wb.add_audit(AuditRecord(1, "k:root", "ban", "k:ann", ""))
    wb.delete_sanction("mute", "k:ann")
    assert wb.held == 3
    other = opener()
    assert other.load_sanctions() == [] and other.audit_log() == []
    wb.flush(wait=True)
    assert other.load_sanctions() == [ban("k:ann", 1)]
    assert len(other.audit_log()) == 1


# --- write-behind -------------------------------------------------------------------------------


def test_writes_wait_for_flush_and_are_counted(wb: Storage, opener: Opener) -> None:
    wb.save_table("a", b"1")
    wb.save_token(h(b"t"), "a", 0, 99)
    wb.save_table("b", b"1", [b"+"])
    assert wb.held == 3
    assert wb.mark == 3
    assert wb.durable == 0
    assert opener().load_tables() == []  # another connection sees nothing yet
    wb.flush(wait=True)
    assert (wb.held, wb.durable) == (0, 3)
    assert opener().load_tables() == [("a", b"1"), ("b", b"1+")]
    assert wb.flush()  # nothing held: nothing to do


def test_newest_state_of_a_table_wins_and_order_is_kept(wb: Storage) -> None:
    wb.save_table("t", b"old")
    wb.save_token(h(b"k"), "t", 1, 50)
    wb.save_table("t", b"new")
    assert wb.held == 2  # the older state of "t" is never written
    wb.delete_token(h(b"k"))
    wb.save_token(h(b"k"), "t", 2, 60)
    assert wb.find_token(h(b"k")) == TokenEntry("t", 2, 60)
    assert wb.load_tables() == [("t", b"new")]  # a read sees every held write
    assert wb.held == 0


def test_a_game_stored_after_a_held_save_retires_the_table(wb: Storage, opener: Opener) -> None:
    wb.save_table("t", b"last turn", [b"0"])
    wb.save_token(h(b"k"), "t", 0, 99)
    wb.finish_game("t", "g", "sushi-go", b"rec", b"sig", results(None, None), finished_ms=1)
    wb.save_table("t", b"next game")  # the next game at the table, held with the rest
    wb.append_turns("t", 0, [b"z"])
    wb.flush(wait=True)
    other = opener()
    assert other.load_tables() == [("t", b"next gamez")]
    assert other.get_record("g") is not None
    assert wb.find_token(h(b"k")) is None


def test_a_game_stored_twice_is_logged_and_skipped_with_write_behind(
    wb: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    players = results(None, None)
    wb.finish_game("t", "g", "sushi-go", b"first", b"sig", players, finished_ms=1)
    wb.save_table("u", b"state")
    wb.finish_game("t", "g", "sushi-go", b"second", b"sig", players, finished_ms=2)
    wb.delete_table("u")
    with caplog.at_level(logging.ERROR, logger="sushigo.server"):
        wb.flush(wait=True)  # the rest of the batch is written all the same
    stored = wb.get_record("g")
    assert stored is not None and stored.record == b"first"
    assert wb.load_tables() == []
    assert "game g is already stored" in caplog.text


def test_games_finished_together_are_each_stored_and_a_repeat_is_skipped(
    wb: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    players = results(None, None)
    wb.finish_game("t0", "g0", "sushi-go", b"zero", b"sig", players, finished_ms=1)
    wb.flush(wait=True)
    for table in ("t1", "t2", "t3"):
        wb.save_table(table, b"state", [b"turn"] * 3)
        wb.save_token(h(table.encode()), table, 0, 100)
    wb.flush(wait=True)
    # In a row, as when many tables end in one pass: two new games, one of them twice, and one
    # stored already; the tables of the stored games retire with them.
    wb.finish_game("t1", "g1", "sushi-go", b"one", b"sig", players, finished_ms=2)
    wb.finish_game("t2", "g2", "sushi-roll", b"two", b"sig", players, finished_ms=3)
    wb.finish_game("t1", "g1", "sushi-go", b"again", b"sig", players, finished_ms=4)
    wb.finish_game("t3", "g0", "sushi-go", b"late", b"sig", players, finished_ms=5)
    with caplog.at_level(logging.ERROR, logger="sushigo.server"):
        wb.flush(wait=True)
    records = {g: wb.get_record(g) for g in ("g0", "g1", "g2")}
    assert {g: r.record for g, r in records.items() if r} == {
        "g0": b"zero",
        "g1": b"one",
        "g2": b"two",
    }
    assert [p.seat for p in records["g2"].players] == [0, 1]  # type: ignore[union-attr]
    assert "game g1 is already stored" in caplog.text and "game g0 is already stored" in caplog.text
    assert [t for t, _ in wb.load_tables()] == ["t3"]  # its game was not stored: kept
    assert wb.find_token(h(b"t1")) is None and wb.find_token(h(b"t2")) is None


def test_token_saves_and_deletes_held_together_end_as_one_after_another(opener: Opener) -> None:
    storage = opener(write_behind=True)
    storage.save_token(h(b"old"), "t9", 0, 5)
    storage.flush(wait=True)
    # A crowd leaving and sitting down again, in one batch.
    storage.save_token(h(b"a"), "t1", 0, 10)
    storage.delete_token(h(b"a"))
    storage.save_token(h(b"b"), "t1", 0, 11)
    storage.save_token(h(b"c"), "t2", 1, 12)
    storage.delete_token(h(b"old"))
    storage.save_token(h(b"c"), "t3", 0, 13)  # the same session at another table
    storage.delete_token(h(b"nobody's"))
    storage.save_token(h(b"d"), "t1", 0, 14)  # the seat's token replaced
    storage.close()
    again = opener()
    found = {k: again.find_token(h(k)) for k in (b"old", b"a", b"b", b"c", b"d")}
    assert found == {
        b"old": None,
        b"a": None,
        b"b": None,
        b"c": TokenEntry("t3", 0, 13),
        b"d": TokenEntry("t1", 0, 14),
    }


def test_close_writes_what_is_held(opener: Opener) -> None:
    storage = opener(exclusive=True, write_behind=True)
    storage.save_table("t", b"kept")
    storage.close()
    storage.close()
    assert opener().load_tables() == [("t", b"kept")]


def test_exclusive_keeps_a_second_server_out(opener: Opener, db_name: str) -> None:
    first = opener(exclusive=True)
    first.save_table("t", b"1")
    with pytest.raises(StorageError, match="another sushigo server"):
        if db_name.startswith("postgresql://"):
            opener(exclusive=True)
        else:  # SQLite waits for the lock first: not for long here
            SqliteStorage(db_name, exclusive=True, busy_timeout_ms=20)
    first.close()
    assert opener(exclusive=True).load_tables() == [("t", b"1")]


# --- crash safety --------------------------------------------------------------------------------

_CHILD = """
import sys
from sushigo.server.storage.database import open_storage
from sushigo.server.storage.sqlite.storage import SqliteStorage
from sushigo.server.storage.contract import PlayerResult
storage = open_storage(sys.argv[1], exclusive=True, write_behind=True)
for n in range(20):
    storage.save_table(f"t{n}", bytes([n]) * 3000, [b"turn"])
storage.save_token(b"k" * 32, "t7", 1, 99)
storage.finish_game("t3", "g3", "sushi-go", b"record", b"signature",
                    [PlayerResult(None, "ann", 0, 40, 1), PlayerResult(None, "bob", 1, 30, 2)],
                    finished_ms=42)
storage.flush(wait=True)
storage.save_table("t0", b"held, never flushed")
storage.save_table("late", b"held, never flushed")
print("ready", flush=True)
sys.stdin.read()  # wait to be killed
"""


def test_flushed_writes_survive_sigkill_and_held_ones_are_lost(
    db_name: str, opener: Opener
) -> None:
    kill_when_ready(_CHILD, db_name)
    storage = opener(exclusive=True)  # the dead server's lock went with it
    tables = dict(storage.load_tables())
    assert len(tables) == 19
    assert "t3" not in tables and "late" not in tables
    assert tables["t0"] == bytes([0]) * 3000 + b"turn"
    stored = storage.get_record("g3")
    assert stored is not None
    assert (stored.record, stored.signature, len(stored.players)) == (b"record", b"signature", 2)
    assert storage.find_token(b"k" * 32) == TokenEntry("t7", 1, 99)


NAME_KEYS = ("DROP INDEX identities_by_name_key", "ALTER TABLE identities DROP COLUMN name_key")
"""What takes a database back from version 13 to 12: its names' look-alike keys."""


# --- tournaments ---------------------------------------------------------------------------------


def test_tournaments_are_stored_replaced_in_place_and_forgotten(db: Storage) -> None:
    assert db.load_tournaments() == []
    db.save_tournament("cup", b"one")
    db.save_tournament("spring", b"two")
    db.save_tournament("cup", b"one, later")  # keeps its place: the order made
    assert db.load_tournaments() == [("cup", b"one, later"), ("spring", b"two")]
    db.delete_tournament("cup")
    db.delete_tournament("none such")
    assert db.load_tournaments() == [("spring", b"two")]


def test_a_tournaments_writes_are_held_and_the_newest_replaces_the_held_one(
    wb: Storage, opener: Opener
) -> None:
    wb.save_tournament("cup", b"made")
    wb.save_tournament("cup", b"started")
    assert wb.held == 1  # the newer state replaced the held one: one write, not a write each
    wb.flush(wait=True)
    assert opener().load_tournaments() == [("cup", b"started")]


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


def test_a_node_writes_only_its_own_tournaments(pg_url: str) -> None:
    """PostgreSQL on a cluster: a tournament another node took over is not written over by the
    node that held it (one away past its lease), and each node loads its own."""
    first = open_storage(pg_url, write_behind=False)
    second = open_storage(pg_url, write_behind=False)
    try:
        assert isinstance(first, PgStorage) and isinstance(second, PgStorage)
        first.fence = ("n1", timedelta(seconds=10))
        second.fence = ("n2", timedelta(seconds=10))
        first.save_tournament("cup", b"n1's")
        second.save_tournament("cup", b"n2's")  # n1 holds it: left as it is
        assert first.load_tournaments() == [("cup", b"n1's")]
        assert second.load_tournaments() == []
        second.delete_tournament("cup")
        assert first.load_tournaments() == [("cup", b"n1's")]
    finally:
        first.close()
        second.close()


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
