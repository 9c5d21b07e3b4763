"""An unasked REDIRECT whose node refuses the ticket, on real nodes: the client library comes
back to the node it came from, takes its session back there by its token, and goes on.

Node a runs a tournament and holds two idle tables, node b none, so a places its games at b.
The `sushigo-bot` entrant is stopped (SIGSTOP) before the tournament starts: a sends it to b
with its game's ticket, and while it sleeps b seats the default bot in its place (a lease on)
and begins the game with the other entrant, held at its first turn there. Woken (SIGCONT), the
bot follows its REDIRECT at last, and b refuses the ticket (the game began without it). Before,
`sushigo-bot` ended there with an error; now it logs the refusal in one line, is back at a as
the same entrant, plays the next game, hears the tournament finish and exits 0.

A REDIRECT the client asked for (JOIN_TABLE for a table of b) refused the same way (the table
closed before the client got there): the request fails with b's reason, and the client is back
at a, the same session, logged in (before, it was left on a connection to b that was never
logged in)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from pathlib import Path

from nodes import cluster_key, eventually, knowing, node, query, replayed, two_nodes
from processes import bots_output, stop_bots
from test_cluster_tournament import NAME, entrant
from test_cluster_tournament_faults import held
from test_cluster_tournament_spread import loaded

from sushigo import protocol
from sushigo.client.bot import GameResult, Strategies, play_tournament
from sushigo.client.connection import Client, ServerError

GAMES = 2


async def test_a_refused_redirect_brings_the_bot_back_to_its_tournament(
    pg_url: str, tmp_path: Path
) -> None:
    key = cluster_key(tmp_path)
    a, b = node(pg_url, key, "a", "--log-level", "info"), node(pg_url, key, "b")
    clients: list[Client] = []
    bots: list[asyncio.subprocess.Process] = []
    tasks: list[asyncio.Task[list[GameResult]]] = []
    stopped = False
    try:
        host = await loaded(a, b, clients)
        settings = protocol.TournamentSettings(name=NAME, kind="sushi-go", players=2, games=GAMES)
        await host.create_tournament(settings)

        async def entrants(count: int) -> bool:
            return len((await host.watch_tournament(NAME)).standings) == count

        bots.append(await entrant(a.port, 0))
        await eventually(lambda: entrants(1))
        bot = bots[0]
        os.kill(bot.pid, signal.SIGSTOP)  # its placement's REDIRECT waits unread
        stopped = True

        go = asyncio.Event()
        bob = await held(a.port, "bob", b.port, go, redirect=False)  # held at its turn at b
        clients.append(bob)
        tasks.append(
            asyncio.create_task(play_tournament(bob, NAME, Strategies("random"), random.Random(1)))
        )
        await eventually(lambda: entrants(2))
        await host.start_tournament(NAME)
        await asyncio.wait_for(bob.waiting.wait(), 20)  # b began the game: a bot in bot0's seat
        assert bob.port == b.port

        mark = len(a.log)
        os.kill(bot.pid, signal.SIGCONT)  # it follows now, and b refuses its ticket
        stopped = False

        async def back() -> bool:  # bot0's session at a taken back by its token
            return b"resume " in a.log[mark:]

        await eventually(back, timeout=20)
        go.set()

        (output,) = await bots_output(bots, timeout=60)
        assert bot.returncode == 0, output
        assert "was refused" in output and "game has begun already" in output, output
        assert f"tournament {NAME!r} finished" in output, output
        assert output.count("fairness verified") == GAMES - 1, output  # its first game: a bot's
        played = await asyncio.wait_for(tasks[0], 30)
        assert len(played) == GAMES and all(r.verified for r in played), played

        final = await host.watch_tournament(NAME)
        while final.status is not protocol.TournamentStatus.FINISHED:
            final = (await host.wait_for(protocol.TournamentUpdate, timeout=10)).tournament
        assert final.games_done == GAMES and final.games_running == 0
        assert sorted((s.name, s.games) for s in final.standings) == [
            ("bob", GAMES),
            ("bot0", GAMES),
        ]
        records = await query(pg_url, "SELECT game_id, table_id FROM records")
        assert len(records) == GAMES
        for row in records:
            assert "verified:" in replayed(pg_url, tmp_path, row["game_id"])
    finally:
        if stopped:
            for process in bots:
                os.kill(process.pid, signal.SIGCONT)
        for task in tasks:
            task.cancel()
        await stop_bots(bots)
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())


class Slow(Client):
    """A client that follows a redirect only once `go` is set (`waiting` set meanwhile)."""

    go: asyncio.Event
    waiting: asyncio.Event

    async def follow(self, redirect: protocol.Redirect) -> None:
        self.waiting.set()
        await self.go.wait()
        await super().follow(redirect)


async def test_a_refused_redirect_asked_for_leaves_the_client_where_it_was(
    pg_url: str, tmp_path: Path
) -> None:
    a, b = two_nodes(pg_url, tmp_path)
    clients: list[Client] = []
    try:
        await asyncio.gather(a.start(), b.start())

        host = await eventually(lambda: knowing(b.port, "host", 2))
        clients.append(host)
        joined = await host.create_table(protocol.TableSettings(kind="sushi-go", players=2))
        assert host.port == b.port  # (both nodes empty: b keeps it)
        table_id = joined.table.table_id
        slow = await Slow.connect("127.0.0.1", a.port, name="slow")
        slow.go, slow.waiting = asyncio.Event(), asyncio.Event()
        clients.append(slow)
        me, token = slow.player_id, slow.token

        join = asyncio.create_task(slow.join_table(table_id))
        await asyncio.wait_for(slow.waiting.wait(), 10)  # a sent it to b, with a ticket
        await host.leave()  # the table closes: b no longer takes tickets for it
        slow.go.set()
        try:
            await asyncio.wait_for(join, 20)
        except ServerError as exc:
            assert exc.code is protocol.ErrorCode.UNKNOWN_SESSION and "not on this node" in str(exc)
        else:
            raise AssertionError("b took a ticket for a table it no longer has")
        assert slow.connected and slow.port == a.port and slow.player_id == me
        assert slow.stayed is not None and slow.stayed.table_id == table_id
        assert slow.token != token  # the session taken back (a resume rotates the token)
        await slow.list_tables()  # logged in at a, as before
    finally:
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())
