"""A tournament's placed game adopted by a third node, on three real nodes: its home (a), the
node it was placed on (T, one of b and c) and the node that takes its table over (the other, O)
are three different nodes.

a runs the tournament and holds two idle tables, so it places its games at b or c. Mid-game at
T (both entrants held at their first turn there), T is SIGKILLed; a is stopped (SIGSTOP, within
its lease of 10 s: it keeps its tournament) until O has taken T's table over from PostgreSQL,
so O and not a adopts it. The entrants resume at O by their tokens, play the game out there as
themselves, and at its end O sends them home to a (the table's saved state names its
tournament; a asks nobody where it is). a learns the result from its record, and the tournament
finishes with every game in the standings, one record per game, each verifying with the
cluster's key."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from pathlib import Path

from nodes import eventually, node, query, replayed
from test_cluster_tournament import NAME

from sushigo.client.bot import GameResult, Strategies, play_tournament
from sushigo.client.connection import Client, ConnectionLost
from sushigo.protocol import (
    Message,
    TableSettings,
    TournamentSettings,
    TournamentStatus,
    TournamentUpdate,
    TurnStart,
)

GAMES = 2


class Holding(Client):
    """An entrant that holds its first turn on a node other than `home` until `go` is set."""

    home: int
    go: asyncio.Event
    waiting: asyncio.Event

    async def next_event(self, timeout: float | None = None) -> Message:
        event = await super().next_event(timeout)
        if isinstance(event, TurnStart) and self.port != self.home and not self.go.is_set():
            self.waiting.set()
            await self.go.wait()
            if not self.connected:  # its node died meanwhile: as if reading found it out
                raise ConnectionLost("the connection to the server was lost")
        return event


async def test_a_placed_game_adopted_by_a_third_node_goes_home(pg_url: str, tmp_path: Path) -> None:
    key = tmp_path / "cluster.key"
    a = node(pg_url, key, "a", lease=10.0)
    others = [node(pg_url, key, n) for n in ("b", "c")]
    clients: list[Client] = []
    tasks: list[asyncio.Task[list[GameResult]]] = []
    stopped = False
    try:
        await a.start()
        for i in range(2):  # a alone: its idle tables are a's load
            clients.append(await Client.connect("127.0.0.1", a.port, name=f"idle{i}"))
            await clients[-1].create_table(TableSettings(kind="sushi-go", players=3))
        await asyncio.gather(*(n.start() for n in others))

        async def knows_all() -> Client | None:
            client = await Client.connect("127.0.0.1", a.port, name="host")
            if len(client.nodes) == 3:
                return client
            await client.close()
            return None

        host = await eventually(knows_all)
        clients.append(host)
        settings = TournamentSettings(name=NAME, kind="sushi-go", players=2, games=GAMES)
        await host.create_tournament(settings)
        go = asyncio.Event()
        entrants = []
        for i, name in enumerate(("ann", "bob")):
            entrant = await Holding.connect("127.0.0.1", a.port, name=name)
            entrant.home, entrant.go, entrant.waiting = a.port, go, asyncio.Event()
            entrants.append(entrant)
            clients.append(entrant)
            play = play_tournament(entrant, NAME, Strategies("random"), random.Random(i))
            tasks.append(asyncio.create_task(play))

        async def entered() -> bool:
            return len((await host.watch_tournament(NAME)).standings) == 2

        await eventually(entered)
        await host.start_tournament(NAME)
        await asyncio.wait_for(asyncio.gather(*(e.waiting.wait() for e in entrants)), 20)
        (there,) = {e.port for e in entrants}  # both at their first turn at T
        target = next(n for n in others if n.port == there)
        (adopter,) = [n for n in others if n is not target]
        assert entrants[0].table is not None
        placed = entrants[0].table.table_id

        await target.kill()
        assert a.proc is not None
        os.kill(a.proc.pid, signal.SIGSTOP)  # O alone takes T's table over
        stopped = True
        names = {a.port: "a", others[0].port: "b", others[1].port: "c"}

        async def adopted() -> bool:
            rows = await query(pg_url, "SELECT node FROM table_leases WHERE table_id = $1", placed)
            return [r[0] for r in rows] == [names[adopter.port]]

        await eventually(adopted, timeout=15)
        os.kill(a.proc.pid, signal.SIGCONT)
        stopped = False
        go.set()  # the entrants find T gone, and resume at O

        results = await asyncio.wait_for(asyncio.gather(*tasks), 40)
        assert [len(r) for r in results] == [GAMES, GAMES], results  # each game, as themselves
        assert all(r.verified for played in results for r in played)
        assert all(e.port == a.port and e.table is None for e in entrants)  # home at the end

        final = await host.watch_tournament(NAME)
        while final.status is not TournamentStatus.FINISHED:
            final = (await host.wait_for(TournamentUpdate, timeout=10)).tournament
        assert final.games_done == GAMES and final.games_running == 0
        assert sorted((s.name, s.games) for s in final.standings) == [
            ("ann", GAMES),
            ("bob", GAMES),
        ]
        records = await query(pg_url, "SELECT game_id, table_id FROM records")
        assert len(records) == GAMES and len({r["table_id"] for r in records}) == GAMES
        assert placed in {r["table_id"] for r in records}
        for row in records:
            assert "verified:" in replayed(pg_url, tmp_path, row["game_id"])
        rows = await query(pg_url, "SELECT node FROM tournaments WHERE name = $1", NAME)
        assert [r[0] for r in rows] == ["a"]  # it never left its home
    finally:
        if stopped and a.proc is not None:
            os.kill(a.proc.pid, signal.SIGCONT)
        for task in tasks:
            task.cancel()
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), *(n.stop() for n in others))
