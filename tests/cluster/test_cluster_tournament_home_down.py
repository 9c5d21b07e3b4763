"""A tournament's game placed at another node ends while the look-up of the tournament's home
fails, on real nodes and a real PostgreSQL of the test's own (the chaos run's tournament whose
entrants, their game over at b as PostgreSQL stopped, stayed at b, never sent home nor told the
tournament finished, and were killed as stuck).

The game's node looks up the tournament's home to send its entrants there; when that fails, it
looks again (as while no live node runs the tournament) until it can. The moments are made, not
waited for: the entrants hold their first turn until the table the look-up reads is moved away,
and it is put back once b logs the failed look-up."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from nodes import cluster_key, eventually, node, query
from pgcluster import own_postgresql
from test_cluster_tournament_spread import loaded

from sushigo.client.bot import Strategies, play_tournament
from sushigo.client.connection import Client
from sushigo.protocol import Message, TournamentSettings, TurnStart

NAME = "down cup"
AWAY = "listed_tournaments_away"
"""Where the table the look-up reads is moved for a while (a fault of the look-up alone)."""


async def test_entrants_of_a_game_that_ends_with_the_database_down_are_sent_home(
    tmp_path: Path,
) -> None:
    stopped = asyncio.Event()

    class Holding(Client):
        """An entrant that holds its first turn until PostgreSQL is stopped."""

        async def next_event(self, timeout: float | None = None) -> Message:
            event = await super().next_event(timeout)
            if isinstance(event, TurnStart):
                await stopped.wait()
            return event

    async with own_postgresql() as (_, url):
        key = cluster_key(tmp_path)
        a, b = (node(url, key, n, "--log-level", "info") for n in "ab")
        clients: list[Client] = []
        try:
            host = await loaded(a, b, clients)
            settings = TournamentSettings(
                name=NAME, kind="sushi-go", players=2, games=1, turn_seconds=30
            )
            await host.create_tournament(settings)
            entrants = [await Holding.connect("127.0.0.1", a.port, name=f"e{i}") for i in range(2)]
            clients += entrants
            playing = [
                asyncio.ensure_future(
                    play_tournament(e, NAME, Strategies("random"), random.Random(i))
                )
                for i, e in enumerate(entrants)
            ]

            async def entered() -> bool:
                return len((await host.watch_tournament(NAME)).standings) == 2

            await eventually(entered)
            await host.start_tournament(NAME)
            await a.logged(lambda log: b"placed on b" in log, 30)
            await b.logged(lambda log: f"tournament {NAME}: game at table".encode() in log, 30)
            await query(url, f"ALTER TABLE listed_tournaments RENAME TO {AWAY}")
            stopped.set()
            await b.logged(lambda log: b"home cannot be read" in log, 60)
            await query(url, f"ALTER TABLE {AWAY} RENAME TO listed_tournaments")
            results = await asyncio.wait_for(asyncio.gather(*playing), 90)
        finally:
            stopped.set()
            for client in clients:
                await client.close()
            await asyncio.gather(a.stop(), b.stop())
    assert [len(r) for r in results] == [1, 1], results
    assert all(r[0].verified for r in results), results
