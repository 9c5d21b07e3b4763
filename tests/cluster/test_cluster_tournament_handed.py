"""A tournament's game handed to another node as the tournament's node stops (SIGTERM), on real
nodes: node a runs a two-game tournament and plays its first game at home. a stops while its two
entrants are at their first turn (it hands the table to b, and sends them there), and starts
again, taking its tournament back; the game it counts as running is b's now. The entrants play
it to its end at b past the time a waits for entrants after taking a tournament up, and are sent
home: they are away at that game, not gone, so a waits for them and they play the second game
as themselves (no bot in their seats while they come home)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from nodes import cluster_key, eventually, knowing, node, query
from test_cluster_tournament_faults import Held, held

from sushigo.client.bot import GameResult, Strategies, play_tournament
from sushigo.client.connection import Client
from sushigo.protocol import TournamentSettings

NAME = "handed cup"
B_LEASE = 120.0
"""b's lease: b renews it (and would take a's tournament over) only after the test is done, so
a takes its own tournament back as it starts again."""


async def test_entrants_whose_game_was_handed_on_are_waited_for_at_home(
    pg_url: str, tmp_path: Path
) -> None:
    key = cluster_key(tmp_path)
    a = node(pg_url, key, "a", "--log-level", "info")
    b = node(pg_url, key, "b", lease=B_LEASE)
    clients: list[Client] = []
    tasks: list[asyncio.Task[list[GameResult]]] = []
    try:
        await a.start()
        await b.start()
        host = await eventually(lambda: knowing(a.port, "host", 2))
        clients.append(host)
        await host.create_tournament(
            TournamentSettings(name=NAME, kind="sushi-go", players=2, games=2)
        )
        go = asyncio.Event()
        # Each holds at its first turn at a (`Held`), until the test has stopped a.
        entrants: list[Held] = [
            await held(a.port, n, a.port, go, redirect=False) for n in ("ann", "bob")
        ]
        clients.extend(entrants)
        tasks.extend(
            asyncio.create_task(play_tournament(c, NAME, Strategies("random"), random.Random(i)))
            for i, c in enumerate(entrants)
        )

        async def entered() -> bool:
            return len((await host.watch_tournament(NAME)).standings) == 2

        await eventually(entered)
        await host.start_tournament(NAME)
        await asyncio.wait_for(asyncio.gather(*(c.waiting.wait() for c in entrants)), 20)
        assert all(c.port == a.port and c.table is not None for c in entrants)

        assert await a.terminate() == 0  # the table handed to b, its people sent there
        a.log = b""
        await a.start()
        # a took its tournament back, and waited for its entrants as long as it does.
        await a.logged(lambda log: b"done waiting for its entrants" in log)
        go.set()

        results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
        assert [len(r) for r in results] == [2, 2], results  # both games, as themselves
        assert not any(r.unseen for played in results for r in played), results
        seats = await query(pg_url, "SELECT name, count(*) AS n FROM results GROUP BY name")
        assert sorted((r["name"], r["n"]) for r in seats) == [("ann", 2), ("bob", 2)]
        assert len(await query(pg_url, "SELECT 1 FROM records")) == 2
    finally:
        for task in tasks:
            task.cancel()
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())
