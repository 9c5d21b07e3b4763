"""The cluster's one quick-match queue, a part of `server.cluster.node.Cluster`: the nodes' waiting
tables merged by one node at a time (`match`), and the moves it asks of this node heard
(`on_moves`). The plan is `server.routing.matching`'s; this is its PostgreSQL side.

Every node tries every `MATCH_SECONDS`; a transaction advisory lock lets one in at a time, and
the others' tries cost one statement. It reads the published tables (`quick_tables`) of live
nodes that have waited `quick_patience` with a seat taken and one free, locks their rows (those a
publication is writing are skipped, not waited for), writes down what the moves make of them,
and NOTIFYs each move; the node that holds the players hears it and moves them. A table a move
touched counts as new again (its ``created`` is set to now): it is left alone for
`quick_patience`, while its players move and its node publishes what it holds after, so no
plan is made twice from the same rows. Nothing else is kept: a move its node never hears (the
node died, or its listener was down) changes nothing, and the tables are looked at again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Final

from sushigo.server.routing.matching import MATCH_SECONDS, Move, Waiting, plan
from sushigo.server.storage.contract import StorageError

from .base import Connected, Outage
from .wallclock import WallClock

log = logging.getLogger("sushigo.server")

QUICK: Final = "sushigo_quick"
"""NOTIFY'd with each move of players between quick-match tables (JSON), for the node that holds
them."""
MATCH_KEY: Final = 0x5355_5348_0000_0004
"""The transaction advisory lock of the node that merges the waiting tables (one at a time)."""
QUICK_PATIENCE: Final = 1.0
"""Seconds a quick-match table waits for players of its own node before the cluster merges it
with others (a busy node fills its tables in moments: only a table that does not fill is worth
moving players for)."""


class QuickMatching(Connected):
    """The part of a node that takes its turn merging the cluster's waiting tables."""

    def __init__(self, url: str, *, node: str, lease: float, clock: WallClock | None) -> None:
        super().__init__(url, node=node, lease=lease, clock=clock)
        self.quick_patience = QUICK_PATIENCE
        self.on_moves: Callable[[list[Move]], None] | None = None
        """Called with the moves of this node's players the matcher asked for."""

    def start_matching(self) -> None:
        """Take a turn at merging the waiting tables every `MATCH_SECONDS`, for as long as the
        node runs."""
        self._spawn(self._matching())

    async def _matching(self) -> None:
        outage = Outage("merging the quick-match tables")
        while True:
            await asyncio.sleep(MATCH_SECONDS)
            if len(self.nodes) < 2:
                continue  # a lone node fills its own tables: nothing to merge
            try:
                await self.match()
            except StorageError as exc:  # the next turn tries again
                outage.failed(exc)
                continue
            except Exception:  # a bug in a turn: said, and the next turn goes on
                log.exception("merging the quick-match tables failed")
            outage.worked()

    async def match(self) -> list[Move]:
        """Merge the cluster's waiting quick-match tables, if no other node is at it now: the
        moves asked for (each NOTIFY'd to the node that makes it)."""
        async with self._using("merging the quick-match tables") as conn, conn.transaction():
            if not await conn.fetchval("SELECT pg_try_advisory_xact_lock($1)", MATCH_KEY):
                return []
            rows = await conn.fetch(
                "SELECT q.table_id, q.node, n.address, q.kind, q.players, q.free, n.draining "
                "FROM quick_tables q JOIN cluster_nodes n "
                "ON n.name = q.node AND n.lease_expires > now() + $2::interval "
                "WHERE q.free > 0 AND q.free < q.players AND q.created <= now() - $1::interval "
                "ORDER BY q.table_id FOR UPDATE OF q SKIP LOCKED",
                timedelta(seconds=self.quick_patience),
                # A node that missed two renewals counts as dead (`Cluster.token_owner`):
                # players are not sent to it.
                self._interval / 3,
            )
            # A draining node's tables give their players away, to a new table on the
            # least-loaded node that takes players if no table waits for them elsewhere.
            draining = {row[1] for row in rows if row[6]}
            moves = plan((Waiting(*row[:6]) for row in rows), draining, self._spare)
            if not moves:
                return []
            await self._write_down(conn, rows, moves)
        return moves

    def _spare(self) -> tuple[str, str] | None:
        """The live node that takes players with the fewest tables (as last read), for the
        players of a draining node's table that no table waits for (None: every node drains)."""
        takers = [n for n in self.nodes if not n.draining]
        if not takers:
            return None
        best = min(takers, key=lambda n: (n.tables, n.name))
        return best.name, best.address

    async def _write_down(self, conn: Any, rows: list[Any], moves: list[Move]) -> None:
        """What the moves make of the tables they touch (each counts as new again), and one
        NOTIFY per move, heard once this transaction commits."""
        free = {row[0]: row[5] for row in rows}
        for move in moves:
            free[move.source] += move.count
            if move.table_id in free:
                free[move.table_id] -= move.count
        touched = {m.source for m in moves} | {m.table_id for m in moves if not m.new}
        ids = sorted(touched)
        await conn.execute(
            "UPDATE quick_tables q SET free = t.free, created = now() "
            "FROM unnest($1::text[], $2::int[]) AS t(table_id, free) WHERE q.table_id = t.table_id",
            ids,
            [free[table_id] for table_id in ids],
        )
        await conn.executemany(
            "SELECT pg_notify($1, $2)",
            [(QUICK, json.dumps([*_fields(move)])) for move in moves],
        )
        for move in moves:
            log.info(
                "quick match: %d of table %s (%s) to move to table %s (%s)",
                move.count,
                move.source,
                move.node,
                move.table_id,
                move.to_node,
            )

    def _quick_moved(self, _conn: object, _pid: object, _channel: object, payload: object) -> None:
        """A move the matcher NOTIFY'd: this node's to make, if its players are here."""
        move = _move(payload)
        if move is None:
            log.warning("a quick match's move from another node that cannot be read")
            return
        if move.node == self.node and self.on_moves is not None:
            self.on_moves([move])


_KINDS: Final = (str, str, int, str, str, str, str, int, bool)
"""The type of each of `Move`'s fields, in order."""


def _move(payload: object) -> Move | None:
    """The move a NOTIFY carries (None: not one)."""
    try:
        fields = json.loads(str(payload))
    except ValueError:
        return None
    if not isinstance(fields, list) or len(fields) != len(_KINDS):
        return None
    if not all(type(f) is k for f, k in zip(fields, _KINDS, strict=True)):
        return None
    return Move(*fields)


def _fields(move: Move) -> tuple[object, ...]:
    """A move as the NOTIFY carries it (`Move`'s fields in order)."""
    return (
        move.source,
        move.node,
        move.count,
        move.table_id,
        move.to_node,
        move.address,
        move.kind,
        move.players,
        move.new,
    )
