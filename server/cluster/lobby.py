"""What a cluster's node shares with the other nodes' lobbies, a part of
`server.cluster.node.Cluster`: its quick-match tables that wait for players (`publish`; the
cluster's matcher merges them: `server.cluster.matching`), its tables as the lobby lists them
(`listed`), and lobby chat (`say`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any, Final

from .base import Connected, Spaced
from .wallclock import WallClock

log = logging.getLogger("sushigo.server")

CHAT: Final = "sushigo_chat"
"""NOTIFY'd with each lobby chat message, for the other nodes' lobbies."""
LISTED_MAX: Final = 1000
"""Other nodes' tables one LIST_TABLES reads at most (a page is 100 at most)."""
PUBLISH_SPACING: Final = 0.25
"""Seconds at least between two publications of a node's tables (`publish_soon`)."""
Quick = list[tuple[str, str, int, int]]
Listed = list[tuple[str, str, str, bytes]]


class LobbyShare(Connected):
    """The part of a node that shares its lobby with the other nodes'."""

    def __init__(self, url: str, *, node: str, lease: float, clock: WallClock | None) -> None:
        super().__init__(url, node=node, lease=lease, clock=clock)
        self.on_chat: Callable[[str, str, str], None] | None = None
        """Called with lobby chat said on another node (player id, name, text)."""
        self._publishing = asyncio.Lock()
        self._publications = Spaced(
            self._spawn, self._publish_wanted, PUBLISH_SPACING, "publishing quick-match tables"
        )

    def publish_soon(self, quick: Callable[[], Quick], listed: Callable[[], Listed]) -> None:
        """Publish this node's tables (`publish`, of `quick()` and `listed()`) soon: at once if
        no publication is under way, else right after it, as they are then. However many ask
        meanwhile (a busy node opens and fills tens of tables a second), one publication at a
        time is made, of the tables as they are when it is made, and at most one every
        `PUBLISH_SPACING` (`Spaced`): a queue of publications, each of the tables as they were
        when it was asked for, would fall behind, and other nodes would send players to tables
        long filled or closed; and a renewal waiting behind it would let the node's leases run
        out. A failed one is logged: the next one (a renewal's at the latest) says it."""
        self._publications.want((quick, listed))

    async def _publish_wanted(
        self, wanted: tuple[Callable[[], Quick], Callable[[], Listed]]
    ) -> None:
        await self._publish(*wanted)

    async def publish(
        self,
        quick: list[tuple[str, str, int, int]],
        listed: list[tuple[str, str, str, bytes]] | None = None,
    ) -> None:
        """Say which quick-match tables of this node take players: (id, kind, players, free
        seats), every one (those it said before and not now are gone; a table said again keeps
        its age); and, given `listed`, every table of this node as the lobby lists it (id,
        kind, status, its TABLE_INFO packed: `server.routing.listing`), likewise."""
        await self._publish(lambda: quick, None if listed is None else lambda: listed)

    async def _publish(
        self, quick_now: Callable[[], Quick], listed_now: Callable[[], Listed] | None
    ) -> None:
        """`publish` what `quick_now()` and `listed_now()` say once the connection is ours (so
        what it writes is the tables as they are, not as they were when it was asked for)."""
        # One publication at a time (a renewal's and a new table's would lock the same rows in
        # two orders).
        async with (
            self._publishing,
            self._upkeep("publishing quick-match tables") as conn,
            conn.transaction(),
        ):
            quick = quick_now()
            listed = None if listed_now is None else listed_now()
            columns = [list(c) for c in zip(*quick, strict=True)]
            ids, kinds, sizes, free = columns or [[], [], [], []]
            await conn.execute(
                "DELETE FROM quick_tables WHERE node = $1 AND NOT (table_id = ANY($2::text[]))",
                self.node,
                ids,
            )
            if quick:
                await conn.execute(
                    "INSERT INTO quick_tables (table_id, node, kind, players, free) "
                    "SELECT t, $1, k, p, f FROM unnest($2::text[], $3::text[], $4::int[], "
                    "$5::int[]) AS q(t, k, p, f) "
                    "ON CONFLICT (table_id) DO UPDATE SET free = EXCLUDED.free "
                    "WHERE quick_tables.free <> EXCLUDED.free",
                    self.node,
                    ids,
                    kinds,
                    sizes,
                    free,
                )
            if listed is not None:
                await self._list(conn, listed)

    async def _list(self, conn: Any, listed: list[tuple[str, str, str, bytes]]) -> None:
        ids = [table[0] for table in listed]
        await conn.execute(
            "DELETE FROM listed_tables WHERE node = $1 AND NOT (table_id = ANY($2::text[]))",
            self.node,
            ids,
        )
        if listed:  # a table handed here from another node is this node's now
            await conn.execute(
                "INSERT INTO listed_tables (table_id, node, kind, status, info) "
                "SELECT t, $1, k, s, i FROM unnest($2::text[], $3::text[], $4::text[], "
                "$5::bytea[]) AS l(t, k, s, i) "
                "ON CONFLICT (table_id) DO UPDATE SET node = EXCLUDED.node, "
                "status = EXCLUDED.status, info = EXCLUDED.info "
                # A row as it was is not written again (each publication lists every table of
                # the node, most of them unchanged: each row rewritten was WAL for nothing).
                "WHERE (listed_tables.node, listed_tables.status, listed_tables.info) "
                "IS DISTINCT FROM (EXCLUDED.node, EXCLUDED.status, EXCLUDED.info)",
                self.node,
                *[list(column) for column in zip(*listed, strict=True)],
            )

    async def listed(self, kind: str | None, status: str | None) -> list[bytes]:
        """The tables of the other live nodes as they last listed them (`publish`), of `kind`
        and `status` (None: any), the newest first, `LISTED_MAX` at most."""
        async with self._using("reading the table list") as conn:
            rows = await conn.fetch(
                "SELECT l.info FROM listed_tables l JOIN cluster_nodes n "
                "ON n.name = l.node AND n.lease_expires > now() WHERE l.node <> $1 "
                "AND ($2::text IS NULL OR l.kind = $2) AND ($3::text IS NULL OR l.status = $3) "
                "ORDER BY l.opened DESC LIMIT $4",
                self.node,
                kind,
                status,
                LISTED_MAX,
            )
        return [bytes(row[0]) for row in rows]

    async def say(self, said: list[tuple[str, str, str]]) -> None:
        """Pass lobby chat said here on to the other nodes: one NOTIFY each (a payload is a few
        hundred bytes, far under PostgreSQL's 8,000), heard by their listeners."""
        async with self._using("passing chat on") as conn:
            await conn.executemany(
                "SELECT pg_notify($1, $2)",
                [
                    (CHAT, json.dumps({"node": self.node, "id": p, "name": n, "text": t}))
                    for p, n, t in said
                ],
            )

    def _chatted(self, _conn: object, _pid: object, _channel: object, payload: object) -> None:
        if self.on_chat is None:
            return
        try:
            said = json.loads(str(payload))
            node, player_id, name, text = said["node"], said["id"], said["name"], said["text"]
        except (ValueError, KeyError, TypeError):
            log.warning("a lobby chat message from another node that cannot be read")
            return
        if node != self.node and all(isinstance(v, str) for v in (player_id, name, text)):
            self.on_chat(player_id, name, text)
