"""A placed game taken back by the node it was placed on, as its entrant arrives there, on real
nodes: how one session came to be seated twice at one table ("you hold seat 0 ... already").

Node a runs a tournament and places its game at b; both entrants hold their REDIRECT there.
a dies (SIGKILL), and b takes the tournament over: the game counts as running at a table that
nobody made, so b takes it back (`tournament_spread._take_back`: it opens the table and claims
it). Then ann follows her REDIRECT to b: her ticket's table is open there, so she is logged in
and arrives (`arrive`: a claim of the same table). The test holds both claims in PostgreSQL (an
uncommitted row of that table's lease, which each claim's insert waits for) until both are
asked, then lets them go, the one to be answered second cancelled first (its node asks again a
moment later, as after any error of the database). Both win (the lease is b's). Before:

- the arrival's answer first: ann sat in her seat, then the take-back seated every entrant
  connected to b, ann again ("you hold seat 0 ... already"), left the table unstarted and its
  game another node's, so its end was never counted: the tournament never finished;
- the take-back's first: ann was seated (a bot for bob) and the game begun, then her arrival's
  answer found it begun "without her" and sent her home, off her seat, in mid-game, and her
  client waited for that game's end for ever.

Now the take-back keeps the seats taken and seats the others (`TournamentDesk.taken_back`), the
arrival seated meanwhile stays, and the game is b's tournament's own: ann plays it as herself,
the tournament finishes with its one record, which verifies."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import asyncpg
import pytest
from nodes import cluster_key, eventually, node, query, replayed
from test_cluster_tournament import NAME
from test_cluster_tournament_faults import held
from test_cluster_tournament_spread import loaded

from sushigo.client.bot import GameResult, Strategies, play_tournament
from sushigo.client.connection import Client
from sushigo.protocol import TournamentSettings


@pytest.mark.parametrize("first", ["arrival", "take-back"])
async def test_a_game_taken_back_as_its_entrant_arrives_seats_it_once(
    pg_url: str, tmp_path: Path, first: str
) -> None:
    key = cluster_key(tmp_path)
    a, b = node(pg_url, key, "a"), node(pg_url, key, "b", "--log-level", "info")
    clients: list[Client] = []
    tasks: list[asyncio.Task[list[GameResult]]] = []
    lock: asyncpg.Connection | None = None
    try:
        host = await loaded(a, b, clients)
        settings = TournamentSettings(name=NAME, kind="sushi-go", players=2, games=1)
        await host.create_tournament(settings)
        goes = {n: asyncio.Event() for n in ("ann", "bob")}
        ann, bob = [await held(a.port, n, b.port, goes[n], redirect=True) for n in goes]
        clients += [ann, bob]
        tasks += [
            asyncio.create_task(play_tournament(c, NAME, Strategies("random"), random.Random(i)))
            for i, c in enumerate((ann, bob))
        ]

        async def entered() -> bool:
            return len((await host.watch_tournament(NAME)).standings) == 2

        await eventually(entered)
        await host.start_tournament(NAME)
        await asyncio.wait_for(asyncio.gather(ann.waiting.wait(), bob.waiting.wait()), 20)
        placed = ann.kept[0].table_id

        # Every claim of the placed table's lease waits until the test lets it go.
        lock = await asyncpg.connect(pg_url)
        hold = lock.transaction()
        await hold.start()
        await lock.execute(
            "INSERT INTO table_leases (table_id, node, lease_expires) "
            "VALUES ($1, 'b', now() + interval '1 hour')",
            placed,
        )

        async def claims(count: int) -> bool:
            rows = await query(
                pg_url,
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND query LIKE 'INSERT INTO table_leases%'",
            )
            return bool(rows[0][0] == count)

        await a.kill()  # b takes its tournament over, and the game nobody made back
        await eventually(lambda: claims(1), timeout=20)
        goes["ann"].set()  # ann arrives at b: the take-back's table is open there
        await eventually(lambda: claims(2))
        waiting = await query(
            pg_url,
            "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND query LIKE 'INSERT INTO table_leases%' ORDER BY query_start",
        )
        take_back, arrival = (r["pid"] for r in waiting)
        second = take_back if first == "arrival" else arrival
        await query(pg_url, "SELECT pg_cancel_backend($1)", second)  # asked again in a moment
        await hold.rollback()  # the claims answered: b's

        (played,) = await asyncio.wait_for(tasks[0], 30)  # ann's game, as herself
        assert played.verified, played
        assert b"you hold seat" not in b.log and b"begun without it" not in b.log, b.log
        records = await query(pg_url, "SELECT game_id, table_id FROM records")
        assert [r["table_id"] for r in records] == [placed]
        assert "verified:" in replayed(pg_url, tmp_path, records[0]["game_id"])
        rows = await query(pg_url, "SELECT node FROM tournaments WHERE name = $1", NAME)
        assert [r[0] for r in rows] == ["b"]
    finally:
        if lock is not None:
            await lock.close()
        for task in tasks:
            task.cancel()
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())
