"""A resume answered while the node's PostgreSQL is paused, on a real node and a real PostgreSQL
of the test's own (the chaos run's "SIGSTOP PostgreSQL for 14 s" after which guest bots logged in
afresh and their quick-match seats were played by the server).

A node sends RESUMED only once the new resume token is stored. With the database paused that
takes longer than the client's timeout: the client gives the connection up and asks again with
the token it holds, the old one. The node must take that one back (the resume it answered never
reached the player), not say UNKNOWN_SESSION, which sends the client to a fresh login and leaves
its seat to be auto-picked. And a token once it did reach the player is single-use, as ever.

The moments are made, not waited for: PostgreSQL is paused at a turn, a player's connection is
cut, its first resume goes unanswered within its timeout (the client closes that connection at
once), then PostgreSQL is unpaused, and the player resumes once the node stored its seat's
token again."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from nodes import cluster_key, eventually, node, query
from pgcluster import own_postgresql

from sushigo.bots import get_strategy
from sushigo.client.bot import play_game
from sushigo.client.connection import Client, reconnect
from sushigo.client.errors import ConnectionLost, ResumeUnanswered, ServerError
from sushigo.protocol import (
    ErrorCode,
    SignedRecord,
    TurnStart,
    verify_record,
    verify_signed_record,
)
from sushigo.server.sessions.session import token_hash

LEASE = 60.0
"""Far longer than the pause: the node keeps its table, and this test is about the resume."""
TIMEOUT = 2.0
"""The clients' timeout: the resume made while PostgreSQL is paused goes unanswered within it."""


async def _cut(client: Client) -> None:
    """Break the client's connection (no goodbye) and read up to the drop."""
    assert client._writer is not None
    client._writer.transport.abort()
    await _dropped(client)


async def _dropped(client: Client) -> None:
    """Read the client's events up to the drop of its connection."""
    with pytest.raises(ConnectionLost):
        while True:
            await client.next_event(10)


async def test_a_resume_answered_late_is_taken_again_with_the_token_held(
    tmp_path: Path,
) -> None:
    strategy = get_strategy("random", game="sushi-go")
    async with own_postgresql() as (pg, url):
        a = node(url, cluster_key(tmp_path), "a", "--log-level", "info", lease=LEASE)
        await a.start()
        ann, bob = [
            await Client.connect("127.0.0.1", a.port, name=n, timeout=TIMEOUT)
            for n in ("ann", "bob")
        ]
        try:
            await asyncio.gather(*(c.quick_match(2, "sushi-go") for c in (ann, bob)))
            await asyncio.gather(*(c.wait_for(TurnStart, 20) for c in (ann, bob)))
            player, table, seat = ann.player_id, ann.table, ann.seat
            assert table is not None and seat is not None
            pg.pause()
            try:
                await _cut(ann)
                with pytest.raises(ResumeUnanswered, match="no answer to resume"):
                    await ann.resume()
                held = ann.token
                await a.logged(lambda log: b"a resume of " + player.encode() + b" undone" in log)
            finally:
                pg.unpause()
            # The client closed that connection as it gave up, before the answer could go out
            # (the node said so): the node stores the token the player holds for its seat again.
            seat_token = "SELECT token_hash FROM tokens WHERE table_id = $1 AND seat = $2"

            async def stored_again() -> bool:
                rows = await query(url, seat_token, table.table_id, seat)
                return [bytes(r[0]) for r in rows] == [token_hash(held)]

            await eventually(stored_again, 30)
            resumed = await asyncio.wait_for(reconnect(ann, delay=0.1), 60)
            # Back in its seat, the same player (not a fresh login under another guest id).
            assert resumed is not None
            assert (ann.player_id, ann.name, ann.seat) == (player, "ann", seat)
            assert ann.table is not None and ann.table.table_id == table.table_id
            for client in (ann, bob):  # the first turn's picks (its TURN_START read already)
                if client.awaiting:
                    client.pick(random.Random(0).choice(list(client.legal_actions())))
            # The token that reached the player is now spent: the old one leads nowhere.
            stale = Client("127.0.0.1", a.port, name="thief", timeout=10)
            stale.token = held
            try:
                with pytest.raises(ServerError) as refused:
                    await stale.resume()
                assert refused.value.code is ErrorCode.UNKNOWN_SESSION
            finally:
                await stale.close()
            results = await asyncio.wait_for(
                asyncio.gather(
                    *(play_game(c, strategy, random.Random(i)) for i, c in enumerate((ann, bob)))
                ),
                120,
            )
        finally:
            for client in (ann, bob):
                await client.close()
            await a.stop()
        records = await query(url, "SELECT record, signature, server_key FROM records")
    for result in results:
        assert result is not None and result.verified and not result.unseen, result
    # One game, every pick its player's own (none made for a player away).
    assert len(records) == 1
    record, signature, key = records[0]
    signed = SignedRecord(record=bytes(record), signature=bytes(signature), server_key=key)
    report = verify_record(verify_signed_record(signed, bytes(key)))
    assert report.ok and not report.auto_picks, report


async def test_a_fresh_login_answered_late_is_asked_again(tmp_path: Path) -> None:
    """A session the node lost (it restarted: a lobby's sessions are not stored) is logged in
    afresh; with PostgreSQL paused as it does, the login's answer waits longer than the client's
    timeout (its name is looked up and stored first). The client asks again rather than give up
    (the chaos run's tournament host exited 1 so). PostgreSQL is paused as the fresh login
    begins, and unpaused as the second begins."""
    async with own_postgresql() as (pg, url):
        a = node(url, cluster_key(tmp_path), "a", lease=LEASE)
        await a.start()

        class Knocking(Client):
            logins = 0

            async def _login(self) -> None:
                self.logins += 1
                if self.logins == 2:
                    pg.pause()
                elif self.logins == 3:
                    pg.unpause()
                await super()._login()

        ann = await Knocking.connect("127.0.0.1", a.port, name="ann", timeout=TIMEOUT)
        try:
            await a.restart()
            await _dropped(ann)
            try:
                resumed = await asyncio.wait_for(reconnect(ann, delay=0.1), 60)
            finally:
                pg.unpause()
            assert resumed is None  # a fresh login: the node no longer knew the session
            assert ann.logins == 3, ann.logins
            assert ann.name == "ann" and ann.connected
            assert await ann.list_tables() == ()
        finally:
            await ann.close()
            await a.stop()
