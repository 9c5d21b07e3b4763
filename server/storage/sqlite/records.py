"""The SQLite backend's finished games, identities, ratings and reconnect tokens (a part of
`sqlite_storage.SqliteStorage`, which gives it its connection and its write-behind)."""

from __future__ import annotations

import contextlib
import itertools
import logging
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from sushigo.protocol.identity import player_id_for_key
from sushigo.server.lookalike import skeleton
from sushigo.server.storage.contract import (
    Ending,
    GameStore,
    RateFn,
    StorageError,
    TokenEntry,
)
from sushigo.server.storage.shared import SharedReads, check_ratings

log = logging.getLogger("sushigo.server")

_SAVE_TOKEN: Final = (
    "INSERT OR REPLACE INTO tokens (token_hash, table_id, seat, expires_ms) VALUES (?, ?, ?, ?)"
)
_DELETE_TOKEN: Final = "DELETE FROM tokens WHERE token_hash = ?"


class SqlitePart(SharedReads):
    """A part of `SqliteStorage` (its tables in progress, its records, its moderation): what it
    uses of the whole, which supplies these members."""

    path: str
    write_behind: bool
    _keys: itertools.count[int]
    _held_lock: threading.Lock

    def _transaction(self, what: str) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _using(self, what: str) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _hold(self, key: object, write: Any) -> None:
        raise NotImplementedError

    def _fetch(self, what: str, sql: str, *args: Any) -> list[Any]:
        with self._using(what) as conn:
            return conn.execute(sql, args).fetchall()

    def _fetchrow(self, what: str, sql: str, *args: Any) -> Any:
        with self._using(what) as conn:
            return conn.execute(sql, args).fetchone()

    def _hold_writes(self, writes: Callable[[sqlite3.Connection], None]) -> None:
        raise NotImplementedError


class GameTables(NamedTuple):
    """Where a game that ended is stored: its row's table and its results', and the names of the
    columns that differ between a finished game and an aborted one."""

    games: str
    results: str
    when: str
    """When it ended (finished or aborted), Unix milliseconds."""
    extra: str
    """The key that signed a finished game; why an aborted one was."""


FINISHED: Final = GameTables("records", "results", "finished_ms", "server_key")
ABORTED: Final = GameTables("aborted_games", "aborted_results", "aborted_ms", "reason")


class SqliteRecords(SqlitePart, GameStore):
    """What `SqliteStorage` stores besides tables in progress."""

    _turn_rows: dict[str, tuple[int, list[int]]]

    def _retire(self, rows: list[int]) -> None:
        raise NotImplementedError

    # --- finished games ------------------------------------------------------------------------

    def _store_finished(self, game: Ending, finished_ms: int, server_key: bytes | None) -> None:
        """`finish_game`: the signed record and one result row per seat, and the table's
        in-progress state (head and turns) and reconnect tokens deleted, in one transaction.
        With write-behind it is held until `flush` (committed with the writes around it, in
        order), and a game id already stored is logged and skipped there instead."""
        self._store_game(game, FINISHED, finished_ms, server_key)

    def _store_game(self, game: Ending, tables: GameTables, when: int, extra: object) -> None:
        """Store a game in `tables` (nothing written when its id is stored already) and retire
        its table in the same transaction; with write-behind, held until `flush`."""
        table_id, game_id = game.table_id, game.game_id
        row = (game_id, table_id, game.kind, when, game.record, game.signature, extra)
        results = [(game_id, p.seat, p.player_id, p.name, p.score, p.place) for p in game.players]

        def store(conn: sqlite3.Connection) -> bool:
            exists = conn.execute(f"SELECT 1 FROM {tables.games} WHERE game_id = ?", (game_id,))
            if exists.fetchone() is not None:
                return False
            conn.execute(
                f"INSERT INTO {tables.games} (game_id, table_id, kind, {tables.when}, record, "
                f"signature, {tables.extra}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            conn.executemany(
                f"INSERT INTO {tables.results} (game_id, seat, player_id, name, score, place) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                results,
            )
            return True

        with self._held_lock:
            entry = self._turn_rows.pop(table_id, None)

        def settle(stored: bool) -> None:
            """The table's turn rows no longer load once the game is stored; if it was not (a
            game id already stored), they still do, unless a newer save replaced them."""
            if entry is None:
                return
            with self._held_lock:
                if stored:
                    self._retire(entry[1])
                elif table_id not in self._turn_rows:
                    self._turn_rows[table_id] = entry
                else:
                    self._retire(entry[1])

        def retiring(conn: sqlite3.Connection) -> bool:
            if not store(conn):
                return False
            conn.execute("DELETE FROM tables_in_progress WHERE table_id = ?", (table_id,))
            conn.execute("DELETE FROM tokens WHERE table_id = ?", (table_id,))
            return True

        if self.write_behind:

            def held(conn: sqlite3.Connection) -> None:
                stored = retiring(conn)
                settle(stored)
                if not stored:
                    log.error("game %s is already stored; not storing it again", game_id)

            self._hold_writes(held)
            return
        try:
            with self._transaction(f"store game {game_id!r}") as conn:
                stored = retiring(conn)
        except BaseException:
            settle(False)
            raise
        settle(stored)
        if not stored:
            raise StorageError(self.path, f"game {game_id!r} is already stored")

    def fill_record_keys(self, server_key: bytes, game_ids: Sequence[str]) -> None:
        """Store the key that signed these games (`Storage.fill_record_keys`)."""
        with self._transaction("store the records' key") as conn:
            conn.executemany(
                "UPDATE records SET server_key = ? WHERE game_id = ? AND server_key IS NULL",
                [(server_key, game_id) for game_id in game_ids],
            )

    # --- identities and ratings ----------------------------------------------------------------

    def upsert_identity(self, public_key: bytes, name: str, now_ms: int) -> str:
        """Record a key login (new key, or a known key's new name); returns its player id."""
        if len(public_key) != 32:
            raise ValueError(f"an Ed25519 public key is 32 bytes, not {len(public_key)}")
        player_id = player_id_for_key(public_key)
        with self._transaction(f"store identity {player_id}") as conn:
            conn.execute(
                "INSERT INTO identities (player_id, public_key, name, first_seen_ms, last_seen_ms,"
                " name_key) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET "
                "name = excluded.name, last_seen_ms = excluded.last_seen_ms, "
                "name_key = excluded.name_key",
                (player_id, public_key, name, now_ms, now_ms, skeleton(name)),
            )
        return player_id

    def get_rating(self, player_id: str, kind: str) -> tuple[float, float] | None:
        """The player's ``(mu, sigma)`` at game `kind`, or None if never rated at it (use the
        model's defaults). Each game kind has its own ratings."""
        with self._using(f"read rating {player_id}") as conn:
            return _read_rating(conn, player_id, kind)

    def set_ratings(self, ratings: Mapping[str, tuple[float, float]], kind: str) -> None:
        """Store new ``(mu, sigma)`` values at game `kind` for several players in one transaction.

        Every player must have a stored identity (guests are not rated): an unknown id raises
        `StorageError` and no rating changes.
        """
        check_ratings(ratings)
        with self._transaction("store ratings") as conn:
            _write_ratings(conn, ratings, kind)

    def rate_game(
        self, kind: str, player_ids: Sequence[str], rate: RateFn, table_id: str | None = None
    ) -> None:
        """Read the players' ratings at `kind`, hand them to `rate` and store what it returns, in
        one transaction; held until `flush` with write-behind. There, a failure (a player with no
        identity, a bad rating) is logged and leaves the ratings as they were, in a savepoint, so
        the rest of the batch is written all the same."""
        ids = list(player_ids)

        def write(conn: sqlite3.Connection) -> None:
            new = rate([_read_rating(conn, player_id, kind) for player_id in ids])
            ratings = dict(zip(ids, new, strict=True))
            check_ratings(ratings)
            _write_ratings(conn, ratings, kind)

        if not self.write_behind:
            with self._transaction(f"rate a game of {kind}") as conn:
                write(conn)
            return

        def held(conn: sqlite3.Connection) -> None:
            conn.execute("SAVEPOINT rate_game")
            try:
                write(conn)
            except (sqlite3.Error, ValueError) as exc:
                conn.execute("ROLLBACK TO rate_game")
                log.error("ratings of %s at %s not stored: %s", ", ".join(ids), kind, exc)
            conn.execute("RELEASE rate_game")

        self._hold_writes(held)

    # --- reconnect tokens ----------------------------------------------------------------------

    def save_token(self, token_hash: bytes, table_id: str, seat: int, expires_ms: int) -> None:
        """Store a token's SHA-256 hash for a seat, revoking any earlier token of that seat
        (held until `flush` with write-behind)."""
        params = (token_hash, table_id, seat, expires_ms)
        if self.write_behind:
            self._hold(next(self._keys), (_SAVE_TOKEN, params))
            return
        with self._transaction(f"save token for {table_id!r} seat {seat}") as conn:
            conn.execute(_SAVE_TOKEN, params)

    def find_token(self, token_hash: bytes) -> TokenEntry | None:
        """Where the token with this hash leads, or None. Expiry is the caller's to check."""
        with self._using("find token") as conn:
            row = conn.execute(
                "SELECT table_id, seat, expires_ms FROM tokens WHERE token_hash = ?",
                (token_hash,),
            ).fetchone()
        return None if row is None else TokenEntry(*row)

    def rotate_token(self, old_hash: bytes, new_hash: bytes, expires_ms: int) -> TokenEntry | None:
        """Replace a token by a new one for the same seat, atomically.

        Returns the seat's entry under the new token, or None (and changes nothing) if the old
        hash is unknown, e.g. already rotated by whoever used it first.
        """
        with self._transaction("rotate token") as conn:
            row = conn.execute(
                "DELETE FROM tokens WHERE token_hash = ? RETURNING table_id, seat", (old_hash,)
            ).fetchone()
            if row is None:
                return None
            entry = TokenEntry(row[0], row[1], expires_ms)
            conn.execute(
                "INSERT INTO tokens (token_hash, table_id, seat, expires_ms) VALUES (?, ?, ?, ?)",
                (new_hash, entry.table_id, entry.seat, expires_ms),
            )
        return entry

    def delete_token(self, token_hash: bytes) -> None:
        """Forget one token (no error if unknown; held until `flush` with write-behind)."""
        if self.write_behind:
            self._hold(next(self._keys), (_DELETE_TOKEN, (token_hash,)))
            return
        with self._transaction("delete token") as conn:
            conn.execute(_DELETE_TOKEN, (token_hash,))

    def delete_tokens_for(self, table_id: str) -> None:
        """Forget every token of a table."""
        with self._transaction(f"delete tokens of {table_id!r}") as conn:
            conn.execute("DELETE FROM tokens WHERE table_id = ?", (table_id,))

    def delete_expired_tokens(self, now_ms: int) -> int:
        """Forget tokens that expired before `now_ms`; returns how many."""
        with self._transaction("delete expired tokens") as conn:
            return conn.execute("DELETE FROM tokens WHERE expires_ms < ?", (now_ms,)).rowcount


def _read_rating(conn: sqlite3.Connection, player_id: str, kind: str) -> tuple[float, float] | None:
    row = conn.execute(
        "SELECT mu, sigma FROM ratings WHERE kind = ? AND player_id = ?", (kind, player_id)
    ).fetchone()
    return None if row is None else (row[0], row[1])


def _write_ratings(
    conn: sqlite3.Connection, ratings: Mapping[str, tuple[float, float]], kind: str
) -> None:
    conn.executemany(
        "INSERT INTO ratings (kind, player_id, mu, sigma) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (kind, player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma",
        [(kind, player_id, mu, sigma) for player_id, (mu, sigma) in ratings.items()],
    )
