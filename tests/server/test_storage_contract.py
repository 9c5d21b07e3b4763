"""The storage contract (server.storage.contract.Storage), the same tests on both backends: SQLite
(a file) and PostgreSQL (a real server from tests/pgcluster.py, a fresh database per test).
Everything the server relies on: tables in play and their turns, finished records, identities,
ratings per game kind, resume tokens, moderation, tournaments. Held writes and a SIGKILL are in
test_storage_writes.py, databases of older schema versions in test_storage_versions.py; the
databases (the fixtures `db`, `wb`, `storage`, `opener`) come from conftest.py."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from storage_helpers import Opener, ban, h, results

from sushigo.protocol.identity import player_id_for_key
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

ROOT = Path(__file__).resolve().parents[2]
KEY_A = bytes(range(32))
KEY_B = bytes(range(1, 33))
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
