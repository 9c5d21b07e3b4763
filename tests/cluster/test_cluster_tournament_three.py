"""A tournament's placed game on three real nodes, where the nodes that hold its tournament and
its table are not the ones they were when it was placed.

a runs the tournament and holds two idle tables, so it places its games at b or c (T, the
other being O). Mid-game at T (both entrants held at their first turn there):

- T is SIGKILLed, and a is stopped (SIGSTOP, right after a renewal of its lease, so it keeps its
  tournament) until O has taken T's table over from PostgreSQL, so O and not a adopts it: the
  home, the node the game was placed on and the one that adopts it are three. The entrants
  resume at O by their tokens, play the game out there as themselves, and at its end O sends
  them home to a (the table's saved state names its tournament). a learns the result from its
  record.
- a (the home) is SIGKILLed, and T is stopped (right after a renewal) until O has taken the
  tournament over, so the game's table (on T) and its tournament (on O) are on two nodes, and
  neither is its home. The game goes on at T, which sends its entrants, at its end, to where
  the tournament runs then (it asks the database): O, which learns the result from the record
  and runs the tournament on.

Which live node takes a dead node's tables and tournaments over is whichever renews first; the
test makes it O by stopping the other for a moment, and ends the dead node's lease in the
database at once (as it would end by itself within a lease) so that the moment stays well
within the stopped node's own lease. Either way the tournament finishes with every game in the
standings, played by its entrants as themselves, one record per game, each verifying with the
cluster's key."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from nodes import cluster_key, eventually, knowing, node, query, replayed
from processes import ServerProcess
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


@dataclass
class Three:
    """Nodes a, b and c; the tournament's entrants, held mid-game at T (where its game was
    placed: b or c; O, the other)."""

    pg_url: str
    a: ServerProcess
    target: ServerProcess
    other: ServerProcess
    entrants: list[Holding]
    tasks: list[asyncio.Task[list[GameResult]]]
    go: asyncio.Event
    placed: str
    names: dict[int, str] = field(default_factory=dict)
    """Each node's name by its port."""


@asynccontextmanager
async def three_nodes(pg_url: str, tmp_path: Path) -> AsyncIterator[Three]:
    """a (loaded), b and c started, the tournament made on a, entered, started and its first
    game under way at T; everything stopped at the end."""
    key = cluster_key(tmp_path)
    a = node(pg_url, key, "a")
    others = [node(pg_url, key, n) for n in ("b", "c")]
    clients: list[Client] = []
    tasks: list[asyncio.Task[list[GameResult]]] = []
    try:
        await a.start()
        for i in range(2):  # a alone: its idle tables are a's load
            clients.append(await Client.connect("127.0.0.1", a.port, name=f"idle{i}"))
            await clients[-1].create_table(TableSettings(kind="sushi-go", players=3))
        await asyncio.gather(*(n.start() for n in others))

        host = await eventually(lambda: knowing(a.port, "host", 3))
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
        (other,) = [n for n in others if n is not target]
        assert entrants[0].table is not None
        placed = entrants[0].table.table_id
        names = {a.port: "a", others[0].port: "b", others[1].port: "c"}
        yield Three(pg_url, a, target, other, entrants, tasks, go, placed, names)
    finally:
        for process in (a, *others):
            if process.proc is not None and process.proc.returncode is None:
                os.kill(process.proc.pid, signal.SIGCONT)
        for task in tasks:
            task.cancel()
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), *(n.stop() for n in others))


async def finished(three: Three, home: ServerProcess, tmp_path: Path) -> None:
    """The entrants played every game as themselves and are at `home` at the end, where the
    tournament finished, with one verifying record per game."""
    results = await asyncio.wait_for(asyncio.gather(*three.tasks), 40)
    assert [len(r) for r in results] == [GAMES, GAMES], results
    assert all(r.verified for played in results for r in played)
    assert all(e.port == home.port and e.table is None for e in three.entrants)
    watcher = await Client.connect("127.0.0.1", home.port, name="watcher")
    try:
        final = await watcher.watch_tournament(NAME)
        while final.status is not TournamentStatus.FINISHED:
            final = (await watcher.wait_for(TournamentUpdate, timeout=10)).tournament
    finally:
        await watcher.close()
    assert final.games_done == GAMES and final.games_running == 0
    assert sorted((s.name, s.games) for s in final.standings) == [("ann", GAMES), ("bob", GAMES)]
    pg_url = three.pg_url
    records = await query(pg_url, "SELECT game_id, table_id FROM records")
    assert len(records) == GAMES and len({r["table_id"] for r in records}) == GAMES
    assert three.placed in {r["table_id"] for r in records}
    for row in records:
        assert "verified:" in replayed(pg_url, tmp_path, row["game_id"])
    rows = await query(pg_url, "SELECT node FROM tournaments WHERE name = $1", NAME)
    assert [r[0] for r in rows] == [three.names[home.port]]


async def stop_after_renewal(pg_url: str, process: ServerProcess, name: str) -> None:
    """SIGSTOP the node `name` right after it renewed its lease: it keeps it for a lease on."""
    rows = await query(pg_url, "SELECT lease_expires FROM cluster_nodes WHERE name = $1", name)
    last = rows[0][0]

    async def renewed() -> bool:
        rows = await query(pg_url, "SELECT lease_expires FROM cluster_nodes WHERE name = $1", name)
        return bool(rows[0][0] != last)

    await eventually(renewed)
    assert process.proc is not None
    os.kill(process.proc.pid, signal.SIGSTOP)


async def lease_ended(pg_url: str, name: str) -> None:
    """The dead node `name`'s lease (its row's and its tables') ended now, not a lease on."""
    await query(pg_url, "UPDATE cluster_nodes SET lease_expires = now() WHERE name = $1", name)
    await query(pg_url, "UPDATE table_leases SET lease_expires = now() WHERE node = $1", name)


async def test_a_placed_game_adopted_by_a_third_node_goes_home(pg_url: str, tmp_path: Path) -> None:
    async with three_nodes(pg_url, tmp_path) as three:
        a, target, adopter = three.a, three.target, three.other
        await target.kill()
        await stop_after_renewal(pg_url, a, "a")  # O alone takes T's table over
        await lease_ended(pg_url, three.names[target.port])

        async def adopted() -> bool:
            rows = await query(
                pg_url, "SELECT node FROM table_leases WHERE table_id = $1", three.placed
            )
            return [r[0] for r in rows] == [three.names[adopter.port]]

        await eventually(adopted)
        assert a.proc is not None
        os.kill(a.proc.pid, signal.SIGCONT)
        three.go.set()  # the entrants find T gone, and resume at O
        await finished(three, a, tmp_path)


async def test_a_placed_game_goes_on_when_a_third_node_takes_its_tournament(
    pg_url: str, tmp_path: Path
) -> None:
    async with three_nodes(pg_url, tmp_path) as three:
        target, taker = three.target, three.other
        await three.a.kill()
        await stop_after_renewal(pg_url, target, three.names[target.port])  # O alone takes it
        await lease_ended(pg_url, "a")

        async def taken() -> bool:
            rows = await query(pg_url, "SELECT node FROM tournaments WHERE name = $1", NAME)
            return [r[0] for r in rows] == [three.names[taker.port]]

        await eventually(taken)
        assert target.proc is not None
        os.kill(target.proc.pid, signal.SIGCONT)
        three.go.set()  # the game goes on at T; its end sends the entrants to O
        await finished(three, taker, tmp_path)
