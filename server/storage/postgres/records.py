"""The PostgreSQL backend's finished games, identities and ratings (a part of
`pg_storage.PgStorage`, which gives it its connection, its thread and its write-behind)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, TypeVar

import asyncpg

from sushigo.protocol.identity import player_id_for_key
from sushigo.server.lookalike import skeleton
from sushigo.server.storage.contract import (
    Ending,
    GameStore,
    RateFn,
    StorageError,
)
from sushigo.server.storage.shared import SharedReads, check_ratings

from .plan import Batched, Touches, retiring
from .schema import reason

log = logging.getLogger("sushigo.server")

T = TypeVar("T")

_UPSERT_RATING = (
    "INSERT INTO ratings (kind, player_id, mu, sigma) VALUES ($1, $2, $3, $4) "
    "ON CONFLICT (kind, player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma"
)


class Skipped(Exception):
    """A held write that cannot be made (logged; the rest of its batch is written)."""


class PgPart(SharedReads):
    """A part of `PgStorage` (its records, its moderation): what it uses of the whole, which
    supplies these members."""

    path: str
    write_behind: bool
    careful: bool
    """The commit under way runs again after PostgreSQL refused one of its finished games: each
    batch of them in a savepoint of its own (see `_store_games`)."""

    def _write(self, write: Any, what: str, key: object = None, touches: Touches = None) -> None:
        raise NotImplementedError

    def _query(self, query: Callable[[Any], Awaitable[T]], what: str) -> T:
        raise NotImplementedError

    def _retire(self, table_id: str) -> None:
        raise NotImplementedError

    def _fetch(self, what: str, sql: str, *args: Any) -> list[Any]:
        async def query(conn: Any) -> list[Any]:
            return list(await conn.fetch(numbered(sql), *args))

        return self._query(query, what)

    def _fetchrow(self, what: str, sql: str, *args: Any) -> Any:
        async def query(conn: Any) -> Any:
            return await conn.fetchrow(numbered(sql), *args)

        return self._query(query, what)


@functools.lru_cache(maxsize=256)
def numbered(sql: str) -> str:
    """`sql` with its ``?`` placeholders numbered as PostgreSQL's: ``$1``, ``$2``, ..."""
    first, *rest = sql.split("?")
    return first + "".join(f"${n}{part}" for n, part in enumerate(rest, 1))


class PgRecords(PgPart, GameStore):
    """What `PgStorage` stores besides tables in progress and tokens."""

    def _unsure(self, what: str, write: Callable[[Any], Awaitable[None]]) -> Any:
        """`write` as a held write that, when PostgreSQL refuses it (a game stored already, a
        rating for no identity), is logged and undone alone, in a savepoint, while the rest of
        its batch is written: held writes are retried until they go through, so one that never
        can must not hold up the others. Without write-behind the refusal is the caller's, as
        a `StorageError`."""

        async def guarded(conn: Any) -> None:
            try:
                async with conn.transaction():  # a savepoint inside the batch
                    await write(conn)
            except (asyncpg.IntegrityConstraintViolationError, asyncpg.DataError, Skipped) as exc:
                if not self.write_behind:
                    raise StorageError(self.path, f"{what}: {reason(exc)}") from None
                log.error("%s: %s; not stored", what, reason(exc))

        return guarded

    # --- finished games -------------------------------------------------------------------------

    def _store_finished(self, game: Ending, finished_ms: int, server_key: bytes | None) -> None:
        """`finish_game`, as one batched statement (`FINISHES`); a game id already stored is
        logged with write-behind."""
        table_id, game_id, kind, record, signature, players = game
        rows = tuple((p.seat, p.player_id, p.name, p.score, p.place) for p in players)
        stored = (game_id, table_id, kind, finished_ms, record, signature, server_key, rows)
        touches = (*retiring(table_id), ("game", game_id))
        # Its tokens are forgotten first, whether or not the game is refused (a game id stored
        # already): held, the refusal comes later, at the commit, when they are long forgotten,
        # and a write then (a token rotated) would land on one storage and not the other.
        self._retire(table_id)
        self._write((FINISHES, stored), f"store game {game_id!r}", touches=touches)

    def fill_record_keys(self, server_key: bytes, game_ids: Sequence[str]) -> None:
        """Store the key that signed these games (`Storage.fill_record_keys`)."""
        self._write(
            (
                "UPDATE records SET server_key = $1 WHERE game_id = ANY($2::text[]) "
                "AND server_key IS NULL",
                (server_key, list(game_ids)),
            ),
            "store the records' key",
        )

    # --- identities and ratings -----------------------------------------------------------------

    def upsert_identity(self, public_key: bytes, name: str, now_ms: int) -> str:
        """Record a key login; its player id (held with write-behind: the id is the key's)."""
        if len(public_key) != 32:
            raise ValueError(f"an Ed25519 public key is 32 bytes, not {len(public_key)}")
        player_id = player_id_for_key(public_key)
        self._write(
            (
                "INSERT INTO identities (player_id, public_key, name, first_seen_ms, "
                "last_seen_ms, name_key) VALUES ($1, $2, $3, $4, $4, $5) ON CONFLICT (player_id) "
                "DO UPDATE SET name = excluded.name, last_seen_ms = excluded.last_seen_ms, "
                "name_key = excluded.name_key",
                (player_id, public_key, name, now_ms, skeleton(name)),
            ),
            f"store identity {player_id}",
            touches=(("player", player_id),),
        )
        return player_id

    def get_rating(self, player_id: str, kind: str) -> tuple[float, float] | None:
        """The player's ``(mu, sigma)`` at game `kind`, or None if never rated at it."""

        async def query(conn: Any) -> tuple[float, float] | None:
            return (await _ratings(conn, kind, [player_id]))[0]

        return self._query(query, f"read rating {player_id}")

    def set_ratings(self, ratings: Mapping[str, tuple[float, float]], kind: str) -> None:
        """Store ratings at game `kind` in one transaction; every player must have an
        identity (else `StorageError`, and no rating changes)."""
        check_ratings(ratings)
        rows = [(kind, player_id, mu, sigma) for player_id, (mu, sigma) in ratings.items()]

        async def store(conn: Any) -> None:
            await conn.executemany(_UPSERT_RATING, rows)

        what = "store ratings"
        touches = tuple(("player", player_id) for player_id in ratings)
        self._write((self._unsure(what, store), None), what, touches=touches)

    def rate_game(
        self, kind: str, player_ids: Sequence[str], rate: RateFn, table_id: str | None = None
    ) -> None:
        """Read the players' ratings at `kind`, hand them to `rate`, store what it returns: in
        one transaction, after every write before it of these players (held with
        write-behind)."""
        ids = list(player_ids)

        async def store(conn: Any) -> None:
            old = await _ratings(conn, kind, ids, lock=True)
            new = dict(zip(ids, rate(old), strict=True))
            try:
                check_ratings(new)
            except ValueError as exc:
                raise Skipped(str(exc)) from None
            await conn.executemany(
                _UPSERT_RATING, [(kind, p, mu, sigma) for p, (mu, sigma) in new.items()]
            )

        what = f"ratings of {', '.join(ids)} at {kind}"
        touches = tuple(("player", player_id) for player_id in ids)
        if table_id is not None:  # a cluster's node rates a game only if it holds its table
            touches += (("lease", table_id),)
        self._write((self._unsure(what, store), None), what, touches=touches)


_FINISH: Final = (
    # Every game of a batch in one statement: when a crowd of games ends at once (every table
    # started together), a round trip per game (and a savepoint each) held every other table's
    # frames up behind them for half a second. A game stored already changes nothing (it is not
    # in `stored`, and every other part joins on `stored`); the caller logs it.
    "WITH g AS (SELECT * FROM unnest("
    "$1::text[], $2::text[], $3::text[], $4::bigint[], $5::bytea[], $6::bytea[], $7::bytea[]"
    ") AS g (game_id, table_id, kind, finished_ms, record, signature, server_key)), "
    "stored AS (INSERT INTO records "
    "(game_id, table_id, kind, finished_ms, record, signature, server_key) "
    "SELECT * FROM g ON CONFLICT (game_id) DO NOTHING RETURNING game_id, table_id), "
    "seats AS (INSERT INTO results (game_id, seat, player_id, name, score, place) "
    "SELECT r.game_id, r.seat, r.player_id, r.name, r.score, r.place FROM unnest("
    "$8::text[], $9::integer[], $10::text[], $11::text[], $12::integer[], $13::integer[]"
    ") AS r (game_id, seat, player_id, name, score, place) JOIN stored USING (game_id)), "
    "heads AS (DELETE FROM tables_in_progress t USING stored s WHERE t.table_id = s.table_id), "
    "turns AS (DELETE FROM table_turns t USING stored s WHERE t.table_id = s.table_id), "
    "tokens AS (DELETE FROM tokens t USING stored s WHERE t.table_id = s.table_id) "
    "SELECT game_id FROM stored"
)


async def _store_games(storage: Any, conn: Any, games: list[tuple[Any, ...]]) -> None:
    """Store finished games, each retiring its table, in one statement. A game stored already
    (or twice in the batch) is not stored again: logged with write-behind, else a
    `StorageError`. A batch PostgreSQL refuses (it never should: the values are checked before)
    rolls the commit back, which `PgStorage` then runs again `careful`: each batch in a savepoint,
    tried again game by game when refused, so only the bad game is left out. Only then, because
    a savepoint costs two round trips in every commit that ends games."""
    unique: dict[str, tuple[Any, ...]] = {}
    twice: list[str] = []
    for game in games:
        if game[0] in unique:
            twice.append(game[0])
        else:
            unique[game[0]] = game
    chosen = list(unique.values())
    columns = [list(column) for column in zip(*(game[:7] for game in chosen), strict=True)]
    seats = [(game[0], *row) for game in chosen for row in game[7]]
    seat_columns = [list(c) for c in zip(*seats, strict=True)] if seats else [[]] * 6
    if not storage.careful:  # refused: the commit is rolled back, and runs again carefully
        stored = {row[0] for row in await conn.fetch(_FINISH, *columns, *seat_columns)}
    else:
        try:
            async with conn.transaction():  # a savepoint
                stored = {row[0] for row in await conn.fetch(_FINISH, *columns, *seat_columns)}
        except (asyncpg.IntegrityConstraintViolationError, asyncpg.DataError) as exc:
            if len(chosen) > 1:
                for game in chosen:
                    await _store_games(storage, conn, [game])
                return
            _refused(storage, f"store game {chosen[0][0]!r}", reason(exc))
            return
    for game_id in [*twice, *(g for g in unique if g not in stored)]:
        _refused(storage, f"store game {game_id!r}", f"game {game_id} is already stored")


def _refused(storage: Any, what: str, why: str) -> None:
    """A held write PostgreSQL will never take: logged (the rest of its batch is written), or
    without write-behind the caller's `StorageError`."""
    if not storage.write_behind:
        raise StorageError(storage.path, f"{what}: {why}")
    log.error("%s: %s; not stored", what, why)


FINISHES: Final = Batched(_store_games)
"""The held write of a finished game (`PgRecords.finish_game`)."""


async def _ratings(
    conn: Any, kind: str, player_ids: Sequence[str], *, lock: bool = False
) -> list[tuple[float, float] | None]:
    """The players' ratings at `kind`, in order (None: never rated). With `lock`, the rows stay
    locked until the transaction ends (two servers rating one player cannot lose an update)."""
    rows = await conn.fetch(
        "SELECT player_id, mu, sigma FROM ratings WHERE kind = $1 AND player_id = ANY($2::text[])"
        + (" FOR UPDATE" if lock else ""),
        kind,
        list(player_ids),
    )
    found = {p: (mu, sigma) for p, mu, sigma in rows}
    return [found.get(p) for p in player_ids]
