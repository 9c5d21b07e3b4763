"""Requests a node takes while its lease has lapsed, for a tournament another node took over
meanwhile, on two real nodes (server/routing/spread.py, `let_go`; server/tournaments/desk.py,
`returned`; client/tournament.py, the host's `_follow`).

Node a runs a tournament; one entrant is in. a's renewals are then held up (the test locks its
node's row, as a database paused for longer than a lease does), so its lease ends and b takes
the tournament over, with the one entrant that was stored. a, which cannot know that before its
next renewal, takes a second entry and answers "entered", and its host, following the
tournament as `sushigo-tournament --entrants 2` does, starts it there: both writes are left out
(the row names b now). Once a can renew again it lets the tournament go and sends its people to
b, each with a ticket that says whether it is an entrant: b takes the second entrant in (the
tournament still registers there), the host, seeing it register with two entrants, starts it
again, and it is played to its end. (Before, b took the entrant for a mere visitor, and the
host never asked again: the tournament never started, its entrants waited for ever.)"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import asyncpg
from nodes import cluster_key, eventually, knowing, node, query
from processes import assert_records_verify, stored_records
from test_cluster_tournament_moved import play_until_finished

from sushigo.client.connection import Client
from sushigo.client.identity import load_or_create_key
from sushigo.client.tournament import _follow
from sushigo.protocol import TournamentSettings

NAME = "lapse cup"
SETTINGS = TournamentSettings(name=NAME, kind="sushi-go", players=2, games=1, turn_seconds=60)


async def _moved(client: Client, port: int) -> None:
    """Read the client's events (the library follows an unasked REDIRECT as it reads) until it
    is logged in at the node on `port`."""
    while client.port != port:
        await client.next_event(20)


async def test_an_entry_taken_past_the_lease_counts_where_the_tournament_went(
    pg_url: str, tmp_path: Path
) -> None:
    key = cluster_key(tmp_path)
    a = node(pg_url, key, "a", "--log-level", "info")
    b = node(pg_url, key, "b", "--log-level", "info")
    await asyncio.gather(a.start(), b.start())
    clients: list[Client] = []
    holder = None
    following: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    try:
        for name in ("host", "e0", "e1"):
            identity = load_or_create_key(tmp_path / f"{name}.pem")
            clients.append(
                await eventually(lambda n=name, k=identity: knowing(a.port, n, 2, key=k))
            )
        host, e0, e1 = clients
        await host.create_tournament(SETTINGS)
        following = asyncio.ensure_future(
            _follow(host, NAME, argparse.Namespace(csv=None, json=None), 2)
        )
        await e0.register_tournament(NAME)  # answered once stored

        holder = await asyncpg.connect(pg_url)
        await holder.execute("BEGIN")
        await holder.execute("SELECT 1 FROM cluster_nodes WHERE name = 'a' FOR UPDATE")
        taken = "SELECT 1 FROM tournaments WHERE name = $1 AND node = 'b'"
        await eventually(lambda: query(pg_url, taken, NAME))
        await b.logged(lambda log: b"took over 1 tournaments" in log)

        info = await e1.register_tournament(NAME)  # a's lease has lapsed: it cannot know
        assert sorted(s.player_id for s in info.standings) == sorted([e0.player_id, e1.player_id])
        await a.logged(lambda log: f"tournament {NAME} started".encode() in log)
        await holder.execute("ROLLBACK")
        await asyncio.wait_for(asyncio.gather(*(_moved(c, b.port) for c in (e0, e1))), 30)

        # At b, the tournament's node now, both are its entrants: it fills, is started again
        # by its host, and is played.
        ends = await asyncio.wait_for(
            asyncio.gather(*(play_until_finished(e) for e in (e0, e1))), 60
        )
        assert await asyncio.wait_for(following, 30) == 0
        assert host.port == b.port
    finally:
        following.cancel()
        if holder is not None:
            await holder.close()
        for c in clients:
            await c.close()
        await asyncio.gather(a.stop(), b.stop())

    assert b"is run by another node now: let go here" in a.log, a.log.decode()
    assert f"tournament {NAME} started".encode() in b.log, b.log.decode()
    for update in ends:
        assert update.tournament.games_done == SETTINGS.games
        assert sorted(s.games for s in update.tournament.standings) == [1, 1]
    records, server_key = stored_records(("--db", pg_url, "--key", str(key)))
    assert len(records) == SETTINGS.games
    assert_records_verify(records, server_key)
