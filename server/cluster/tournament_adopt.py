"""Taking tournaments over, a part of a cluster's node (`server.cluster.node.Cluster`): those of a
node that died or stopped (its lease ended), from the database's `tournaments`, where each one's row
names the node that runs it (`server.storage.postgres.tournaments`). One conditional update moves a
row to this node, so of nodes doing it at once, each tournament goes to one; the same transaction
moves its listing (`listed_tournaments`), so the other nodes send its players here. A node that was
away past its lease learns at its next renewal which of its tournaments were taken
(`tournaments_moved`) and lets them go (`server.routing.spread.let_go`)."""

from __future__ import annotations

import asyncio
import math

from .base import Connected


class TournamentAdoption(Connected):
    """The part of a node that takes tournaments over."""

    held_until = math.inf
    """Until when (the event loop's clock) this node's lease surely holds: a lease after its
    last renewal began (set by the renewing loop, `server.cli`). Past it, the node may have
    been away past its lease, its tournaments taken: its desk seats no game until the next
    renewal has told it which (`tournaments_moved`)."""

    def fresh(self) -> bool:
        """This node's lease surely holds now (see `held_until`)."""
        return asyncio.get_running_loop().time() < self.held_until

    async def take_tournaments(self) -> list[tuple[str, bytes]]:
        """Take over the tournaments whose node's lease has ended; each one's stored state, in
        the order they were made. (A node restarted under its name before its lease ended took
        its own back at its start: `Storage.load_tournaments`.)"""
        async with self._using("taking tournaments over") as conn, conn.transaction():
            rows = await conn.fetch(
                "UPDATE tournaments t SET node = $1 WHERE t.node <> $1 AND NOT EXISTS "
                "(SELECT 1 FROM cluster_nodes n WHERE n.name = t.node AND n.lease_expires > now()) "
                "RETURNING t.name, t.state, t.made",
                self.node,
            )
            names = [row[0] for row in rows]
            if names:
                await conn.execute(
                    "UPDATE listed_tournaments SET node = $1 WHERE name = ANY($2::text[])",
                    self.node,
                    names,
                )
        return [(str(row[0]), bytes(row[1])) for row in sorted(rows, key=lambda row: row[2])]

    async def tournaments_moved(self, names: list[str]) -> list[str]:
        """Which of `names` (tournaments this node runs) another node runs now: it was away past
        its lease (paused, cut off) and they were taken over (`take_tournaments`)."""
        if not names:
            return []
        # On the node's own connection, as the renewal it is part of: cut off with it when the
        # database does not answer (`bounded`).
        async with self._upkeep("checking our tournaments") as conn:
            rows = await conn.fetch(
                "SELECT name FROM tournaments WHERE name = ANY($1::text[]) AND node <> $2",
                names,
                self.node,
            )
        return [str(row[0]) for row in rows]
