"""Failover (stage 4 of the cluster issue): a node SIGKILLed mid-game, its table taken over by
the other node from PostgreSQL once its lease ends, its players back by themselves.

Three `sushigo-bot` processes and a player of ours (the client library, as the terminal client
uses it) play on node a; a is killed mid-step. Every client goes on to node b (which it learnt
of at login), b takes the table over (its lease ended: a conditional update, so only one node
could), and every seat resumes by its token. The game finishes, its record verifies, and no seat
was auto-picked: no turn was lost or played differently."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from datetime import timedelta
from pathlib import Path

import pytest
from nodes import (
    LEASE,
    cluster_key,
    eventually,
    game_begun,
    node,
    owned_by,
    query,
    records_verify,
    replayed,
    started_two,
)
from processes import (
    next_event_resuming,
    play_beside_bots,
    start_bots,
)

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.protocol import (
    GameEnded,
    Redirect,
    TurnResult,
    TurnStart,
)


async def test_sigkill_a_node_mid_game_and_the_other_takes_over(
    pg_url: str, tmp_path: Path
) -> None:
    a, b = await started_two(pg_url, tmp_path)
    bots = await start_bots(a.port, 1)
    client = await Client.connect("127.0.0.1", a.port, name="ours")
    rng = random.Random(4)
    timings: dict[str, float] = {}

    async def play() -> None:
        await client.quick_match(4, "sushi-go")
        killed = 0.0
        while True:
            event = await next_event_resuming(client, rng)
            if isinstance(event, TurnStart) and client.awaiting:
                if (event.round, event.turn) == (1, 3) and not killed:
                    await a.kill()  # mid-step: the bots have committed, we have not
                    killed = time.monotonic()
                    continue  # we pick once resumed, as the step asks again
                client.pick(rng.choice(list(client.legal_actions())))
            elif isinstance(event, TurnResult) and killed and "back" not in timings:
                timings["back"] = time.monotonic() - killed
            elif isinstance(event, GameEnded):
                timings["verdict"] = client.fairness.final == "verified"
                return

    await play_beside_bots(bots, 1, play(), client, a, b)

    print(f"failover: our player played again {timings['back']:.2f} s after the SIGKILL")
    assert client.port == b.port
    assert timings["verdict"]
    # Back within the lease and a few reconnect attempts.
    assert timings["back"] < LEASE + 5, timings

    await records_verify(pg_url, tmp_path, 1)
    assert not await query(pg_url, "SELECT 1 FROM table_leases WHERE node = 'a'")

    # sushigo-replay lists the cluster's games and verifies one with the key its nodes
    # registered (no key file here: a fresh home).
    game_id = replayed(pg_url, tmp_path).split()[0]
    assert "verified:" in replayed(pg_url, tmp_path, game_id)


async def test_a_node_paused_past_its_lease_gives_its_table_up(pg_url: str, tmp_path: Path) -> None:
    """Node a is paused (SIGSTOP) past its lease: b takes its table over. When a runs again its
    lease has lapsed (by its own clock): it drops the table before anything else, asks the
    database where it is now, and sends its player there."""
    a, b = await started_two(pg_url, tmp_path)
    client = await Client.connect("127.0.0.1", a.port, name="ann")
    try:
        table_id = await game_begun(client)
        await eventually(owned_by(pg_url, table_id, "a"))
        assert a.proc is not None
        os.kill(a.proc.pid, signal.SIGSTOP)
        try:
            await eventually(owned_by(pg_url, table_id, "b"))
        finally:
            os.kill(a.proc.pid, signal.SIGCONT)
        moved = await client.wait_for(Redirect, 10)
        assert moved.address == f"127.0.0.1:{b.port}"
        with pytest.raises(ConnectionLost):
            while True:  # SHUTTING_DOWN, then the drop
                await client.next_event(10)
        await reconnect(client, attempts=20, delay=0.1)
        assert client.port == b.port and client.awaiting
        client.pick(client.legal_actions()[0])
        await client.wait_for(TurnResult, 10)
        assert b"this node's lease has lapsed" in a.log
    finally:
        await client.close()
        await asyncio.gather(a.stop(), b.stop())


async def test_a_resume_before_the_lease_ends_is_held_not_refused(
    pg_url: str, tmp_path: Path
) -> None:
    """A player whose node died brings its resume to the other node at once, seconds before
    the dead node's lease ends: the resume is held until the table is taken up there, and
    answered RESUMED (not an error to try again: thousands of players knocking again and
    again swamp the node that has their tables to take up)."""
    key = cluster_key(tmp_path)
    lease = 3.0
    a, b = node(pg_url, key, "a", lease=lease), node(pg_url, key, "b", lease=lease)
    await a.start()
    await b.start()
    client = await Client.connect("127.0.0.1", a.port, name="ann")
    try:
        await game_begun(client)
        await a.kill()
        killed = time.monotonic()
        with pytest.raises(ConnectionLost):
            while True:
                await client.next_event(10)
        client.host, client.port = "127.0.0.1", b.port

        async def counted_dead() -> list[bool] | None:
            # Before that, b sends a's players back to a (a node late by one renewal is alive).
            # Whether a's table is free to take yet is read in the same statement (one now()):
            # the two moments are a third of a lease apart, and two statements (two connections)
            # on a loaded machine could straddle the second.
            (row,) = await query(
                pg_url,
                "SELECT n.lease_expires < now() + $1::interval, (SELECT bool_and(l.lease_expires"
                " < now()) FROM table_leases l WHERE l.node = n.name) FROM cluster_nodes n "
                "WHERE n.name = 'a'",
                timedelta(seconds=lease / 3),
            )
            return [row[1]] if row[0] else None

        (ended,) = await eventually(counted_dead)
        assert ended is False  # the resume comes before a's table is free to take
        resumed = await client.resume()  # one attempt: an error would raise
        waited = time.monotonic() - killed
        print(f"held resume: answered {waited:.2f} s after the SIGKILL (lease {lease:g} s)")
        assert resumed.snapshot is not None and waited < lease + 2
        assert client.awaiting
        client.pick(client.legal_actions()[0])
        await client.wait_for(TurnResult, 10)
    finally:
        await client.close()
        await asyncio.gather(a.stop(), b.stop())
