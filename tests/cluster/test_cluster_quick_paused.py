"""A quick match asked while the node's PostgreSQL is paused, on a real node and a real
PostgreSQL of the test's own (the chaos run's "SIGSTOP PostgreSQL for 13.4 s" that came as a
wave of bots asked for their second game).

The node seats the players at once and their game begins, but it sends nothing that is not
stored yet: the answers wait for the database, longer than the client's timeout. The library
waits for them (one line saying so) rather than ask again, which would make the same request
twice; the node's lease then lapses, it drops the table (its people are sent off), and once
PostgreSQL is back the players take their sessions back into that game, at the one table they
were seated at, and play it out. (Before: the quick match was asked again on every timeout;
after the resume the messages of the dropped connection, read after it, moved the library's
view to no table and no seat, and the bots' first pick of the game asserted.)

The moments are made, not waited for: PostgreSQL is paused once the first games are over and
before the second quick matches are asked, and unpaused once the node logged its lapse."""

from __future__ import annotations

import asyncio
import logging
import random
from pathlib import Path

import pytest
from nodes import cluster_key, node, query
from pgcluster import own_postgresql

from sushigo.bots import get_strategy
from sushigo.client.bot import play_one
from sushigo.client.connection import Client

LEASE = 24.0
"""The node's lease: its lapse comes 16 to 24 s after PostgreSQL is paused (a renewal every
third of it), well after the clients' timeout (the library's 10 s), however loaded the
machine. (A shorter timeout would make a resume late on a loaded machine as well, which is not
what this test is about.)"""
NAMES = ("ann", "bob")


async def test_a_quick_match_answered_late_seats_its_players_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="sushigo.client")
    strategy = get_strategy("random", game="sushi-go")
    async with own_postgresql() as (pg, url):
        a = node(url, cluster_key(tmp_path), "a", "--log-level", "info", lease=LEASE)
        await a.start()
        people = [await Client.connect("127.0.0.1", a.port, name=n) for n in NAMES]
        try:
            firsts = await asyncio.gather(
                *(
                    play_one(c, strategy, random.Random(i), 2, "sushi-go")
                    for i, c in enumerate(people)
                )
            )
            pg.pause()
            try:
                seconds = asyncio.gather(
                    *(
                        play_one(c, strategy, random.Random(i), 2, "sushi-go")
                        for i, c in enumerate(people)
                    )
                )
                await a.logged(lambda log: b"this node's lease has lapsed" in log, 60)
            finally:
                pg.unpause()
            results = await asyncio.wait_for(seconds, 90)
        finally:
            for client in people:
                await client.close()
            await a.stop()
        records = await query(url, "SELECT record FROM records")
    # The path this test is about was taken: an answer came late, and was waited for.
    seen = f"{caplog.text}\nthe node's log:\n{a.log.decode(errors='replace')}"
    assert "no answer to quick_match" in caplog.text, seen
    assert "still waiting for it" in caplog.text, seen
    assert "asking again" not in caplog.text, seen
    # Each played both games, the second at one table: two games in all, each player at both.
    for first, second in zip(firsts, results, strict=True):
        assert first.verified and second.verified, (first, second)
        assert first.players == second.players == 2
    starts = [line for line in a.log.splitlines() if b"a game of sushi-go starts" in line]
    assert len(starts) == 2, starts
    for client in people:
        assert sum(client.player_id.encode() in line for line in starts) == 2, starts
    assert len(records) == 2
