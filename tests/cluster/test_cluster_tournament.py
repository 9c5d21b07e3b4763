"""Tournaments across a cluster (server/routing/tournaments.py), on two real nodes.

A tournament made on node a is listed on b, and `sushigo-bot --tournament` processes connected
to either node enter it: those on b are redirected to a (its home node, which runs it) with a
ticket bound to the tournament, and their client library follows by itself; its host starts it,
and a watcher follows it, with `sushigo-tournament` on b. It finishes with
every entrant's games in the standings, and each game's record verifies with the cluster's key
(`sushigo-replay --db URL`). A tournament's name is the cluster's once; a tournament ticket that
is forged, used already or brought to a node that does not run the tournament is refused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from nodes import (
    bring,
    eventually,
    forgery_refused,
    query,
    replayed,
    ticket_refused,
    tournament_command,
    two_nodes,
)
from processes import BOT, bots_output, stop_bots

from sushigo import protocol
from sushigo.client.connection import Client
from sushigo.client.identity import load_or_create_key
from sushigo.client.link import ServerError

NAME = "spread cup"
SETTINGS = protocol.TournamentSettings(
    name=NAME, kind="sushi-go", players=2, games=6, turn_seconds=30
)


async def entrant(port: int, i: int) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        str(BOT),
        f"127.0.0.1:{port}",
        *("--strategy", "random", "--tournament", NAME, "--name", f"bot{i}", "--seed", str(i)),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )


async def test_a_tournament_is_the_clusters(pg_url: str, tmp_path: Path) -> None:
    a, b = two_nodes(pg_url, tmp_path)
    await asyncio.gather(a.start(), b.start())
    clients: list[Client] = []
    bots: list[asyncio.subprocess.Process] = []
    try:
        identity = tmp_path / "host.key"
        host = await Client.connect(
            "127.0.0.1", a.port, name="host", key=load_or_create_key(identity)
        )
        clients.append(host)
        await host.create_tournament(SETTINGS)

        on_b = await Client.connect("127.0.0.1", b.port, name="lister")
        clients.append(on_b)

        async def listed_on_b() -> bool:
            return [t.settings.name for t in await on_b.list_tournaments()] == [NAME]

        await eventually(listed_on_b)
        with pytest.raises(ServerError) as taken:  # the name is the cluster's once
            await on_b.create_tournament(SETTINGS)
        assert taken.value.code is protocol.ErrorCode.BAD_SETTINGS and "exists already" in str(
            taken.value
        )

        # A watcher on b is sent to a, and hears the tournament's news from there.
        watcher = await Client.connect("127.0.0.1", b.port, name="watcher")
        clients.append(watcher)
        await watcher.watch_tournament(NAME)
        assert watcher.port == a.port

        bots = [await entrant(port, i) for i, port in enumerate((a.port, a.port, b.port, b.port))]

        async def four() -> bool:
            return len((await host.watch_tournament(NAME)).standings) == 4

        await eventually(four, timeout=20)
        # Its host starts it from b, with sushigo-tournament and the same identity.
        code, said = await tournament_command(b.port, "--key", str(identity), "start", NAME)
        assert code == 0 and f"{NAME}: running" in said, said
        outputs = await bots_output(bots, timeout=60)
        for output in outputs:
            assert f"tournament {NAME!r} finished" in output, output

        final = (await watcher.wait_for(protocol.TournamentUpdate, timeout=10)).tournament
        while final.status is not protocol.TournamentStatus.FINISHED:
            final = (await watcher.wait_for(protocol.TournamentUpdate, timeout=10)).tournament
        assert final.games_done == SETTINGS.games and final.games_running == 0
        assert sorted(s.name for s in final.standings) == ["bot0", "bot1", "bot2", "bot3"]
        assert sum(s.games for s in final.standings) == SETTINGS.games * SETTINGS.players

        # sushigo-tournament watch on b shows the final standings (from a) and exits.
        code, said = await tournament_command(b.port, "watch", NAME)
        assert code == 0 and f"{NAME}: finished" in said and "bot3" in said, said

        # On b the list shows it finished (as a published it).
        async def finished_on_b() -> bool:
            (info,) = await on_b.list_tournaments()
            return info.status is protocol.TournamentStatus.FINISHED

        await eventually(finished_on_b)

        # Every game was recorded; sushigo-replay lists and verifies them with the cluster's key.
        rows = await query(pg_url, "SELECT game_id FROM records")
        assert len(rows) == SETTINGS.games
        for row in rows:
            assert "verified:" in replayed(pg_url, tmp_path, row["game_id"])

        # A tournament ticket, looked at by hand: good once, at its home node only.
        eve = await Client.connect("127.0.0.1", b.port, name="eve")
        clients.append(eve)
        redirect = await eve.request(lambda ref: protocol.WatchTournament(ref=ref, name=NAME))
        assert isinstance(redirect, protocol.Redirect) and redirect.address == f"127.0.0.1:{a.port}"
        await forgery_refused(a.port, redirect.ticket)
        error = await ticket_refused(b.port, redirect.ticket)
        assert error.code is protocol.ErrorCode.UNKNOWN_SESSION and "not run on this node" in str(
            error
        )
        there = await bring(a.port, redirect.ticket)
        await there.close()
        error = await ticket_refused(a.port, redirect.ticket)
        assert error.code is protocol.ErrorCode.UNKNOWN_SESSION and "already used" in str(error), (
            error
        )
    finally:
        await stop_bots(bots)
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())
