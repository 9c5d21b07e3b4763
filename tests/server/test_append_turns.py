"""Tables saved in parts (schema version 3, generations since 4): a head row, rewritten only when
it changes, and one row per turn, appended as it is played. What loads back is the head and the
turns of its generation joined, which is the same state a save from scratch gives; databases of
version 2 (whole states) still load and resume; a finished or removed table's turn rows never load
and are purged in a batch. That a head and its turns change together, and that a missing turn
ends what loads, is in test_storage_contract.py (both backends)."""

from __future__ import annotations

import contextlib
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from server_helpers import Clock, Peer, check_ended, hub_on, logged_in
from sqlite_files import heads, turn_rows

import sushigo.server.storage.sqlite.storage as storage_module
import sushigo.server.storage.sqlite.tables as tables_module
from sushigo.protocol import TableSettings
from sushigo.server.hub.core import Hub
from sushigo.server.storage.contract import PlayerResult, StorageError
from sushigo.server.storage.sqlite.storage import SCHEMA_VERSION, SqliteStorage
from sushigo.server.tables.persist import dump, load, table_state
from sushigo.server.tables.table import Table

PLAYERS = [PlayerResult(None, "ann", 0, 40, 1), PlayerResult(None, "bob", 1, 30, 2)]


# --- the storage ------------------------------------------------------------------------------


@pytest.mark.parametrize("write_behind", [False, True])
def test_a_whole_save_leaves_the_old_turns_for_one_purge(
    tmp_path: Path, write_behind: bool
) -> None:
    """What loads after appends and a whole save is the contract's (test_storage_contract.py);
    here, the rows: the replaced turns stay, counted, until a purge takes them together."""
    path = tmp_path / "parts.db"
    with SqliteStorage(path, write_behind=write_behind) as storage:
        storage.save_table("t", b"H", [b"a"])
        storage.append_turns("t", 1, [b"b"])
        storage.append_turns("t", 2, [b"c", b"d"])
        storage.append_turns("t", 4, [b"e"], b"G")  # a new head; the turns stay
        storage.save_table("t", b"N", [b"x"])  # a new game: the old turns go
        storage.flush()
        assert storage.load_tables() == [("t", b"Nx")]
        assert storage.retired_turns == 5, "left for the next purge"
        storage.purge_turns()
        storage.flush()
        assert turn_rows(path) == {"t": [0]}
        assert storage.retired_turns == 0


def test_held_appends_keep_their_order_around_a_newer_whole_save(tmp_path: Path) -> None:
    path = tmp_path / "wb.db"
    with SqliteStorage(path, write_behind=True) as storage:
        storage.save_table("t", b"H", [b"a"])
        storage.append_turns("t", 1, [b"b"])
        storage.finish_game("t", "g", "sushi-go", b"rec", b"sig", PLAYERS, finished_ms=1)
        storage.save_table("t", b"N")  # the next game at the table, held with the rest
        storage.append_turns("t", 0, [b"z"])
        assert heads(path) == {}
        assert storage.flush()
        assert storage.load_tables() == [("t", b"Nz")]
        storage.purge_turns()
        assert storage.flush()
        assert turn_rows(path) == {"t": [0]}
        assert storage.get_record("g") is not None


def test_finished_and_removed_tables_leave_no_turn_rows(tmp_path: Path) -> None:
    path = tmp_path / "gone.db"
    with SqliteStorage(path) as storage:
        storage.save_table("done", b"H", [b"1", b"2"])
        storage.save_table("left", b"H", [b"1"])
        storage.append_turns("left", 1, [b"2"])
        storage.save_table("kept", b"K", [b"1"])
        storage.finish_game("done", "g", "sushi-go", b"rec", b"sig", PLAYERS, finished_ms=1)
        storage.delete_table("left")
        assert storage.load_tables() == [("kept", b"K1")]
        storage.purge_turns()
        assert turn_rows(path) == {"kept": [0]}
        assert storage.load_tables() == [("kept", b"K1")]


def test_retired_turns_are_purged_in_one_batch_after_the_writes_they_follow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tables_module, "PURGE_ROWS", 6)
    path = tmp_path / "purge.db"
    with SqliteStorage(path, write_behind=True) as storage:
        storage.save_table("a", b"A", [b"1", b"2"])
        storage.append_turns("a", 2, [b"3"])
        storage.save_table("b", b"B", [b"1"])
        storage.finish_game("a", "ga", "sushi-go", b"rec", b"sig", PLAYERS, finished_ms=1)
        storage.save_table("b", b"B2", [b"x", b"y"])  # b's first row retires too
        assert storage.retired_turns == 1, "a's rows wait until its game is stored"
        assert storage.flush()
        assert storage.retired_turns == 4
        storage.delete_table("b")  # six retired: purged with this batch, after its writes
        assert storage.retired_turns == 0
        storage.save_table("c", b"C", [b"1"])
        assert storage.flush()
        assert turn_rows(path) == {"c": [0]}
        assert storage.load_tables() == [("c", b"C1")]
        assert storage.get_record("ga") is not None


def test_rows_of_an_earlier_game_at_a_table_never_load_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "stale.db"
    with SqliteStorage(path) as storage:
        storage.save_table("t", b"H", [b"a", b"b", b"c"])
        storage.finish_game("t", "g", "sushi-go", b"rec", b"sig", PLAYERS, finished_ms=1)
        storage.save_table("t", b"N", [b"x"])  # the next game at the same table
        storage.append_turns("t", 1, [b"y"])
    # Closed before any purge: the old rows are still there, as after a crash.
    assert turn_rows(path) == {"t": [0, 0, 1, 1, 2]}
    with SqliteStorage(path) as storage:
        assert storage.retired_turns == 3, "found again at open"
        assert storage.load_tables() == [("t", b"Nxy")]
        storage.append_turns("t", 2, [b"z"])
        assert storage.load_tables() == [("t", b"Nxyz")]
        storage.purge_turns()
        assert turn_rows(path) == {"t": [0, 1, 2]}
        storage.save_table("u", b"U", [b"1"])  # a new generation, above every one stored
        assert storage.load_tables() == [("t", b"Nxyz"), ("u", b"U1")]


def test_a_turn_appended_again_replaces_the_earlier_one(tmp_path: Path) -> None:
    with SqliteStorage(tmp_path / "again.db") as storage:
        storage.save_table("t", b"H", [b"a", b"b"])
        storage.append_turns("t", 1, [b"B"])
        storage.append_turns("t", 2, [b"c"])
        assert storage.load_tables() == [("t", b"HaBc")]


def test_a_game_stored_twice_keeps_the_table_and_its_turns(tmp_path: Path) -> None:
    with SqliteStorage(tmp_path / "twice.db") as storage:
        storage.finish_game("t1", "g", "sushi-go", b"rec", b"sig", PLAYERS, finished_ms=1)
        storage.save_table("t2", b"H", [b"a"])
        with pytest.raises(StorageError, match="already stored"):
            storage.finish_game("t2", "g", "sushi-go", b"rec", b"sig", PLAYERS, finished_ms=2)
        storage.append_turns("t2", 1, [b"b"])
        storage.purge_turns()
        assert storage.load_tables() == [("t2", b"Hab")]


@contextlib.contextmanager
def old_database(path: Path, version: int) -> Iterator[sqlite3.Connection]:
    """A database made by the storage's first `version` migrations, as that version left it; the
    caller fills it inside the one transaction."""
    raw = sqlite3.connect(path, isolation_level=None)
    try:
        raw.execute("BEGIN")
        for step in storage_module.MIGRATIONS[:version]:
            step(raw)
        raw.execute(f"PRAGMA user_version = {version}")
        yield raw
        raw.execute("COMMIT")
    finally:
        raw.close()


def make_v3_database(path: Path, heads: dict[str, bytes], turns: dict[str, list[bytes]]) -> None:
    """A database as version 3 left it: heads, and turn rows keyed by (table_id, n)."""
    with old_database(path, 3) as raw:
        raw.executemany("INSERT INTO tables_in_progress VALUES (?, ?)", list(heads.items()))
        raw.executemany(
            "INSERT INTO table_turns (table_id, n, value) VALUES (?, ?, ?)",
            [(t, n, v) for t, values in turns.items() for n, v in enumerate(values)],
        )


def test_a_version_3_database_is_upgraded_and_its_turns_load(tmp_path: Path) -> None:
    path = tmp_path / "v3.db"
    make_v3_database(path, {"a": b"A", "b": b"B"}, {"a": [b"1", b"2"], "gone": [b"x"]})
    with SqliteStorage(path) as storage:
        assert storage.schema_version == SCHEMA_VERSION
        assert storage.load_tables() == [("a", b"A12"), ("b", b"B")]
        assert storage.retired_turns == 1, "the turns of no table"
        storage.append_turns("a", 2, [b"3"])
        storage.append_turns("b", 0, [b"1"])
        assert storage.load_tables() == [("a", b"A123"), ("b", b"B1")]
        storage.save_table("a", b"N")
        storage.purge_turns()
        assert storage.load_tables() == [("a", b"N"), ("b", b"B1")]
        assert turn_rows(path) == {"b": [0]}


def make_v2_database(path: Path, states: dict[str, bytes]) -> None:
    """A database as version 2 left it: whole states, no table of turns."""
    with old_database(path, 2) as raw:
        raw.executemany("INSERT INTO tables_in_progress VALUES (?, ?)", list(states.items()))


def test_a_version_2_database_is_upgraded_and_its_whole_states_load(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    make_v2_database(path, {"a": b"whole state a", "b": b"whole state b"})
    with SqliteStorage(path) as storage:
        assert storage.schema_version == SCHEMA_VERSION == 14
        assert storage.load_tables() == [("a", b"whole state a"), ("b", b"whole state b")]
        storage.save_table("a", b"H", [b"1"])
        assert storage.load_tables() == [("a", b"H1"), ("b", b"whole state b")]


# --- the hub ----------------------------------------------------------------------------------


def loaded(hub: Hub, storage: SqliteStorage) -> list[dict[str, Any]]:
    """The stored tables, loaded back, as plain data."""
    return [table_state(load(blob, hub, hub.now)) for _, blob in storage.load_tables()]


def started(hub: Hub, clock: Clock, name: str = "saver") -> Peer:
    peer = logged_in(hub, clock, name)
    peer.create(TableSettings(kind="sushi-go", players=3, turn_seconds=60, variants=("soy_sauce",)))
    peer.add_bot("random")
    peer.add_bot("greedy")
    peer.start()
    peer.seed()
    return peer


def game_on(path: Path) -> tuple[SqliteStorage, Hub, Peer, Table]:
    """A hub saving to a new SQLite database at `path`, and a game begun there (`started`)."""
    storage = SqliteStorage(path)
    hub = hub_on(storage)
    peer = started(hub, Clock(hub))
    table = hub.tables[peer.table_id]
    assert isinstance(table, Table)
    return storage, hub, peer, table


def test_each_turn_appends_one_row_and_the_head_is_written_once(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    storage, hub, peer, table = game_on(path)
    rng = random.Random(5)
    head = b""
    for turn in range(1, 15):  # into round 2
        peer.play_turn(rng)
        assert turn_rows(path) == {table.table_id: list(range(turn))}
        stored = heads(path)[table.table_id]
        assert not head or stored == head, "the head is not rewritten while it stays the same"
        head = stored
        assert loaded(hub, storage) == [table_state(table)]
    ended = None
    while ended is None:
        ended = peer.play_turn(rng)
    assert heads(path) == {} and storage.load_tables() == []
    storage.purge_turns()
    assert turn_rows(path) == {}, "a finished game leaves nothing behind"
    check_ended(peer, ended, table.options)
    storage.close()


def test_a_changed_head_is_saved_with_the_turns_it_came_with(tmp_path: Path) -> None:
    path = tmp_path / "head.db"
    storage, hub, peer, table = game_on(path)
    rng = random.Random(6)
    for _ in range(3):
        peer.play_turn(rng)
    before = heads(path)[table.table_id]
    hub.shutdown()  # saved mid-turn: a header of another phase, no new turn
    assert heads(path)[table.table_id] != before
    assert turn_rows(path) == {table.table_id: [0, 1, 2]}
    assert storage.load_tables() == [(table.table_id, dump(table))]
    storage.close()


def test_a_table_restored_from_a_whole_state_goes_on_in_parts(tmp_path: Path) -> None:
    """A version 2 database: the whole state is in the head row. The restored table's first save
    writes it whole again (in parts), so its turns are never doubled, and it restores again."""
    key = Ed25519PrivateKey.generate()
    first = hub_on(SqliteStorage(":memory:"), key)
    clock = Clock(first)
    peer = started(first, clock, "keeper")
    rng = random.Random(7)
    for _ in range(4):
        peer.play_turn(rng)
    table = first.tables[peer.table_id]
    path = tmp_path / "v2.db"
    make_v2_database(path, {table.table_id: dump(table)})

    storage = SqliteStorage(path)
    hub = hub_on(storage, key)
    clock2 = Clock(hub, now=5.0)
    assert hub.restore(clock2.now) == 1
    again = hub.tables[peer.table_id]
    assert isinstance(again, Table)
    assert table_state(again) == table_state(table)
    # Its player is away: the turn runs out and is picked for them (the rest are bots).
    clock2.advance(61)
    assert len(again.steps) == 5
    assert turn_rows(path) == {again.table_id: list(range(5))}
    assert heads(path)[again.table_id] != dump(table), "the head alone, not the whole state"
    assert loaded(hub, storage) == [table_state(again)]

    third = hub_on(storage, key)
    assert third.restore(clock2.now) == 1
    assert table_state(third.tables[again.table_id]) == table_state(again)
    clock2.advance(61)  # a second miss: a bot plays for them, to the end
    assert not again.playing
    storage.purge_turns()
    assert heads(path) == {} and turn_rows(path) == {}
    storage.close()
