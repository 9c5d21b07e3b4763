"""The storage contract's held writes (write-behind: held in order, committed together, kept on
failure) and what survives a SIGKILL of the process that wrote them, on both backends
(test_storage_contract.py has the rest)."""

from __future__ import annotations

import logging

import pytest
from processes import kill_when_ready
from storage_helpers import Opener, ban, h, results

from sushigo.server.storage.contract import (
    AuditRecord,
    Storage,
    StorageError,
    TokenEntry,
)
from sushigo.server.storage.sqlite.storage import SqliteStorage


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
