"""A tournament's game whose table another node takes up while the tournament stays home, on
real nodes: node a runs the tournament and plays its first game; a is paused past its table's
lease while its node row stays live (as when PostgreSQL is away and a node renews its own lease
before another takes its tables), so b takes the table up but not the tournament. Woken, a finds
the table b's and drops it; its entrants play the game to its end on b and go home, a reads the
game's result from its record, seats the next game, and the tournament finishes (before, a
waited for the game's end at a table it no longer had, and the tournament never finished)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from nodes import eventually, owned_by, query, two_nodes

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.client.identity import load_or_create_key
from sushigo.protocol import TournamentSettings, TournamentStatus, TournamentUpdate, TurnStart

NAME = "moved cup"
SETTINGS = TournamentSettings(name=NAME, kind="sushi-go", players=2, games=2, turn_seconds=60)


async def play_until_finished(client: Client) -> TournamentUpdate:
    """Play every game the tournament seats `client` at (its first legal action each time),
    taking the session back whenever the connection drops, until the tournament finishes."""
    while True:
        try:
            if client.awaiting:
                client.pick(client.legal_actions()[0])
            event = await client.next_event(30)
        except ConnectionLost:
            await reconnect(client, attempts=100, delay=0.1)
            continue
        if (
            isinstance(event, TournamentUpdate)
            and event.tournament.status is TournamentStatus.FINISHED
        ):
            return event


async def test_a_game_taken_up_by_another_node_counts_at_home(pg_url: str, tmp_path: Path) -> None:
    a, b = two_nodes(pg_url, tmp_path)
    await asyncio.gather(a.start(), b.start())
    clients: list[Client] = []
    paused = False
    try:
        host = await Client.connect(
            "127.0.0.1", a.port, name="host", key=load_or_create_key(tmp_path / "host.pem")
        )
        clients.append(host)
        await host.create_tournament(SETTINGS)
        entrants = [
            await Client.connect(
                "127.0.0.1", a.port, name=f"e{i}", key=load_or_create_key(tmp_path / f"e{i}.pem")
            )
            for i in range(2)
        ]
        clients += entrants
        for e in entrants:
            await e.register_tournament(NAME)
        await host.start_tournament(NAME)
        for e in entrants:
            await e.wait_for(TurnStart, 20)
        table = entrants[0].table
        assert table is not None
        table_id = table.table_id
        await eventually(owned_by(pg_url, table_id, "a"))

        assert a.proc is not None
        os.kill(a.proc.pid, signal.SIGSTOP)
        paused = True
        # a's node row stays live: b takes its table's lapsed lease, not its tournament.
        await query(
            pg_url,
            "UPDATE cluster_nodes SET lease_expires = now() + interval '1 hour' WHERE name = 'a'",
        )
        await eventually(owned_by(pg_url, table_id, "b"), 20)
        rows = await query(pg_url, "SELECT node FROM tournaments WHERE name = $1", NAME)
        assert [r["node"] for r in rows] == ["a"]
        os.kill(a.proc.pid, signal.SIGCONT)
        paused = False

        finished = await asyncio.wait_for(
            asyncio.gather(*(play_until_finished(e) for e in entrants)), 90
        )
        for update in finished:
            info = update.tournament
            assert info.games_done == SETTINGS.games and info.games_running == 0
            assert sorted(s.games for s in info.standings) == [SETTINGS.games] * 2
        records = await query(pg_url, "SELECT table_id FROM records")
        assert table_id in {r["table_id"] for r in records}
        assert len(records) == SETTINGS.games
    finally:
        if paused and a.proc is not None:
            os.kill(a.proc.pid, signal.SIGCONT)
        for c in clients:
            await c.close()
        await asyncio.gather(a.stop(), b.stop())
