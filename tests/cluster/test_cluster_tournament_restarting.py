"""A tournament's game placed on another node ends while the tournament's node restarts
(server/routing/spread.py), on real nodes: node a runs a two-game tournament and places its games
at node b. a stops (SIGTERM: it gives up its leases and its tournaments' listing) while its
entrants play their first game at b, which ends with a still down: b has nowhere to send them
yet. a back (under its name, before any node took its tournament over: b's long lease keeps b
from renewing meanwhile), b sends them home, and they play the second game there as
themselves (not a bot in their seats while they wait at b, never seated again)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import cluster_key, eventually, node, query
from test_cluster_tournament_faults import Two, enter
from test_cluster_tournament_spread import loaded

from sushigo.client.connection import Client

B_LEASE = 120.0
"""b's lease: b renews it (and would take a's tournament over) only after the test is done."""


async def test_entrants_whose_game_ends_while_their_tournaments_node_restarts_go_home(
    pg_url: str, tmp_path: Path
) -> None:
    key = cluster_key(tmp_path)
    a, b = node(pg_url, key, "a"), node(pg_url, key, "b", lease=B_LEASE)
    clients: list[Client] = []
    two = Two(pg_url, a, b, await loaded(a, b, clients), clients)
    try:
        entrants, go = await enter(two, 2, redirect=False)  # each at its first turn at b
        assert all(c.port == b.port and c.table is not None for c in entrants)
        assert await a.terminate() == 0
        go.set()

        async def first_played() -> bool:
            return len(await query(pg_url, "SELECT 1 FROM records")) == 1

        await eventually(first_played)  # over at b, with a down
        await a.start()

        results = await asyncio.wait_for(asyncio.gather(*two.tasks), 60)
        assert [len(r) for r in results] == [2, 2], results  # both games, as themselves
        assert all(r.verified for played in results for r in played)
        seats = await query(pg_url, "SELECT name, count(*) AS n FROM results GROUP BY name")
        assert sorted((r["name"], r["n"]) for r in seats) == [("ann", 2), ("bob", 2)]
        assert len(await query(pg_url, "SELECT 1 FROM records")) == 2
    finally:
        for task in two.tasks:
            task.cancel()
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())
