"""An entrant whose process ended (its session away, waiting for a resume that never comes) and
which logged in afresh (a `sushigo-bot` started again, a client restarted) before its
tournament's next game, on a real node: the fresh session is the entrant's, seated at its games
and told of them. Before, the away session stayed the entrant's (the first of its sessions the
node met): its games were seated there, played for it by the server, and the process that was
there heard of none of them (the chaos runner, seed 108400904: a bot entrant that reported no
game of the two the records held for it, after its node died and its tournament moved)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import cluster_key, node

from sushigo.client.connection import Client
from sushigo.client.identity import load_or_create_key
from sushigo.protocol import GameEnded, TableJoined, TournamentSettings


async def play_out(client: Client) -> None:
    """Be seated (within 10 s), then play the game to its end (the first legal action each
    time)."""
    await client.wait_for(TableJoined, 10)
    while True:
        if client.awaiting:
            client.pick(client.legal_actions()[0])
        if isinstance(await client.next_event(30), GameEnded):
            return


async def test_a_fresh_login_of_an_entrant_is_seated_not_its_abandoned_session(
    pg_url: str, tmp_path: Path
) -> None:
    a = node(pg_url, cluster_key(tmp_path), "a")
    await a.start()
    keys = {who: load_or_create_key(tmp_path / f"{who}.pem") for who in ("host", "ann", "bob")}

    async def login(who: str) -> Client:
        return await Client.connect("127.0.0.1", a.port, name=who, key=keys[who])

    host, ann, bob = await login("host"), await login("ann"), await login("bob")
    again: Client | None = None
    try:
        settings = TournamentSettings(name="cup", kind="sushi-go", players=2, games=1)
        await host.create_tournament(settings)
        await ann.register_tournament("cup")
        await bob.register_tournament("cup")
        await ann.close()  # its process ends: the session is away, within its resume window
        again = await login("ann")
        await host.start_tournament("cup")
        # Both play it out, each on its own events: the fresh session's seat is its own.
        await asyncio.wait_for(asyncio.gather(play_out(again), play_out(bob)), 60)
        assert again.fairness.final == "verified"
    finally:
        for client in (host, ann, bob, again):
            if client is not None:
                await client.close()
        await a.stop()
