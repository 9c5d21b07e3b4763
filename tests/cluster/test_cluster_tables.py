"""The table list is cluster-wide (server/routing/listing.py): LIST_TABLES on any node shows every
live node's tables, and joining one that lives on another node redirects there."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import cluster_key, eventually, node, query, started_two

from sushigo.client.connection import Client
from sushigo.protocol import TableSettings, TableStatus


async def test_every_node_lists_every_nodes_tables(pg_url: str, tmp_path: Path) -> None:
    a, b = await started_two(pg_url, tmp_path)
    ann = await Client.connect("127.0.0.1", a.port, name="ann")
    bob = await Client.connect("127.0.0.1", b.port, name="bob")
    cat = await Client.connect("127.0.0.1", b.port, name="cat")
    try:
        on_a = await ann.create_table(TableSettings(kind="sushi-go", players=2))
        on_b = await bob.create_table(TableSettings(kind="sushi-roll", players=3))
        both = {on_a.table.table_id, on_b.table.table_id}

        async def listed() -> set[str] | None:
            ids = {t.table_id for t in await cat.list_tables(limit=5)}
            return ids if both <= ids else None

        await eventually(listed)  # each node publishes a new table at once
        page = await cat.table_page("sushi-go", status=TableStatus.OPEN, limit=5)
        assert [t.table_id for t in page.tables] == [on_a.table.table_id]
        assert page.total == 1
        assert page.tables[0].seats[0].name == "ann"
        # cat, on b, joins a's table: the library follows the redirect to a.
        seated = await cat.join_table(on_a.table.table_id)
        assert (cat.port, seated.seat) == (a.port, 1)
        # Once a table is gone it leaves every node's list (at its node's next renewal).
        await bob.leave()

        async def gone() -> bool:
            return on_b.table.table_id not in {t.table_id for t in await ann.list_tables(limit=5)}

        await eventually(gone)
    finally:
        for client in (ann, bob, cat):
            await client.close()
        await asyncio.gather(a.stop(), b.stop())


async def test_a_closed_quick_table_is_withdrawn_at_once(pg_url: str, tmp_path: Path) -> None:
    """A quick-match table that closes (or fills) is withdrawn from the other nodes' quick
    matches and table lists at once, not at its node's next renewal (a third of the lease, here
    10 s): else another node sends a player to it, with a ticket its node refuses ("the ticket
    is for table X, which is not on this node": seen under load)."""
    key = cluster_key(tmp_path)
    a = node(pg_url, key, "a", lease=30)
    b = node(pg_url, key, "b", "--quick-patience", "0", lease=30)
    await a.start()
    await b.start()
    ann = await Client.connect("127.0.0.1", a.port, name="ann")
    dan = await Client.connect("127.0.0.1", b.port, name="dan")
    try:
        table_id = (await ann.quick_match(2, "sushi-go")).table.table_id

        async def waiting() -> bool:
            sql = "SELECT free FROM quick_tables WHERE table_id = $1"
            return [r["free"] for r in await query(pg_url, sql, table_id)] == [1]

        await eventually(waiting)
        await ann.leave()  # the table closes: nobody is at it

        async def withdrawn() -> bool:
            sql = "SELECT 1 FROM quick_tables WHERE table_id = $1 UNION ALL "
            sql += "SELECT 1 FROM listed_tables WHERE table_id = $1"
            return not await query(pg_url, sql, table_id)

        await eventually(withdrawn, timeout=3)
        joined = await dan.quick_match(2, "sushi-go")  # not sent to the closed table
        assert dan.port == b.port and joined.table.table_id != table_id
    finally:
        await ann.close()
        await dan.close()
        await asyncio.gather(a.stop(), b.stop())
