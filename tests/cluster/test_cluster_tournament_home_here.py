"""Entrants waiting on a node for their tournament's node to come back, when that node takes the
tournament over itself (server/routing/spread.py, `_home`), on two real nodes.

Node a runs a tournament of three entrants, two games at a time; its first game is at a's table
when a is SIGKILLed. Its two players resume at that table on b and play the game to its end
there; no live node runs the tournament yet, so they wait on b, looked for again every second.
Then b takes the tournament over. They are its entrants there, on the sessions they have: b
seats one of them at the next game, and sends neither a REDIRECT to itself. (Before, the one
left in the lobby was sent to b by b, to log in again there; and a REDIRECT whose question was
answered after the take-over reached the other too, seated meanwhile at its next game on the
session it then left: a seat nobody played, its turns waiting out their timer.)

b's take-over comes as late as the test needs: a's node row is kept live (as when PostgreSQL
is slow to end its lease), so b takes a's table and not its tournament, and the listing names
a node that is gone, so b finds that the tournament's node is not live; a's row ends when b has
said that its entrants wait there."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import cluster_key, eventually, knowing, node, owned_by, play_through, query
from processes import assert_records_verify, stored_records
from test_cluster_tournament_moved import play_until_finished

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.client.identity import load_or_create_key
from sushigo.protocol import TournamentSettings, TurnStart

NAME = "home cup"
SETTINGS = TournamentSettings(name=NAME, kind="sushi-go", players=2, games=3, turn_seconds=60)


async def _back(client: Client) -> None:
    """Read the client's events until its connection is lost, then take it back (a fresh login
    on the other node, for a session in the lobby of a node that died)."""
    while True:
        try:
            await client.next_event(30)
        except ConnectionLost:
            await reconnect(client, attempts=100, delay=0.1)
            return


async def test_entrants_waiting_on_the_node_that_takes_their_tournament_over_stay(
    pg_url: str, tmp_path: Path
) -> None:
    key = cluster_key(tmp_path)
    a, b = node(pg_url, key, "a"), node(pg_url, key, "b", "--log-level", "info")
    await asyncio.gather(a.start(), b.start())
    clients: list[Client] = []
    try:
        names = ["host", "e0", "e1", "e2"]
        for name in names:
            identity = load_or_create_key(tmp_path / f"{name}.pem")
            clients.append(
                await eventually(lambda n=name, k=identity: knowing(a.port, n, 2, key=k))
            )
        host, entrants = clients[0], clients[1:]
        await host.create_tournament(SETTINGS)
        for e in entrants:
            await e.register_tournament(NAME)
        await host.start_tournament(NAME)
        turns = {asyncio.ensure_future(e.wait_for(TurnStart, 20)): e for e in entrants}
        done: set[asyncio.Future[TurnStart]] = set()
        while len(done) < 2:
            finished, _ = await asyncio.wait(set(turns) - done, return_when="FIRST_COMPLETED")
            done |= finished
        for waiting in set(turns) - done:
            waiting.cancel()
        await asyncio.wait(turns)
        players = [turns[f] for f in done]
        (lobby,) = set(entrants) - set(players)
        assert players[0].table is not None
        table_id = players[0].table.table_id
        await eventually(owned_by(pg_url, table_id, "a"))
        listed = "SELECT 1 FROM listed_tournaments WHERE name = $1 AND node = 'a'"
        await eventually(lambda: query(pg_url, listed, NAME))

        await a.kill()
        await query(
            pg_url,
            "UPDATE cluster_nodes SET lease_expires = now() + interval '1 hour' WHERE name = 'a'",
        )
        await query(pg_url, "UPDATE listed_tournaments SET node = 'gone' WHERE name = $1", NAME)
        await asyncio.wait_for(
            asyncio.gather(*(play_through(p) for p in players), _back(lobby)), 60
        )
        await b.logged(lambda log: b"no live node runs it yet; its entrants wait here" in log)
        rows = await query(pg_url, "SELECT node FROM tournaments WHERE name = $1", NAME)
        assert [r["node"] for r in rows] == ["a"]
        await query(
            pg_url,
            "UPDATE cluster_nodes SET lease_expires = now() - interval '1 second' WHERE name = 'a'",
        )

        ends = await asyncio.wait_for(
            asyncio.gather(*(play_until_finished(e) for e in entrants)), 90
        )
    finally:
        for c in clients:
            await c.close()
        await asyncio.gather(a.stop(), b.stop())

    assert b"by ticket" not in b.log, b.log.decode()
    for update in ends:
        info = update.tournament
        assert info.games_done == SETTINGS.games and info.games_running == 0
        assert sorted(s.games for s in info.standings) == [2, 2, 2]
    records, server_key = stored_records(("--db", pg_url, "--key", str(key)))
    assert len(records) == SETTINGS.games
    assert_records_verify(records, server_key)
