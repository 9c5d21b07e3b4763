"""Node clocks that differ by seconds change nothing: a node's wall clock is set to the
database's (`server.cluster.wallclock.WallClock`), so the times it writes for other nodes to read (a
resume token's end, a sanction's, a record's finish) are of one clock. Leases and tickets end by the
database's clock already (tests/cluster/test_cluster_redirect.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import cluster_key, eventually, game_begun, node, query

from sushigo.client.connection import Client, reconnect
from sushigo.protocol import GameEnded

SHIFT_MS = -60_000
"""Node a's clock: a minute behind. Its players' tokens (a lifetime of 36 s here) would look
expired to b the moment they were written, were they of a's own clock."""


async def test_a_node_whose_clock_is_off_writes_times_of_the_clusters_clock(
    pg_url: str, tmp_path: Path
) -> None:
    key = cluster_key(tmp_path)
    lifetime = ("--token-lifetime-hours", "0.01")
    a = node(pg_url, key, "a", *lifetime, shift_ms=SHIFT_MS)
    b = node(pg_url, key, "b", *lifetime)
    await a.start()
    await b.start()
    client = await Client.connect("127.0.0.1", a.port, name="ann")
    try:
        table_id = await game_begun(client)

        async def token_end() -> list[int]:
            rows = await query(
                pg_url,
                "SELECT expires_ms - (extract(epoch FROM now()) * 1000)::bigint FROM tokens "
                "WHERE table_id = $1",
                table_id,
            )
            return [int(row[0]) for row in rows]

        # 36 s on by the database's clock (less the moments since), not 60 s before that.
        ends = await eventually(token_end)
        assert all(30_000 < end <= 36_000 for end in ends), ends
        await a.kill()
        resumed = await reconnect(client, attempts=60, delay=0.1)
        assert resumed is not None, "b took the token for an expired one"
        assert client.port == b.port
        while True:
            if client.awaiting:
                client.pick(client.legal_actions()[0])
            if isinstance(await client.next_event(10), GameEnded):
                break
        assert client.fairness.final == "verified"
    finally:
        await client.close()
        await asyncio.gather(a.stop(), b.stop())
