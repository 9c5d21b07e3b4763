"""A node's lease lapses right after a resume, on a real node and a real PostgreSQL of the test's
own (the chaos run's bot that resumed a second before its node's lease lapsed, then logged in
afresh, its seat played by a bot).

The resume's new token is a held write, and RESUMED waits until it is stored. With PostgreSQL
paused, the node's lease lapses first: it drops its tables and takes back what it had not sent,
RESUMED among it. The player still holds the old token. The held write lands once PostgreSQL is
back (the lease names this node still), so the old token must be stored for the seat after it,
or the node that takes the table up (here the same one) knows only a token nobody was told.

The moments are made, not waited for: PostgreSQL is paused at a turn, a player's connection is
cut and it resumes, the node logs the resume and then the lapse, and PostgreSQL is unpaused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from nodes import cluster_key, node
from pgcluster import own_postgresql

from sushigo.client.connection import Client, reconnect
from sushigo.client.errors import ConnectionLost, ServerError
from sushigo.protocol import TurnStart

LEASE = 3.0
"""The node's lease: PostgreSQL is paused longer, so it lapses."""


async def test_a_resume_whose_answer_a_lapse_took_back_is_taken_again(tmp_path: Path) -> None:
    async with own_postgresql() as (pg, url):
        a = node(url, cluster_key(tmp_path), "a", "--log-level", "info", lease=LEASE)
        await a.start()
        ann, bob = [
            await Client.connect("127.0.0.1", a.port, name=n, timeout=30) for n in ("ann", "bob")
        ]
        try:
            await asyncio.gather(*(c.quick_match(2, "sushi-go") for c in (ann, bob)))
            await asyncio.gather(*(c.wait_for(TurnStart, 20) for c in (ann, bob)))
            player, table, seat = ann.player_id, ann.table, ann.seat
            assert table is not None and seat is not None
            held = ann.token
            pg.pause()
            try:
                assert ann._writer is not None
                ann._writer.transport.abort()
                with pytest.raises(ConnectionLost):
                    while True:
                        await ann.next_event(10)
                resuming = asyncio.ensure_future(ann.resume())
                await a.logged(lambda log: f"resume {player} at table".encode() in log)
                await a.logged(lambda log: b"this node's lease has lapsed" in log)
            finally:
                pg.unpause()
            # Its answer was taken back: the connection is sent off, no RESUMED read.
            with pytest.raises((ConnectionLost, ServerError)):
                await asyncio.wait_for(resuming, 20)
            assert ann.token == held
            resumed = await asyncio.wait_for(reconnect(ann, delay=0.1), 60)
            # Back in its seat, the same player (not a fresh login under another guest id).
            assert resumed is not None
            assert (ann.player_id, ann.name, ann.seat) == (player, "ann", seat)
            assert ann.table is not None and ann.table.table_id == table.table_id
        finally:
            for client in (ann, bob):
                await client.close()
            await a.stop()
