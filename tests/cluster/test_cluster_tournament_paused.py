"""A tournament's home node paused (SIGSTOP) past its lease mid-tournament, on real nodes: node b
takes the tournament over (its row in PostgreSQL names b now) and runs it on; a, woken
(SIGCONT), learns at its next renewal that the tournament is b's, seats no further game of it
(before that renewal its desk seats nothing: its lease is in doubt), and sends the tournament's
people it still has to b. The tournament finishes once, on b: each game has one record, and
every record verifies with the cluster's key."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from pathlib import Path

from nodes import cluster_key, eventually, node, query, replayed
from processes import bots_output, stop_bots
from test_cluster_tournament import NAME, entrant
from test_cluster_tournament_spread import loaded

from sushigo.client.connection import Client
from sushigo.protocol import TournamentSettings

GAMES = 3


async def test_a_paused_home_node_lets_its_tournament_go(pg_url: str, tmp_path: Path) -> None:
    key = cluster_key(tmp_path)
    # a at info: the games it seats are logged. Loaded (two idle tables), so it places its
    # games at b.
    a, b = (
        node(pg_url, key, "a", "--log-level", "info"),
        node(pg_url, key, "b", "--log-level", "info"),
    )
    clients: list[Client] = []
    bots: list[asyncio.subprocess.Process] = []
    paused = False
    try:
        host = await loaded(a, b, clients)
        # Turns of a second: a game b seats for entrants whose sessions there are away (they were
        # sent to a as their first game ended, and come back by a's redirect) is played by its
        # timer.
        settings = TournamentSettings(
            name=NAME, kind="sushi-go", players=2, games=GAMES, turn_seconds=1
        )
        await host.create_tournament(settings)
        bots += [await entrant(a.port, i) for i in range(2)]

        async def entered() -> bool:
            return len((await host.watch_tournament(NAME)).standings) == 2

        await eventually(entered)
        await host.start_tournament(NAME)

        async def playing_at_b() -> bool:  # its first game: b made its table (a claim)
            rows = await query(pg_url, "SELECT 1 FROM table_leases WHERE node = 'b'")
            return b"placed on b" in a.log and bool(rows)

        await eventually(playing_at_b)
        assert a.proc is not None
        os.kill(a.proc.pid, signal.SIGSTOP)
        paused = True

        async def taken() -> bool:
            rows = await query(pg_url, "SELECT node FROM tournaments WHERE name = $1", NAME)
            return [r[0] for r in rows] == ["b"]

        await eventually(taken, timeout=20)
        mark = len(a.log)
        os.kill(a.proc.pid, signal.SIGCONT)
        paused = False

        for output in await bots_output(bots, timeout=90):
            assert f"tournament {NAME!r} finished" in output, output
        assert all(bot.returncode == 0 for bot in bots)

        async def let_go() -> bool:
            return b"is run by another node now: let go here" in a.log

        await eventually(let_go)
        after = a.log[mark:].decode()
        assert not re.search(
            rf"tournament {re.escape(NAME)}: game (\d+ at table|at table \w+ placed)", after
        )
    finally:
        if paused and a.proc is not None:
            os.kill(a.proc.pid, signal.SIGCONT)
        await stop_bots(bots)
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())

    done = await query(pg_url, "SELECT table_id, count(*) AS n FROM records GROUP BY table_id")
    assert len(done) == GAMES and all(r["n"] == 1 for r in done), done
    rows = await query(pg_url, "SELECT node FROM tournaments WHERE name = $1", NAME)
    assert [r[0] for r in rows] == ["b"]
    for row in await query(pg_url, "SELECT game_id FROM records"):
        assert "verified:" in replayed(pg_url, tmp_path, row["game_id"])
