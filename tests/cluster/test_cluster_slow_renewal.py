"""A lease renewal that is slow but goes through within the lease, on a real node and a real
PostgreSQL database of the test's own: as on a loaded machine, where a renewal of a short
lease can take over half of it. The node counts it, and keeps its lease and its table.

(Before, a renewal that took over half a lease was not counted, lest a node whose lease had
lapsed take its tables up again for a moment; the next renewal came after half of what was
left, by which time the last lease counted had ended: the node dropped its table and sent its
player off, its database answering all along.)

The slow renewal is made, not waited for: the test holds a lock that lets the node's renewal
begin and keeps it waiting, and lets go once it waited over half a lease by the database's
clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import asyncpg
from nodes import cluster_key, eventually, game_begun, node, owned_by, query

from sushigo.client.connection import Client
from sushigo.protocol import TurnResult

LEASE = 9.0
"""A renewal waits over half of it (the lock let go at 0.55 of a lease, by the database's clock),
and still goes through well before the last lease ends (two thirds of a lease after this
renewal began, its beat a third): a second's margin for a loaded machine."""
LAPSED = b"this node's lease has lapsed"


async def test_a_renewal_slower_than_half_a_lease_keeps_the_lease(
    pg_url: str, tmp_path: Path
) -> None:
    a = node(pg_url, cluster_key(tmp_path), "a", lease=LEASE)
    await a.start()
    client = await Client.connect("127.0.0.1", a.port, name="ann")
    locks = await asyncpg.connect(pg_url)
    try:
        table_id = await game_begun(client)
        await eventually(owned_by(pg_url, table_id, "a"))
        held = locks.transaction()
        await held.start()
        try:
            await locks.execute("LOCK TABLE cluster_nodes IN SHARE MODE")

            async def held_over_half_a_lease() -> bool:
                rows = await query(
                    pg_url,
                    "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND query LIKE 'UPDATE cluster_nodes%' AND now() - query_start > $1",
                    timedelta(seconds=0.55 * LEASE),
                )
                return bool(rows)

            await eventually(held_over_half_a_lease, 2 * LEASE)
        finally:
            await held.rollback()
        seen: set[datetime] = set()

        async def renewed_after_it() -> bool:
            rows = await query(pg_url, "SELECT lease_expires FROM cluster_nodes")
            seen.add(rows[0][0])
            return len(seen) >= 3  # the slow renewal's, and one more at least

        await eventually(renewed_after_it, 4 * LEASE)
        assert LAPSED not in a.log, a.log.decode(errors="replace")
        # The table is still the node's, and its game goes on there.
        await eventually(owned_by(pg_url, table_id, "a"))
        client.pick(client.legal_actions()[0])
        await client.wait_for(TurnResult, 10)
    finally:
        await locks.close()
        await client.close()
        await a.stop()
    assert LAPSED not in a.log, a.log.decode(errors="replace")
