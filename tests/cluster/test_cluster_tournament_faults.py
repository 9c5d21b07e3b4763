"""A tournament's game placed on another node when things go wrong (server/tournament_spread.py),
on real nodes: node a runs the tournament and holds two idle tables, node b none, so a places
its games at b.

- b dies (SIGKILL) after a sent the entrants there and before any arrives: after a lease with
  no table made for the game, a takes it back (one conditional row in PostgreSQL: the table's
  lease) and plays it at home with the entrants, who stayed there (their client library cannot
  reach b). b, back, sends a late arrival with the old ticket home.
- The game's tickets cannot be recorded: it is played at home at once.
- b dies mid-game: a takes its table over, plays it to its end, and sends the entrants home as b
  would have (the table's tournament is in its saved state); they play the next game as
  themselves, and every record verifies with the cluster's key."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from nodes import bring, eventually, node, query, replayed
from processes import ServerProcess, bots_output, stop_bots
from test_cluster_tournament import entrant
from test_cluster_tournament_spread import loaded

from sushigo.client.bot import GameResult, Strategies, play_tournament
from sushigo.client.connection import Client, ConnectionLost
from sushigo.protocol import (
    Message,
    Redirect,
    TournamentInfo,
    TournamentSettings,
    TournamentStatus,
    TournamentUpdate,
    TurnStart,
)

NAME = "spread cup"


class Held(Client):
    """An entrant that holds (until `go` is set) its redirect to node `there` (kept), if it
    is to, or else its first turn there: what it does meanwhile, the test does to the
    cluster."""

    there: int
    go: asyncio.Event
    waiting: asyncio.Event
    """Set once it holds."""
    kept: list[Redirect]
    redirect: bool

    async def follow(self, redirect: Redirect) -> None:
        there = redirect.address == f"127.0.0.1:{self.there}"
        if there and self.redirect and not self.go.is_set():
            self.kept.append(redirect)
            self.waiting.set()
            await self.go.wait()
        await super().follow(redirect)

    async def next_event(self, timeout: float | None = None) -> Message:
        event = await super().next_event(timeout)
        if isinstance(event, TurnStart) and self.port == self.there and not self.go.is_set():
            self.waiting.set()
            await self.go.wait()
            if not self.connected:  # its node died meanwhile: as if reading found it out
                raise ConnectionLost("the connection to the server was lost")
        return event


async def held(port: int, name: str, there: int, go: asyncio.Event, redirect: bool) -> Held:
    client = await Held.connect("127.0.0.1", port, name=name)
    client.there, client.go, client.waiting, client.kept = there, go, asyncio.Event(), []
    client.redirect = redirect
    return client


async def enter(
    a: ServerProcess,
    b: ServerProcess,
    host: Client,
    games: int,
    clients: list[Client],
    *,
    redirect: bool,
) -> tuple[list[Held], list[asyncio.Task[list[GameResult]]], asyncio.Event]:
    """A tournament of `games` two-player games on a, entered by ann and bob (`Held` at b) and
    started; their `play_tournament` tasks, once both hold."""
    settings = TournamentSettings(name=NAME, kind="sushi-go", players=2, games=games)
    await host.create_tournament(settings)
    go = asyncio.Event()
    entrants = [await held(a.port, name, b.port, go, redirect) for name in ("ann", "bob")]
    clients.extend(entrants)
    tasks = [
        asyncio.create_task(play_tournament(c, NAME, Strategies("random"), random.Random(i)))
        for i, c in enumerate(entrants)
    ]

    async def two() -> bool:
        return len((await host.watch_tournament(NAME)).standings) == 2

    await eventually(two)
    await host.start_tournament(NAME)
    await asyncio.wait_for(asyncio.gather(*(c.waiting.wait() for c in entrants)), 20)
    return entrants, tasks, go


async def finished(host: Client) -> TournamentInfo:
    final = await host.watch_tournament(NAME)
    while final.status is not TournamentStatus.FINISHED:
        final = (await host.wait_for(TournamentUpdate, timeout=10)).tournament
    return final


async def test_a_game_whose_node_dies_before_anyone_arrives_is_played_at_home(
    pg_url: str, tmp_path: Path
) -> None:
    key = tmp_path / "cluster.key"
    a, b = node(pg_url, key, "a"), node(pg_url, key, "b")
    clients: list[Client] = []
    tasks: list[asyncio.Task[list[GameResult]]] = []
    try:
        host = await loaded(a, b, clients)
        (ann, bob), tasks, go = await enter(a, b, host, 1, clients, redirect=True)
        (placed,) = {r.table_id for r in ann.kept + bob.kept}  # both sent to b, neither there
        await b.kill()
        go.set()  # b refuses them: they stay at a

        results = await asyncio.wait_for(asyncio.gather(*tasks), 30)
        assert [len(r) for r in results] == [1, 1], results
        assert all(r.verified for played in results for r in played)
        final = await finished(host)
        assert final.games_done == 1 and final.games_running == 0
        assert sorted((s.name, s.games) for s in final.standings) == [("ann", 1), ("bob", 1)]
        (record,) = await query(pg_url, "SELECT game_id, table_id FROM records")
        assert record["table_id"] == placed  # the placed game, played at a as ann and bob
        names = await query(pg_url, "SELECT name FROM results ORDER BY name")
        assert [r["name"] for r in names] == ["ann", "bob"]
        assert "verified:" in replayed(pg_url, tmp_path, record["game_id"])

        # b back: ann's old ticket is still good there (30 s), but its game is a's now.
        await b.start()
        late = await bring(b.port, ann.kept[0].ticket, "ann")
        try:
            home = await late.wait_for(Redirect, timeout=10)
            assert home.address == f"127.0.0.1:{a.port}" and home.table_id == NAME, home
            assert late.port == a.port  # followed home
        finally:
            await late.close()
        assert len(await query(pg_url, "SELECT 1 FROM records")) == 1
    finally:
        for task in tasks:
            task.cancel()
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())


async def test_a_game_whose_tickets_cannot_be_recorded_is_played_at_home(
    pg_url: str, tmp_path: Path
) -> None:
    key = tmp_path / "cluster.key"
    a, b = node(pg_url, key, "a"), node(pg_url, key, "b")
    clients: list[Client] = []
    bots: list[asyncio.subprocess.Process] = []
    settings = TournamentSettings(name=NAME, kind="sushi-go", players=2, games=2)
    try:
        host = await loaded(a, b, clients)
        await host.create_tournament(settings)
        # Every ticket refused by the database from now on (the rows there stay valid).
        await query(pg_url, "ALTER TABLE tickets ADD CONSTRAINT refused CHECK (false) NOT VALID")
        bots = [await entrant(a.port, i) for i in range(2)]

        async def two() -> bool:
            return len((await host.watch_tournament(NAME)).standings) == 2

        await eventually(two)
        await host.start_tournament(NAME)
        for output in await bots_output(bots, timeout=30):
            assert f"tournament {NAME!r} finished" in output, output
        final = await finished(host)
        assert sorted((s.name, s.games) for s in final.standings) == [("bot0", 2), ("bot1", 2)]
        assert b"recording a tournament game's tickets" in a.log  # each was placed at b first
        records = await query(pg_url, "SELECT game_id FROM records")
        assert len(records) == 2
        names = await query(pg_url, "SELECT DISTINCT name FROM results ORDER BY name")
        assert [r["name"] for r in names] == ["bot0", "bot1"]
    finally:
        await stop_bots(bots)
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())


async def test_a_game_whose_node_dies_mid_game_sends_its_entrants_home(
    pg_url: str, tmp_path: Path
) -> None:
    key = tmp_path / "cluster.key"
    a, b = node(pg_url, key, "a"), node(pg_url, key, "b")
    clients: list[Client] = []
    tasks: list[asyncio.Task[list[GameResult]]] = []
    try:
        host = await loaded(a, b, clients)
        entrants, tasks, go = await enter(a, b, host, 2, clients, redirect=False)
        assert all(c.port == b.port and c.table is not None for c in entrants)
        placed = entrants[0].table.table_id if entrants[0].table is not None else ""
        await b.kill()

        async def dropped() -> bool:
            return not any(c.connected for c in entrants)

        await eventually(dropped)
        go.set()  # they resume at a, which took the table over

        results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
        assert [len(r) for r in results] == [2, 2], results  # both games, as themselves
        assert all(r.verified for played in results for r in played)
        final = await finished(host)
        assert final.games_done == 2 and final.games_running == 0
        assert sorted((s.name, s.games) for s in final.standings) == [("ann", 2), ("bob", 2)]
        records = await query(pg_url, "SELECT game_id, table_id FROM records")
        assert len(records) == 2 and placed in {r["table_id"] for r in records}
        names = await query(pg_url, "SELECT DISTINCT name FROM results ORDER BY name")
        assert [r["name"] for r in names] == ["ann", "bob"]  # no bot played for them
        for row in records:
            assert "verified:" in replayed(pg_url, tmp_path, row["game_id"])
    finally:
        for task in tasks:
            task.cancel()
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())
