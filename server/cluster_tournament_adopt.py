"""Taking tournaments over, a part of a cluster's node (`server.cluster.Cluster`): those of a node
that died or stopped (its lease ended), from the database's `tournaments`, where each one's row
names the node that runs it (`server.pg_tournaments`). One conditional update moves a row to
this node, so of nodes doing it at once, each tournament goes to one; the same transaction moves
its listing (`listed_tournaments`), so the other nodes send its players here."""

from __future__ import annotations

from .cluster_base import Connected


class TournamentAdoption(Connected):
    """The part of a node that takes tournaments over."""

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
