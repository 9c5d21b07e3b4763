"""A lease renewal that PostgreSQL held up for most of a lease, on a real node and a real
PostgreSQL of the test's own: PostgreSQL paused (SIGSTOP) as the node renews, until the node's
lease has lapsed by its own clock (it drops its table) and a little more. Woken, PostgreSQL
answers the renewal, which holds the lease for a lease from its start: less than it took. The
node asks again at once, and only then counts itself renewed and takes its table up again, so
it keeps the table. Before, it took the table up on the late renewal and renewed a third of a
lease later, after the lease had lapsed again: it dropped the table it had just taken up, its
players sent off a second time (the chaos runner, seeds 2000493862 and 538101394: bots'
sessions lost, and their game never finished)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

from nodes import cluster_key, eventually, game_begun, node, owned_by, query
from pgcluster import own_postgresql

from sushigo.client.connection import Client

LEASE = 4.5
LAPSED = b"this node's lease has lapsed"


async def test_a_renewal_the_database_held_up_is_followed_before_its_lease_ends(
    tmp_path: Path,
) -> None:
    async with own_postgresql() as (pg, url):
        a = node(url, cluster_key(tmp_path), "a", lease=LEASE)
        await a.start()
        client = await Client.connect("127.0.0.1", a.port, name="ann")
        try:
            table_id = await game_begun(client)
            await eventually(owned_by(url, table_id, "a"))
            pg.pause()  # a renewal begins within a third of a lease, and waits
            try:

                async def lapsed() -> bool:
                    return LAPSED in a.log

                await eventually(lapsed, 2 * LEASE)
                # The fault's shape: woken a sixth of a lease after the lapse, PostgreSQL
                # answers a renewal begun a lease and a sixth ago at most.
                await asyncio.sleep(LEASE / 6)
            finally:
                pg.unpause()
            seen: set[datetime] = set()

            async def renewed_after_it() -> bool:
                rows = await query(url, "SELECT lease_expires FROM cluster_nodes")
                seen.add(rows[0][0])
                return len(seen) >= 3  # the held-up renewal's, and one more at least

            await eventually(renewed_after_it, 4 * LEASE)
            await eventually(owned_by(url, table_id, "a"))
        finally:
            await client.close()
            await a.stop()
        assert a.log.count(LAPSED) == 1, a.log.decode(errors="replace")
