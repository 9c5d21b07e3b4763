"""A tournament's game placed on another node when things go wrong (server/routing/spread.py),
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
import dataclasses
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nodes import bring, eventually, query, replayed, two_nodes
from processes import ServerProcess, bots_output, stop_bots
from test_cluster_tournament import entrant
from test_cluster_tournament_spread import loaded

from sushigo.client.bot import GameResult, Strategies, play_tournament
from sushigo.client.connection import Client, ConnectionLost
from sushigo.protocol import (
    Message,
    Redirect,
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


@dataclass
class Two:
    """Nodes a (loaded) and b on the test's database, and what the test started on them."""

    pg_url: str
    a: ServerProcess
    b: ServerProcess
    host: Client
    clients: list[Client] = field(default_factory=list)
    tasks: list[asyncio.Task[list[GameResult]]] = field(default_factory=list)
    bots: list[asyncio.subprocess.Process] = field(default_factory=list)


@asynccontextmanager
async def loaded_pair(pg_url: str, tmp_path: Path) -> AsyncIterator[Two]:
    """a and b started, a host on a that knows of b; everything stopped at the end."""
    a, b = two_nodes(pg_url, tmp_path)
    clients: list[Client] = []
    two: Two | None = None
    try:
        two = Two(pg_url, a, b, await loaded(a, b, clients), clients)
        yield two
    finally:
        if two is not None:
            for task in two.tasks:
                task.cancel()
            await stop_bots(two.bots)
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())


async def started(two: Two) -> None:
    """The tournament made on a, once its two entrants (their `play_tournament` running, or
    their bots started) entered it, started."""
    host = two.host

    async def entered() -> bool:
        return len((await host.watch_tournament(NAME)).standings) == 2

    await eventually(entered)
    await host.start_tournament(NAME)


async def enter(
    two: Two, games: int, *, redirect: bool, turn_seconds: int | None = None
) -> tuple[list[Held], asyncio.Event]:
    """A tournament of `games` games on a (turns of `turn_seconds`, if given), entered by ann
    and bob (`Held` at b) and started; returned once both hold."""
    settings = TournamentSettings(name=NAME, kind="sushi-go", players=2, games=games)
    if turn_seconds is not None:
        settings = dataclasses.replace(settings, turn_seconds=turn_seconds)
    await two.host.create_tournament(settings)
    go = asyncio.Event()
    entrants = [await held(two.a.port, n, two.b.port, go, redirect) for n in ("ann", "bob")]
    two.clients.extend(entrants)
    two.tasks.extend(
        asyncio.create_task(play_tournament(c, NAME, Strategies("random"), random.Random(i)))
        for i, c in enumerate(entrants)
    )
    await started(two)
    await asyncio.wait_for(asyncio.gather(*(c.waiting.wait() for c in entrants)), 20)
    return entrants, go


async def finished(two: Two, games: int, names: list[str]) -> list[Any]:
    """The tournament finished with `games` games for each of `names`, their games' records
    (game id, table id) stored, each played by them (no bot for anyone)."""
    final = await two.host.watch_tournament(NAME)
    while final.status is not TournamentStatus.FINISHED:
        final = (await two.host.wait_for(TournamentUpdate, timeout=10)).tournament
    assert final.games_done == games and final.games_running == 0
    assert sorted((s.name, s.games) for s in final.standings) == [(n, games) for n in names]
    played = await query(two.pg_url, "SELECT DISTINCT name FROM results ORDER BY name")
    assert [r["name"] for r in played] == names
    records = await query(two.pg_url, "SELECT game_id, table_id FROM records")
    assert len(records) == games
    return records


async def test_a_game_whose_node_dies_before_anyone_arrives_is_played_at_home(
    pg_url: str, tmp_path: Path
) -> None:
    async with loaded_pair(pg_url, tmp_path) as two:
        (ann, bob), go = await enter(two, 1, redirect=True)
        (placed,) = {r.table_id for r in ann.kept + bob.kept}  # both sent to b, neither there
        await two.b.kill()
        go.set()  # b refuses them: they stay at a

        results = await asyncio.wait_for(asyncio.gather(*two.tasks), 30)
        assert [len(r) for r in results] == [1, 1], results
        assert all(r.verified for played in results for r in played)
        (record,) = await finished(two, 1, ["ann", "bob"])
        assert record["table_id"] == placed  # the placed game, played at a as ann and bob
        assert "verified:" in replayed(pg_url, tmp_path, record["game_id"])

        # b back: ann's old ticket is still good there (30 s), but its game is a's now.
        await two.b.start()
        late = await bring(two.b.port, ann.kept[0].ticket, "ann")
        try:
            home = await late.wait_for(Redirect, timeout=10)
            assert home.address == f"127.0.0.1:{two.a.port}" and home.table_id == NAME, home
            assert late.port == two.a.port  # followed home
        finally:
            await late.close()
        assert len(await query(pg_url, "SELECT 1 FROM records")) == 1


async def test_a_game_whose_tickets_cannot_be_recorded_is_played_at_home(
    pg_url: str, tmp_path: Path
) -> None:
    async with loaded_pair(pg_url, tmp_path) as two:
        settings = TournamentSettings(name=NAME, kind="sushi-go", players=2, games=2)
        await two.host.create_tournament(settings)
        # Every ticket refused by the database from now on (the rows there stay valid).
        await query(pg_url, "ALTER TABLE tickets ADD CONSTRAINT refused CHECK (false) NOT VALID")
        two.bots.extend([await entrant(two.a.port, i) for i in range(2)])
        await started(two)
        for output in await bots_output(two.bots, timeout=30):
            assert f"tournament {NAME!r} finished" in output, output
        await finished(two, 2, ["bot0", "bot1"])
        assert b"recording a tournament game's tickets" in two.a.log  # placed at b first


async def test_a_game_whose_node_dies_mid_game_sends_its_entrants_home(
    pg_url: str, tmp_path: Path
) -> None:
    async with loaded_pair(pg_url, tmp_path) as two:
        entrants, go = await enter(two, 2, redirect=False)
        assert all(c.port == two.b.port and c.table is not None for c in entrants)
        placed = entrants[0].table.table_id if entrants[0].table is not None else ""
        await two.b.kill()

        async def dropped() -> bool:
            return not any(c.connected for c in entrants)

        await eventually(dropped)
        go.set()  # they resume at a, which took the table over

        results = await asyncio.wait_for(asyncio.gather(*two.tasks), 60)
        assert [len(r) for r in results] == [2, 2], results  # both games, as themselves
        assert all(r.verified for played in results for r in played)
        records = await finished(two, 2, ["ann", "bob"])
        assert placed in {r["table_id"] for r in records}
        for row in records:
            assert "verified:" in replayed(pg_url, tmp_path, row["game_id"])
