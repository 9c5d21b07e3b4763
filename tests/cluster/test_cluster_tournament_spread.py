"""A tournament's games spread over a cluster's nodes (server/routing/spread.py), on two real
nodes.

Node a holds two idle tables, node b none: a tournament made on a places games at b (each
entrant sent there with a ticket carrying the game's intent, seated in its planned seat, and sent
home after GAME_OVER), and plays others at home. Its `sushigo-bot` entrants follow by themselves;
it finishes with every game in the standings, and every record verifies with the cluster's key.
A placement ticket for a tournament's game is good once, on its node only, and not when forged.
An entrant that does not follow is played for by a bot there after a lease, and the tournament
goes on without waiting for it past another."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from urllib.request import urlopen

from nodes import (
    cluster_key,
    eventually,
    forgery_refused,
    knowing,
    node,
    query,
    replayed,
    ticket_refused,
    two_nodes,
)
from processes import ServerProcess, bots_output, stop_bots
from test_cluster_tournament import entrant

from sushigo import protocol
from sushigo.client.bot import Strategies, play_tournament
from sushigo.client.connection import Client


class Keeping(Client):
    """An entrant that keeps the redirects it followed (to look at their tickets after)."""

    kept: list[protocol.Redirect]

    async def follow(self, redirect: protocol.Redirect) -> None:
        self.kept.append(redirect)
        await super().follow(redirect)


NAME = "spread cup"
SETTINGS = protocol.TournamentSettings(
    name=NAME, kind="sushi-go", players=2, games=6, turn_seconds=30
)


async def loaded(a: ServerProcess, b: ServerProcess, clients: list[Client]) -> Client:
    """Start a with two idle tables, then b; a host on a once a knows of b."""
    await a.start()
    for i in range(2):  # a alone: its idle tables are a's load
        clients.append(await Client.connect("127.0.0.1", a.port, name=f"idle{i}"))
        await clients[-1].create_table(protocol.TableSettings(kind="sushi-go", players=3))
    await b.start()

    host = await eventually(lambda: knowing(a.port, "host", 2))
    clients.append(host)
    return host


async def tables_held(server: ServerProcess) -> int:
    """How many tables `server` holds, by its metrics (started with ``--metrics``)."""
    url = f"http://127.0.0.1:{server.metrics_port}/metrics"
    text = (await asyncio.to_thread(lambda: urlopen(url, timeout=10).read())).decode()
    return sum(
        int(float(line.split()[-1]))
        for line in text.splitlines()
        if line.startswith("sushigo_tables{")
    )


async def test_a_tournaments_games_are_played_on_both_nodes(pg_url: str, tmp_path: Path) -> None:
    key = cluster_key(tmp_path)
    a, b = node(pg_url, key, "a"), node(pg_url, key, "b", "--metrics", "127.0.0.1:0")
    clients: list[Client] = []
    bots: list[asyncio.subprocess.Process] = []
    try:
        host = await loaded(a, b, clients)
        await host.create_tournament(SETTINGS)
        bots = [await entrant(a.port, i) for i in range(3)]
        keeping = await Keeping.connect("127.0.0.1", a.port, name="bot3")
        keeping.kept = []
        clients.append(keeping)
        played = asyncio.create_task(
            play_tournament(keeping, NAME, Strategies("random"), random.Random(3))
        )

        async def four() -> bool:
            return len((await host.watch_tournament(NAME)).standings) == 4

        await eventually(four, timeout=20)
        await host.start_tournament(NAME)
        outputs = await bots_output(bots, timeout=90)
        for output in outputs:
            assert f"tournament {NAME!r} finished" in output, output
        assert all(r.verified for r in await asyncio.wait_for(played, 30))

        final = await host.watch_tournament(NAME)
        while final.status is not protocol.TournamentStatus.FINISHED:
            final = (await host.wait_for(protocol.TournamentUpdate, timeout=10)).tournament
        assert final.games_done == SETTINGS.games and final.games_running == 0
        assert sorted(s.name for s in final.standings) == ["bot0", "bot1", "bot2", "bot3"]
        assert sum(s.games for s in final.standings) == SETTINGS.games * SETTINGS.players

        # Placed games are those a issued placement tickets for; the others were a's own.
        records = await query(pg_url, "SELECT game_id, table_id FROM records")
        assert len(records) == SETTINGS.games
        placed = {r["table_id"] for r in await query(pg_url, "SELECT table_id FROM tickets")}
        away = [r for r in records if r["table_id"] in placed]
        assert 0 < len(away) < SETTINGS.games, (len(away), records)
        for row in records:
            assert "verified:" in replayed(pg_url, tmp_path, row["game_id"])

        # A placement ticket for a tournament's game: good once, on its node only, not forged.
        there = [r for r in keeping.kept if r.address == f"127.0.0.1:{b.port}"]
        home = [r for r in keeping.kept if r.address == f"127.0.0.1:{a.port}"]
        assert there and len(home) == len(there), keeping.kept
        ticket = there[0].ticket

        # Once b holds no table (none still playing, none made again by an entrant late for
        # its game), a ticket used there can only be refused as used; and no game was played
        # there twice.
        async def b_idle() -> bool:
            return await tables_held(b) == 0

        await eventually(b_idle)
        assert len(await query(pg_url, "SELECT game_id FROM records")) == SETTINGS.games
        error = await ticket_refused(b.port, ticket)
        assert error.code is protocol.ErrorCode.UNKNOWN_SESSION and "already used" in str(error), (
            error
        )
        error = await ticket_refused(a.port, ticket)
        assert error.code is protocol.ErrorCode.UNKNOWN_SESSION and "not this one" in str(error), (
            error
        )
        await forgery_refused(b.port, ticket)
    finally:
        await stop_bots(bots)
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())


async def test_an_entrant_that_does_not_follow_is_played_for(pg_url: str, tmp_path: Path) -> None:
    a, b = two_nodes(pg_url, tmp_path)
    clients: list[Client] = []
    bots: list[asyncio.subprocess.Process] = []
    settings = protocol.TournamentSettings(name=NAME, kind="sushi-go", players=2, games=1)
    b.extra = (*b.extra, "--log-level", "info")
    try:
        host = await loaded(a, b, clients)
        await host.create_tournament(settings)
        bots = [await entrant(a.port, 0)]
        lazy = await Client.connect("127.0.0.1", a.port, name="lazy")  # reads no event yet
        clients.append(lazy)
        await lazy.register_tournament(NAME)

        async def two() -> bool:
            return len((await host.watch_tournament(NAME)).standings) == 2

        await eventually(two)
        await host.start_tournament(NAME)
        (output,) = await bots_output(bots, timeout=30)
        assert f"tournament {NAME!r} finished" in output, output
        final = await host.watch_tournament(NAME)
        assert final.status is protocol.TournamentStatus.FINISHED and final.games_done == 1
        assert sorted((s.name, s.games) for s in final.standings) == [("bot0", 1), ("lazy", 1)]
        (record,) = await query(pg_url, "SELECT game_id, table_id FROM records")
        placed = {r["table_id"] for r in await query(pg_url, "SELECT table_id FROM tickets")}
        assert record["table_id"] in placed  # played at b
        names = [r["name"] for r in await query(pg_url, "SELECT name FROM results")]
        assert sorted(names)[0] == "bot0" and sorted(names)[1].startswith("default-bot"), names

        # lazy follows now, its game played without it: b sends it home (it remembers the game
        # was played there, not only by its record, which may not be stored yet), and home
        # takes it back; no second game of that table.
        there = await lazy.wait_for(protocol.Redirect, timeout=10)
        assert there.address == f"127.0.0.1:{b.port}", there
        back = await lazy.wait_for(protocol.Redirect, timeout=10)
        assert back.address == f"127.0.0.1:{a.port}", back
        assert f"game at table {record['table_id']} over; " in b.log.decode()
        assert len(await query(pg_url, "SELECT game_id FROM records")) == 1
    finally:
        await stop_bots(bots)
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())
