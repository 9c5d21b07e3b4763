"""The SQLite backend's tables in progress (a part of `sqlite_storage.SqliteStorage`, which gives
it its connection and its write-behind).

Tables in progress are saved as a head (`save_table`: the table's header, rewritten only when it
changes) followed by its turns, one row each, appended as they are played (`append_turns`): a
turn writes only its own bytes, not the whole game again. `load_tables` gives back the head and
the turns joined, in order, so a state saved whole (schema version 2 and earlier) and one saved in
parts read the same. Turn rows are only ever appended, in the order of their ids, with no index:
each whole save starts a new generation of the table's rows (the head names it, and only rows of
that generation load), and rows that no longer load (a finished game's, a replaced save's) are
deleted in batches of `PURGE_ROWS` (`purge_turns`), not one game at a time. The games played side
by side have their rows on the same pages, so a turn costs a fraction of a page of write-ahead log
where an index entry and a delete per row cost a page or two each.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, Final

from sushigo.server.storage.contract import assemble_tables

from .records import SqlitePart

_SAVE_TABLE: Final = (
    "INSERT INTO tables_in_progress (table_id, state, generation) VALUES (?, ?, ?) "
    "ON CONFLICT (table_id) DO UPDATE SET state = excluded.state, generation = excluded.generation"
)
_APPEND_TURN: Final = (
    "INSERT INTO table_turns (id, table_id, generation, n, value) VALUES (?, ?, ?, ?, ?)"
)
_DELETE_TURN: Final = "DELETE FROM table_turns WHERE id = ?"
PURGE_ROWS: Final = 4096
"""Turn rows no table uses any more (a finished game's, a replaced save's) wait until this many,
then go in one batch (see `Storage.purge_turns`)."""


class SqliteTables(SqlitePart):
    """What `SqliteStorage` keeps of the tables in play: their heads and turn rows."""

    _conn: sqlite3.Connection
    _held: dict[object, Any]
    _turn_rows: dict[str, tuple[int, list[int]]]
    _dead_rows: list[int]
    _next_row: int
    _next_generation: int

    def _scan_turns(self) -> None:
        """Learn which turn rows belong to which head (`_turn_rows`), and which to purge."""
        conn = self._conn
        heads = dict(conn.execute("SELECT table_id, generation FROM tables_in_progress"))
        live: dict[str, tuple[int, list[int]]] = {t: (g, []) for t, g in heads.items()}
        top_row, top_generation = 0, max(heads.values(), default=0)
        for row, table_id, generation in conn.execute(
            "SELECT id, table_id, generation FROM table_turns ORDER BY id"
        ):
            top_row, top_generation = row, max(top_generation, generation)
            entry = live.get(table_id)
            if entry is not None and entry[0] == generation:
                entry[1].append(row)
            else:
                self._dead_rows.append(row)
        self._turn_rows = live
        self._next_row = top_row + 1
        self._next_generation = top_generation + 1

    def save_table(self, table_id: str, state: bytes, turns: Sequence[bytes] = ()) -> None:
        """Store (insert or replace) a table's whole resumable state: its head `state`, then
        `turns` (numbered from 0), replacing any turns saved before. Called when a game's first
        save comes (or its turns were never stored); later turns go through `append_turns`.

        The save starts a new generation of the table's turns: the rows of the earlier ones no
        longer load, and go with the next purge (see `purge_turns`). With write-behind it is held
        until `flush` (only the newest whole state of a table is written, after everything held
        before it).
        """
        with self._held_lock:
            generation = self._next_generation
            self._next_generation += 1
            ids = self._new_rows(len(turns))
        rows = [
            (row, table_id, generation, n, value)
            for row, (n, value) in zip(ids, enumerate(turns), strict=True)
        ]

        def save(conn: sqlite3.Connection) -> None:
            conn.execute(_SAVE_TABLE, (table_id, state, generation))
            conn.executemany(_APPEND_TURN, rows)

        if self.write_behind:
            self._hold(table_id, (save, None))
        else:
            with self._transaction(f"save table {table_id!r}") as conn:
                save(conn)
        with self._held_lock:
            old = self._turn_rows.get(table_id)
            self._turn_rows[table_id] = (generation, ids)
            if old is not None:
                self._retire(old[1])

    def append_turns(
        self, table_id: str, first: int, turns: Sequence[bytes], state: bytes | None = None
    ) -> None:
        """Append turns numbered `first`, `first + 1`, ... to a table saved by `save_table`, and
        replace its head by `state` when given (the turns already saved stay); called at every
        turn boundary, so it writes only that turn's bytes. A turn appended again replaces the
        one of the same number.

        A single turn without a new head is one statement, which SQLite's autocommit makes a
        transaction of its own (the server's hottest write). With write-behind it is held until
        `flush`, in order with every other write.
        """
        if first < 0:
            raise ValueError(f"turns are numbered from 0, not {first}")
        with self._held_lock:
            entry = self._turn_rows.get(table_id)
            if entry is None:  # turns of no table so far: they load once a head of theirs comes
                generation = self._next_generation
                self._next_generation += 1
                entry = self._turn_rows[table_id] = (generation, [])
            generation, ids = entry
            new = self._new_rows(len(turns))
            ids += new  # before the write: a failed one leaves only ids of no row behind
        if state is None and len(turns) == 1:
            params = (new[0], table_id, generation, first, turns[0])
            if self.write_behind:
                self._hold(next(self._keys), (_APPEND_TURN, params))
                return
            with self._using(f"save table {table_id!r}") as conn:
                conn.execute(_APPEND_TURN, params)
            return
        rows = [
            (row, table_id, generation, first + i, v)
            for i, (row, v) in enumerate(zip(new, turns, strict=True))
        ]

        def append(conn: sqlite3.Connection) -> None:
            if state is not None:
                conn.execute(_SAVE_TABLE, (table_id, state, generation))
            conn.executemany(_APPEND_TURN, rows)

        if self.write_behind:
            self._hold(next(self._keys), (append, None))
            return
        with self._transaction(f"save table {table_id!r}") as conn:
            append(conn)

    def delete_table(self, table_id: str) -> None:
        """Forget a table in progress (abandoned, not finished), its turns and its reconnect
        tokens (held until `flush` with write-behind)."""

        def delete(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM tables_in_progress WHERE table_id = ?", (table_id,))
            conn.execute("DELETE FROM tokens WHERE table_id = ?", (table_id,))

        if self.write_behind:
            self._hold_writes(delete)
        else:
            with self._transaction(f"delete table {table_id!r}") as conn:
                delete(conn)
        with self._held_lock:
            entry = self._turn_rows.pop(table_id, None)
            if entry is not None:
                self._retire(entry[1])

    def _new_rows(self, count: int) -> list[int]:
        """Ids for `count` new turn rows (the caller holds `_held_lock`)."""
        first = self._next_row
        self._next_row += count
        return list(range(first, first + count))

    def _retire(self, rows: list[int]) -> None:
        """Turn rows that no longer load (the caller holds `_held_lock`): purge them once there
        are `PURGE_ROWS` of them."""
        self._dead_rows += rows
        if len(self._dead_rows) >= PURGE_ROWS:
            self._purge_held()

    def _purge_held(self) -> None:
        """Delete every retired turn row, after everything written or held so far (the caller
        holds `_held_lock`). In id order, which is the order they were written: the rows of the
        games that ran side by side share pages, which are rewritten once, or freed."""
        dead = sorted(self._dead_rows)
        self._dead_rows = []
        if not dead:
            return
        params = [(row,) for row in dead]

        def purge(conn: sqlite3.Connection) -> None:
            conn.executemany(_DELETE_TURN, params)

        self._held[next(self._keys)] = (purge, None)

    @property
    def retired_turns(self) -> int:
        """Turn rows that no longer load, waiting to be purged."""
        return len(self._dead_rows)

    def purge_turns(self) -> None:
        """Delete now the turn rows that no longer load (a finished game's, a replaced save's),
        which otherwise wait until there are `PURGE_ROWS` of them (held until `flush` with
        write-behind). They never load either way: this only frees their space."""
        with self._held_lock:
            self._purge_held()
        if not self.write_behind:
            with self._transaction("purge turns"):
                pass  # the transaction writes what is held first

    def load_tables(self) -> list[tuple[str, bytes]]:
        """Every table in progress as ``(table_id, state)``, ordered by table id: the head saved
        by `save_table` followed by the table's turns in order (up to the first missing number,
        which a correct server never leaves; it is logged). Only the turns of the head's
        generation load (of a turn appended twice, the later one): turns of no table, of an
        earlier game or of a replaced save are ignored."""
        with self._using("load tables") as conn:
            heads = conn.execute(
                "SELECT table_id, state FROM tables_in_progress ORDER BY table_id"
            ).fetchall()
            rows = conn.execute(
                "SELECT t.table_id, t.n, t.value FROM table_turns t JOIN tables_in_progress h "
                "ON h.table_id = t.table_id AND h.generation = t.generation "
                "ORDER BY t.table_id, t.n, t.id"
            ).fetchall()
        return assemble_tables(heads, rows)
