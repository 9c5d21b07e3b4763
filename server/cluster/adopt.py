"""Taking tables over, a part of a cluster's node (`server.cluster.node.Cluster`): the tables of a
node that died (its lease ended) and those a stopping node handed over (`hand_off`).

Of nodes taking a table at once, one conditional update of its lease lets one in; a resume for
a table not yet taken up is held a moment rather than refused (`take_up`), and the resumes of a
dead node's thousands of players share their queries (`ADOPT_GATHER`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Coroutine, Mapping
from typing import Any, Final

from sushigo.server.storage.postgres.tokens import read_tables

from .base import IN_ORDER, TAKEN, Connected
from .wallclock import WallClock

log = logging.getLogger("sushigo.server")

HANDOFF: Final = "sushigo_handoff"
"""NOTIFY'd when a node hands its tables over: the nodes take them up at once."""
HANDOFF_SECONDS: Final = 3.0
"""How long a stopping node waits for its tables' hand-off before it goes without (their leases
end, and the other nodes take them over then)."""
HOLD_SECONDS: Final = 4.0
"""How long a resume for a table not yet taken up here waits for it (a dead node's lease running
out, or this node restoring it) before it is told to try again: under the client's 10 s."""
HOLD_POLL: Final = 0.5
"""How often a held resume asks again."""
ADOPT_GATHER: Final = 0.05
"""Seconds a resume's take-over of one table waits for others to share its query: when a node
dies, thousands of its players knock at once, and one query each would queue them all."""


class Adoption(Connected):
    """The part of a node that takes tables over."""

    def __init__(self, url: str, *, node: str, lease: float, clock: WallClock | None) -> None:
        super().__init__(url, node=node, lease=lease, clock=clock)
        self.on_handoff: Callable[[], Coroutine[Any, Any, object]] | None = None
        """Called when a node handed tables over (some may be this node's to take up)."""
        self._taking: dict[str, float] = {}
        """Tables taken over and not yet in play here (being loaded and restored, in slices):
        until when each counts as held, so a take-over meanwhile does not take it twice."""
        self._wanted: set[str] = set()
        self._dropped: dict[str, int] = {}
        """Tables this node dropped when its lease lapsed, each with its storage's `mark` then:
        not taken up again here until their writes made before are durable (`dropped`)."""
        self._gathered: asyncio.Future[dict[str, bytes]] | None = None
        """The take-over of the tables `_wanted` by resumes, gathered for `ADOPT_GATHER`."""

    def dropped(self, table_ids: Collection[str], mark: int) -> None:
        """This node dropped these tables when its lease lapsed, its storage's writes counted
        `mark` then. Those writes still land (the lease names this node until another takes
        it), so it takes none of them up again until they are durable: taken up from a state
        its own late writes then changed, a table would be played on from the wrong step."""
        for table_id in table_ids:
            self._dropped[table_id] = mark

    def _held_back(self) -> list[str]:
        """The dropped tables whose writes are not all durable yet (`dropped`), and the tables
        whose game ended (or that closed) here while that write is not durable yet: their lease
        still names this node and their state is still saved, so they would look like tables
        handed here, and be restored and played again from a step before their end: a game
        nobody is at any more, its players' tokens leading there."""
        storage = self.storage
        if storage is None:
            return []
        if self._dropped:
            durable = -1 if storage.failing else storage.durable
            self._dropped = {t: mark for t, mark in self._dropped.items() if mark > durable}
        return [*self._dropped, *storage.retiring_tables()]

    def _handed(self, *_: object) -> None:
        if self.on_handoff is not None:
            self._spawn(self.on_handoff())

    async def adopt(
        self, held: Collection[str], table_ids: list[str] | None = None
    ) -> list[tuple[str, bytes]]:
        """Take up the tables among `table_ids` (None: every one) that this node does not hold
        (`held`) and should: those whose lease has ended (their node died: one conditional
        update decides, so of nodes doing this at once each table goes to one) and those
        handed to it (`hand_off`). Their saved states, and their seats' tokens read into the
        storage. Asked for by id (a resume), the ids asked for in the same moment share one
        query."""
        if table_ids is None:
            return await self._adopt(held, None)
        return await self._want(held, table_ids)

    async def _want(self, held: Collection[str], table_ids: list[str]) -> list[tuple[str, bytes]]:
        """`adopt` by id, gathered with the others asked for in the same moment; `held` (the
        node's tables, live) is read once, when the gathered query is made."""
        self._wanted.update(table_ids)
        if self._gathered is None:
            self._gathered = asyncio.get_running_loop().create_future()
            task = asyncio.get_running_loop().create_task(self._gather(held))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        tables = await asyncio.shield(self._gathered)
        return [(table_id, tables[table_id]) for table_id in table_ids if table_id in tables]

    async def take_up(self, tables: Mapping[str, object], table_id: str) -> list[tuple[str, bytes]]:
        """`adopt` one table for a resume (`server.routing.redirect.resume_elsewhere`). Until its
        dead node's lease ends, or while this node restores it, the resume is held (a few seconds,
        well within the client's patience) rather than refused: a refused player knocks again,
        and thousands knocking at once swamp the node that has their tables to take up."""
        loop = asyncio.get_running_loop()
        until = loop.time() + HOLD_SECONDS
        while table_id not in tables:
            adopted = await self._want(tables, [table_id])
            if adopted or loop.time() >= until:
                return adopted
            # The lease ends by the database's clock, unannounced: ask again in a moment.
            await asyncio.sleep(HOLD_POLL)
        return []

    async def _gather(self, held: Collection[str]) -> None:
        await asyncio.sleep(ADOPT_GATHER)
        gathered, self._gathered = self._gathered, None
        wanted, self._wanted = sorted(self._wanted), set()
        assert gathered is not None
        try:
            gathered.set_result(dict(await self._adopt(held, wanted)))
        except BaseException as exc:  # each resume waiting for it hears it
            gathered.set_exception(exc)
            gathered.exception()  # retrieved: nobody may be waiting any more
            if not isinstance(exc, Exception):
                raise

    async def _adopt(
        self, held: Collection[str], table_ids: list[str] | None
    ) -> list[tuple[str, bytes]]:
        now = asyncio.get_running_loop().time()
        playing = set(held)
        self._taking = {
            t: until for t, until in self._taking.items() if until > now and t not in playing
        }
        async with self._using("taking over tables") as conn:
            if table_ids is not None:
                # Saved and never leased (its node died as it made it): asked for, it is ours.
                await conn.execute(
                    "INSERT INTO table_leases (table_id, node, lease_expires) "
                    "SELECT table_id, $1, now() - interval '1 second' FROM tables_in_progress "
                    "WHERE table_id = ANY($2::text[]) ON CONFLICT (table_id) DO NOTHING",
                    self.node,
                    table_ids,
                )
            rows = await conn.fetch(
                "UPDATE table_leases SET node = $1, lease_expires = now() + $2::interval "
                f"WHERE table_id IN ({TAKEN} (lease_expires < now() OR node = $1) "
                "AND NOT (table_id = ANY($3::text[])) "
                f"AND ($4::text[] IS NULL OR table_id = ANY($4::text[])) {IN_ORDER}) "
                "RETURNING table_id",
                self.node,
                self._interval,
                [*held, *self._taking, *self._held_back()],
                table_ids,
            )
        # Not those this node opened while the update waited for their leases (`held` is the
        # node's tables, live): its own, and in play here. Loading their states would cost a
        # busy node a read of every table it opened in that time, at every renewal.
        taken = [row[0] for row in rows if row[0] not in held]
        if not taken or self.storage is None:
            return []
        until = now + self.lease
        self._taking.update((table_id, until) for table_id in taken)
        # Read on this pool's connection, not the storage's: the storage's commits would wait
        # behind the read of hundreds of tables, and every table's frames behind them.
        async with self._using("loading the tables taken over") as conn:
            rows = await read_tables(conn, taken)
        tables = self.storage.tables_read(rows)
        log.info("took up %d tables", len(tables))
        return tables

    async def hand_off(self, table_ids: list[str]) -> dict[str, str]:
        """Hand these tables (saved and durable) to the other live nodes, each to the one with
        the fewest tables at the time; where each went (its new node's address). Each lease
        moves only if it is still this node's. Empty when this node is alone. `TimeoutError`
        after `HANDOFF_SECONDS`: a stopping node must be out within seconds."""
        return await self.bounded(self._hand_off(table_ids), HANDOFF_SECONDS)

    async def _hand_off(self, table_ids: list[str]) -> dict[str, str]:
        async with self._upkeep("handing tables over") as conn:
            await self._read_nodes(conn)
            others = [n for n in self.nodes if n.name != self.node]
            if not others or not table_ids:
                return {}
            load = {n.name: n.tables for n in others}
            address = {n.name: n.address for n in others}
            plan: dict[str, str] = {}
            for table_id in table_ids:
                target = min(load, key=lambda name: (load[name], name))
                plan[table_id] = target
                load[target] += 1
            rows = await conn.fetch(
                "UPDATE table_leases l SET node = p.node, lease_expires = now() + $3::interval "
                "FROM unnest($1::text[], $2::text[]) AS p(table_id, node) "
                "WHERE l.table_id = p.table_id AND l.node = $4 AND l.table_id IN "
                f"({TAKEN} table_id = ANY($1::text[]) AND node = $4 {IN_ORDER}) "
                "RETURNING l.table_id, l.node",
                list(plan),
                list(plan.values()),
                self._interval,
                self.node,
            )
            await conn.execute(f"NOTIFY {HANDOFF}")
        log.info("handed %d tables to %s", len(rows), ", ".join(sorted(set(plan.values()))))
        return {table_id: address[node] for table_id, node in rows}
