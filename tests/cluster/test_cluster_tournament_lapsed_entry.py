"""Requests a node takes while its lease has lapsed, for a tournament another node took over
meanwhile, on two real nodes (server/routing/tournaments.py, `stored`; server/tournaments/desk.py,
`news`).

Node a runs a tournament; one entrant (two, for the start) is in. a's renewals are then held up
(the test locks its node's row, as a database paused for longer than a lease does), so its lease
ends and b takes the tournament over, with what was stored. a, which cannot know that before its
next renewal, takes a second entry (or its host's start, asked with the one-shot
`sushigo-tournament HOST start NAME`): its write changes nothing, the row naming b. The request
is not answered as done there: a lets the tournament go, its people sent to b, and asks the
request again, which sends it to b (REDIRECT), where it is made and answered. a is then killed
(SIGKILL) right after that answer, or lives on: either way the tournament is played to its end at
b, with every entrant. (Before, a answered "entered" (or "running") for a write that went nowhere;
killed before its next renewal, nobody sent the entrant on: the tournament never filled, or never
started, at b.)"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import pytest
from nodes import cluster_key, eventually, knowing, query, tournament_command, two_nodes
from processes import assert_records_verify, stored_records
from test_cluster_tournament_moved import play_until_finished

from sushigo.client.connection import Client
from sushigo.client.identity import load_or_create_key
from sushigo.client.tournament import _follow
from sushigo.protocol import TournamentSettings, TournamentUpdate

NAME = "lapse cup"
SETTINGS = TournamentSettings(name=NAME, kind="sushi-go", players=2, games=1, turn_seconds=60)
TAKEN = "SELECT 1 FROM tournaments WHERE name = $1 AND node = 'b'"


class _Cluster:
    """Nodes a and b, the test's clients and tasks, and (once `lapse` has run) the connection
    that holds a's renewals up."""

    def __init__(self, pg_url: str, folder: Path) -> None:
        self.pg_url = pg_url
        self.folder = folder
        self.a, self.b = two_nodes(pg_url, folder, "--log-level", "info")
        self.clients: list[Client] = []
        self.tasks: list[asyncio.Future[int]] = []
        self.holder: asyncpg.Connection | None = None

    async def lapse(self) -> asyncpg.Connection:
        """Hold a's renewals up (a lock on its node's row, in the open transaction of the
        connection returned) until b has taken the tournament over."""
        self.holder = holder = await asyncpg.connect(self.pg_url)
        await holder.execute("BEGIN")
        await holder.execute("SELECT 1 FROM cluster_nodes WHERE name = 'a' FOR UPDATE")
        await eventually(lambda: query(self.pg_url, TAKEN, NAME))
        await self.b.logged(lambda log: b"took over 1 tournaments" in log)
        return holder

    def checked(self, ends: Sequence[TournamentUpdate]) -> None:
        """a let the tournament go as its write was left out, and b started it and played it to
        its end: each game stored, and each record verifies."""
        a, b = self.a, self.b
        assert b"its state was left out (another node holds it)" in a.log, a.log.decode()
        assert b"is run by another node now: let go here" in a.log, a.log.decode()
        assert f"tournament {NAME} started".encode() in b.log, b.log.decode()
        for update in ends:
            assert update.tournament.games_done == SETTINGS.games
        key = cluster_key(self.folder)
        records, server_key = stored_records(("--db", self.pg_url, "--key", str(key)))
        assert len(records) == SETTINGS.games
        assert_records_verify(records, server_key)


@asynccontextmanager
async def _two_nodes(pg_url: str, folder: Path) -> AsyncIterator[_Cluster]:
    """A `_Cluster`, its nodes started; at the end its tasks cancelled, the holding connection
    and the clients closed, and the nodes stopped."""
    cluster = _Cluster(pg_url, folder)
    await asyncio.gather(cluster.a.start(), cluster.b.start())
    try:
        yield cluster
    finally:
        for task in cluster.tasks:
            task.cancel()
        if cluster.holder is not None:
            await cluster.holder.close()
        for c in cluster.clients:
            await c.close()
        await asyncio.gather(cluster.a.stop(), cluster.b.stop())


@pytest.mark.parametrize("killed", [False, True], ids=["a-lives", "a-killed"])
async def test_an_entry_asked_past_the_lease_is_made_where_the_tournament_went(
    pg_url: str, tmp_path: Path, killed: bool
) -> None:
    async with _two_nodes(pg_url, tmp_path) as cluster:
        a, b, clients = cluster.a, cluster.b, cluster.clients
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
        cluster.tasks.append(following)
        await e0.register_tournament(NAME)  # answered once stored
        holder = await cluster.lapse()

        info = await e1.register_tournament(NAME)  # a's lease has lapsed: it cannot know
        answered_at = e1.port
        if killed:
            await a.kill()  # right after its answer: nobody is left to send e1 on
        await holder.execute("ROLLBACK")

        # At b, the tournament's node now, both are its entrants: it fills, is started by its
        # host, and is played.
        ends = await asyncio.wait_for(
            asyncio.gather(*(play_until_finished(e) for e in (e0, e1))), 60
        )
        assert await asyncio.wait_for(following, 30) == 0
        assert host.port == b.port

    # The entry was answered by b, where it was made, not by a, where it changed nothing.
    assert answered_at == b.port
    assert sorted(s.player_id for s in info.standings) == sorted([e0.player_id, e1.player_id])
    cluster.checked(ends)
    # Its host never saw two entrants at a: it started the tournament at b only.
    assert f"tournament {NAME} started".encode() not in a.log, a.log.decode()
    for update in ends:
        assert sorted(s.games for s in update.tournament.standings) == [1, 1]


async def test_a_start_asked_past_the_lease_is_made_where_the_tournament_went(
    pg_url: str, tmp_path: Path
) -> None:
    async with _two_nodes(pg_url, tmp_path) as cluster:
        a, clients = cluster.a, cluster.clients
        identity = tmp_path / "host.pem"
        host = await eventually(
            lambda: knowing(a.port, "host", 2, key=load_or_create_key(identity))
        )
        await host.create_tournament(SETTINGS)
        await host.close()
        for name in ("e0", "e1"):
            entrant = load_or_create_key(tmp_path / f"{name}.pem")
            clients.append(await eventually(lambda n=name, k=entrant: knowing(a.port, n, 2, key=k)))
            await clients[-1].register_tournament(NAME)
        holder = await cluster.lapse()

        # The one-shot command, at a: its start is made at b, and said so.
        args = ("--key", str(identity), "--name", "host", "start", NAME)
        code, said = await tournament_command(a.port, *args)
        assert code == 0 and f"{NAME}: running" in said, said
        await a.kill()  # right after its answer
        await holder.execute("ROLLBACK")

        ends = await asyncio.wait_for(
            asyncio.gather(*(play_until_finished(e) for e in clients)), 60
        )

    cluster.checked(ends)
