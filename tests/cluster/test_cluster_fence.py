"""Writes fenced by the lease (server/storage/postgres/fence.py): a node that lost a table's lease
cannot commit that table's writes, checked in the commit's own transaction.

First two storages of two nodes on one database, then a real node paused past its lease with a
move waiting in its socket: woken, it drops the table (its lease has lapsed, by its own clock)
before it reads the move, so the fence, there for what slips through, has nothing to leave
out."""

from __future__ import annotations

import asyncio
import os
import signal
from datetime import timedelta
from pathlib import Path

import asyncpg
from nodes import eventually, game_begun, owned_by, query, records_verify, started_two

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.protocol import (
    GameEnded,
    TurnStart,
)
from sushigo.server.storage.postgres.storage import PgStorage

LEASE = timedelta(seconds=30)


def test_a_commit_leaves_out_the_writes_of_a_table_another_node_holds(pg_url: str) -> None:
    with (
        PgStorage(pg_url, write_behind=True) as a,
        PgStorage(pg_url, write_behind=True) as b,
    ):
        a.fence, b.fence = ("a", LEASE), ("b", LEASE)
        a.lease_table("t-fence")  # a new table: leased in the commit of its first writes
        a.save_table("t-fence", b"head0", [b"turn0"])
        a.save_token(b"h" * 32, "t-fence", 0, 1)
        a.flush(wait=True)
        assert a.take_fenced() == set()
        # b takes the table over, as from a node whose lease ended.
        asyncio.run(query(pg_url, "UPDATE table_leases SET node = 'b' WHERE table_id = 't-fence'"))
        a.append_turns("t-fence", 1, [b"late"], b"head-late")
        a.save_token(b"i" * 32, "t-fence", 1, 1)
        a.delete_token(b"h" * 32)  # the seat b holds now: its token stays
        a.rate_game("sushi-go", ["p1", "p2"], lambda old: [(1.0, 1.0)] * 2, "t-fence")
        a.flush(wait=True)
        assert a.take_fenced() == {"t-fence"}
        assert a.take_fenced() == set()
        b.append_turns("t-fence", 1, [b"b's"], b"head-b")  # the holder writes on
        b.flush(wait=True)
        assert b.take_fenced() == set()
        heads = asyncio.run(
            query(pg_url, "SELECT state FROM tables_in_progress WHERE table_id = 't-fence'")
        )
        turns = asyncio.run(
            query(pg_url, "SELECT value FROM table_turns WHERE table_id = 't-fence' ORDER BY n")
        )
        tokens = asyncio.run(query(pg_url, "SELECT seat FROM tokens WHERE table_id = 't-fence'"))
        assert [bytes(r[0]) for r in heads] == [b"head-b"]
        assert [bytes(r[0]) for r in turns] == [b"turn0", b"b's"]
        assert [r[0] for r in tokens] == [0]
        # A table whose lease is gone (its game ended on b, which gave the lease up) is not
        # brought back by a's late writes either.
        asyncio.run(query(pg_url, "DELETE FROM table_leases WHERE table_id = 't-fence'"))
        a.append_turns("t-fence", 2, [b"zombie"])
        a.flush(wait=True)
        assert a.take_fenced() == {"t-fence"}
        turns = asyncio.run(
            query(pg_url, "SELECT count(*) FROM table_turns WHERE table_id = 't-fence'")
        )
        assert turns[0][0] == 2
        b.delete_table("t-fence")


async def _renewed(url: str, name: str) -> None:
    """Return once node `name` has renewed its lease (after this was called)."""
    ends = "SELECT lease_expires FROM cluster_nodes WHERE name = $1"
    (before,) = await query(url, ends, name)

    async def later() -> bool:
        (now,) = await query(url, ends, name)
        return bool(now[0] > before[0])

    await eventually(later)


async def test_a_paused_node_woken_past_its_lease_plays_nothing(
    pg_url: str, tmp_path: Path
) -> None:
    """Node a is paused (SIGSTOP) with our pick waiting in its socket; b takes the table over.
    a is woken (SIGCONT) while its renewal is held up (the test locks its row), so no renewal
    can tell it the table is gone: its lease has lapsed by its own clock, so it drops the table
    before it reads the pick (nothing of it is played, and no commit of it is even tried for
    the fence to leave out), and before it hears of any commit's fence (writes it had under way
    as it was paused, left out once b holds the table: the storage's answers look at the lease
    first too); our player is sent to b (an unasked REDIRECT) and goes on there from the step
    it was in. a is paused just after a renewal of its own, so its lease lapses in the pause,
    not before it (a renewal held up on a loaded machine)."""
    a, b = await started_two(pg_url, tmp_path)
    client = await Client.connect("127.0.0.1", a.port, name="ann")
    holder = None
    try:
        table_id = await game_begun(client)
        await eventually(owned_by(pg_url, table_id, "a"))
        hand = list(client.legal_actions())
        assert a.proc is not None
        await _renewed(pg_url, "a")
        lapses = a.log.count(b"this node's lease has lapsed")
        os.kill(a.proc.pid, signal.SIGSTOP)
        try:
            client.pick(hand[0])  # waits in a's socket
            await eventually(owned_by(pg_url, table_id, "b"))
            holder = await asyncpg.connect(pg_url)
            await holder.execute("BEGIN")
            await holder.execute("SELECT 1 FROM cluster_nodes WHERE name = 'a' FOR UPDATE")
        finally:
            os.kill(a.proc.pid, signal.SIGCONT)

        async def dropped() -> bool:  # (this pause's lapse)
            return a.log.count(b"this node's lease has lapsed") > lapses

        await eventually(dropped)
        await holder.execute("ROLLBACK")
        while True:  # REDIRECT, SHUTTING_DOWN, then the drop; nothing a played after waking
            try:
                event = await client.next_event(10)
            except ConnectionLost:
                break
            assert not isinstance(event, TurnStart), event
        # Sent to b, in sequence (what a showed after waking taken back, never sent).
        assert client.moved is not None and client.moved.address == f"127.0.0.1:{b.port}"
        await reconnect(client, attempts=20, delay=0.1)
        # At b, in the step it was in (a's writes of it never landed): the client library
        # brings its pick again, as after any resume mid-step.
        assert client.port == b.port
        while True:
            if client.awaiting:
                client.pick(client.legal_actions()[0])
            event = await client.next_event(10)
            if isinstance(event, GameEnded):
                break
        assert client.fairness.final == "verified"
        assert b"fenced by its lease" not in a.log, a.log.decode()
    finally:
        if holder is not None:
            await holder.close()
        await client.close()
        await asyncio.gather(a.stop(), b.stop())
    await records_verify(pg_url, tmp_path, 1)


def test_a_commit_says_which_tournaments_it_left_out(pg_url: str) -> None:
    """A tournament's state is written only where its row names the node: a commit says which
    it left out (another node took them over), with how far it made the writes durable, so that
    nothing it left out is told as done (server/routing/tournaments.py, `stored`)."""
    with PgStorage(pg_url, write_behind=True) as a:
        a.fence = ("a", LEASE)
        a.save_tournament("cup-kept", b"k0")
        a.save_tournament("cup-taken", b"t0")
        a.flush(wait=True)
        a.save_tournament("cup-kept", b"k1")
        a.flush(wait=True)
        # Two commits that left nothing out say no more than the last.
        assert a.take_tournament_commits() == [(a.mark, frozenset())]
        asyncio.run(query(pg_url, "UPDATE tournaments SET node = 'b' WHERE name = 'cup-taken'"))
        a.save_tournament("cup-taken", b"t-late")
        a.save_tournament("cup-kept", b"k2")
        a.flush(wait=True)
        taken = a.mark
        a.save_tournament("cup-kept", b"k3")
        a.flush(wait=True)
        assert a.take_tournament_commits() == [
            (taken, frozenset({"cup-taken"})),
            (a.mark, frozenset()),
        ]
        assert a.take_tournament_commits() == []
    rows = asyncio.run(query(pg_url, "SELECT name, state FROM tournaments ORDER BY name"))
    assert [(r[0], bytes(r[1])) for r in rows] == [("cup-kept", b"k3"), ("cup-taken", b"t0")]
