"""`sushigo-bot --tournament` entering as the tournament's node dies, on real nodes: the node the
bot asks sends it to the tournament's node (its lease not yet run out), which cannot be reached;
the bot, back where it was, asks again (one line each time) until a live node has taken the
tournament over, enters there and plays. Before, it exited 1 at the first refused redirect (the
chaos runner, seed 538101394: "did not take the ticket: the connection dropped", its tournament
short of an entrant for ever)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import bots, cluster_key, eventually, node
from processes import assert_bots_played, bots_output, stop_bots

from sushigo.client.connection import Client
from sushigo.client.identity import load_or_create_key
from sushigo.client.link import ConnectError, ServerError
from sushigo.protocol import TournamentInfo, TournamentSettings

LEASE = 6.0
"""Long enough that the bots ask while the dead node still holds the tournament."""


async def test_a_bot_entering_as_the_tournaments_node_dies_enters_once_it_moved(
    pg_url: str, tmp_path: Path
) -> None:
    key = cluster_key(tmp_path)
    a, b = node(pg_url, key, "a", lease=LEASE), node(pg_url, key, "b", lease=LEASE)
    await a.start()
    await b.start()
    host_key = load_or_create_key(tmp_path / "host.pem")
    host = await Client.connect("127.0.0.1", b.port, name="host", key=host_key)
    entrants: list[asyncio.subprocess.Process] = []
    try:
        settings = TournamentSettings(name="cup", kind="sushi-go", players=2, games=1)
        await host.create_tournament(settings)
        await b.kill()
        await host.close()
        entrants = [
            bot
            for i in range(2)
            for bot in await bots(
                a.port, range(i, i + 1), "--tournament", "cup", "--key", str(tmp_path / f"{i}.pem")
            )
        ]
        host = await Client.connect("127.0.0.1", a.port, name="host", key=host_key)

        async def both_entered() -> TournamentInfo | None:
            for bot in entrants:  # (one that gave up fails here, saying why)
                if bot.returncode is not None:
                    out, _ = await bot.communicate()
                    raise AssertionError(f"an entrant exited {bot.returncode}: {out.decode()}")
            try:
                info = await host.watch_tournament("cup")
            except (ServerError, ConnectError):
                return None  # b's still (a redirect to it refused), or a's not yet
            return info if len(info.standings) == 2 else None

        await eventually(both_entered, timeout=4 * LEASE)
        await host.start_tournament("cup")
        outputs = await bots_output(entrants, 60)
        assert_bots_played(entrants, outputs, 1)
        assert any("trying again" in out for out in outputs), outputs
    finally:
        await stop_bots(entrants)
        await host.close()
        await asyncio.gather(a.stop(), b.stop())
