"""A cluster whose PostgreSQL goes away, or whose node loses its lease, on real nodes and a real
PostgreSQL of the test's own: no node lingers serving what it no longer owns.

- PostgreSQL stopped ("fast": every connection cut) for seven seconds under load, then started
  again: every node says it is not ready while it cannot reach the database (one whose table
  waits for a move too), its renewals go on once it is back (a renewal that fails, whatever it
  raises, is tried again), the games paused meanwhile go on (a lease of 15 s outlasts it), and
  every line the nodes wrote is in their log format (asyncpg's own warnings included).
- PostgreSQL paused (SIGSTOP: its connections answer nothing) past the nodes' lease: a node whose
  lease lapses by its own clock drops its tables before anyone can play there, says it is not
  ready, and its player resumes the game once PostgreSQL is back, with nothing played meanwhile.
  Paused for less than a lease, it is a database the node cannot reach: not ready within seconds.
- A node paused past its lease, its player gone meanwhile: woken, it drops the table, and its
  sessions gauge counts nobody (it went negative: the dropped session stayed counted as away).
- A node whose row is deleted from the cluster stops with exit code 1 rather than linger.
- A node stopped (SIGTERM) while PostgreSQL answers nothing exits within seconds (code 1, saying
  what it could not save): it waited for the database for ever.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from nodes import (
    cluster_key,
    eventually,
    game_begun,
    metric,
    node,
    owned_by,
    query,
    ready,
    unformatted,
)
from pgcluster import own_postgresql
from processes import (
    assert_bots_played,
    assert_records_verify,
    bots_output,
    http_get,
    start_bots,
    stop_bots,
)

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.protocol import GameEnded, TurnResult
from sushigo.server.keys import load_or_create_server_key, public_key_bytes

METRICS = ("--metrics", "127.0.0.1:0")
OUTAGE = 7.0
"""Seconds PostgreSQL is stopped in the first test."""
OUTLASTING = 15.0
"""A lease that outlasts the outage whenever it begins: a node renews every third of it, and
again within half a second of the database's return, so its lease lapses only if the database
is away for two thirds of it, less that half second."""
CONNECTED = b'sushigo_sessions{state="connected"}'
AWAY = b'sushigo_sessions{state="away"}'


def not_ready(status: tuple[int, str]) -> bool:
    return status[0] == 503


async def play_out(client: Client) -> GameEnded:
    """Play the client's game to its end (its first legal action each time)."""
    while True:
        if client.awaiting:
            client.pick(client.legal_actions()[0])
        event = await client.next_event(30)
        if isinstance(event, GameEnded):
            return event


async def test_postgresql_stopped_for_seconds_under_load(tmp_path: Path) -> None:
    async with own_postgresql() as (pg, url):
        key = cluster_key(tmp_path)
        a = node(url, key, "a", *METRICS, lease=OUTLASTING)
        b = node(url, key, "b", *METRICS, lease=OUTLASTING)
        await a.start()
        await b.start()
        client = await Client.connect("127.0.0.1", a.port, name="ann")
        bots = await start_bots(b.port, games=1, count=4)
        try:
            await game_begun(client)
            # The bots' game has begun too (a quick match during the outage is refused: the
            # bots' asking again is their library's part, not this test's).
            await eventually(lambda: _games_saved(url, 2), 30)
            stopped = asyncio.get_running_loop().time()
            await asyncio.to_thread(pg.stop)
            # a's game waits for its move (nothing to commit there), b's bots play: both say
            # they are not ready once a renewal fails (within a third of the lease).
            for n in (a, b):
                assert (await eventually(lambda n=n: _unready(n.metrics_port), 10))[1].startswith(
                    "not ready: the database is unreachable"
                )
            # The outage's length: seven seconds in all (a fault's, not a wait for an event).
            await asyncio.sleep(max(0.0, stopped + OUTAGE - asyncio.get_running_loop().time()))
            await asyncio.to_thread(pg.start)
            for n in (a, b):
                await eventually(lambda n=n: _ready(n.metrics_port), 15)
            ended = await play_out(client)
            assert client.fairness.final == "verified"
            assert_bots_played(bots, await bots_output(bots, timeout=120), games=1)
            # Both renew again: their rows' leases run.
            live = await query(url, "SELECT name FROM cluster_nodes WHERE lease_expires > now()")
            assert sorted(r[0] for r in live) == ["a", "b"]
            for n in (a, b):
                assert await metric(n.metrics_port, CONNECTED) >= 0
        finally:
            await stop_bots(bots)
            await client.close()
            await asyncio.gather(a.stop(), b.stop())
        assert unformatted(a.log) == [] and unformatted(b.log) == []
        assert ended.record is not None
        assert_records_verify(
            [(ended.record.record, ended.record.signature)],
            public_key_bytes(load_or_create_server_key(key)),
        )


async def _games_saved(url: str, count: int) -> bool:
    rows = await query(url, "SELECT count(*) FROM tables_in_progress")
    return bool(rows[0][0] >= count)


async def _unready(port: int) -> tuple[int, str] | None:
    status = await ready(port)
    return status if not_ready(status) else None


async def _ready(port: int) -> bool:
    return (await ready(port))[0] == 200


async def _lapsed(port: int) -> bool:
    status = await ready(port)
    return not_ready(status) and "its lease has lapsed" in status[1]


async def test_postgresql_paused_makes_a_node_unready_before_its_lease_lapses(
    tmp_path: Path,
) -> None:
    """A PostgreSQL that takes connections and answers nothing (SIGSTOP) is a database the node
    cannot reach: /readyz says so within seconds (a renewal unanswered for two), not only once
    the node's lease has lapsed (a lease later, at most two thirds of one after the pause)."""
    async with own_postgresql() as (pg, url):
        a = node(url, cluster_key(tmp_path), "a", *METRICS, lease=OUTLASTING)
        await a.start()
        try:
            await eventually(lambda: _ready(a.metrics_port), 15)
            pg.pause()
            try:
                status = await eventually(lambda: _unready(a.metrics_port), OUTLASTING * 0.6)
                assert status == (503, "not ready: the database is unreachable\n")
                assert await metric(a.metrics_port, b"sushigo_ready") == 0
            finally:
                pg.unpause()
            await eventually(lambda: _ready(a.metrics_port), 15)
        finally:
            await a.stop()
        assert unformatted(a.log) == []


async def test_a_node_that_cannot_renew_drops_its_tables_before_anyone_plays(
    tmp_path: Path,
) -> None:
    async with own_postgresql() as (pg, url):
        key = cluster_key(tmp_path)
        a = node(url, key, "a", *METRICS)
        await a.start()
        client = await Client.connect("127.0.0.1", a.port, name="ann")
        try:
            table_id = await game_begun(client)
            await eventually(owned_by(url, table_id, "a"))
            pg.pause()  # every connection hangs: a's renewals never come back
            try:
                # Not ready at once (the database answers nothing), then the lease lapses.
                await eventually(lambda: _lapsed(a.metrics_port), 10)
                # Dropped: the player is told to go (SHUTTING_DOWN, the connection closed),
                # and a move made now is played nowhere.
                with pytest.raises(ConnectionLost):
                    while True:
                        if client.awaiting:
                            client.pick(client.legal_actions()[0])
                        event = await client.next_event(10)
                        assert not isinstance(event, TurnResult), event
            finally:
                pg.unpause()
            await eventually(lambda: _ready(a.metrics_port), 15)
            await reconnect(client, attempts=100, delay=0.1)
            assert client.table is not None and client.table.table_id == table_id
            ended = await play_out(client)
            assert client.fairness.final == "verified"
        finally:
            await client.close()
            await a.stop()
        assert b"this node's lease has lapsed" in a.log
        # Where its player went, as a person reads it: no node known while the database slept.
        assert f"table {table_id}: its players are sent off (".encode() in a.log
        assert unformatted(a.log) == []
        assert ended.record is not None
        assert_records_verify(
            [(ended.record.record, ended.record.signature)],
            public_key_bytes(load_or_create_server_key(key)),
        )


async def test_a_node_paused_past_its_lease_counts_no_session_it_dropped(
    pg_url: str, tmp_path: Path
) -> None:
    key = cluster_key(tmp_path)
    a, b = node(pg_url, key, "a", *METRICS), node(pg_url, key, "b")
    await a.start()
    await b.start()
    client = await Client.connect("127.0.0.1", a.port, name="ann")
    try:
        table_id = await game_begun(client)
        assert a.proc is not None
        os.kill(a.proc.pid, signal.SIGSTOP)
        try:
            await eventually(owned_by(pg_url, table_id, "b"))
            # Gone from a meanwhile: away there, at a table a no longer holds.
            await client.close()
        finally:
            os.kill(a.proc.pid, signal.SIGCONT)

        async def dropped() -> bool:  # a holds no table, and its player is gone from it
            _, text = await http_get("127.0.0.1", a.metrics_port, "/metrics")
            gone = await metric(a.metrics_port, CONNECTED) <= 0
            # Its session is forgotten once a has asked where the table went (a second at most).
            forgotten = await metric(a.metrics_port, AWAY) <= 0
            return gone and forgotten and "\nsushigo_tables{" not in text

        await eventually(dropped)
        assert await metric(a.metrics_port, CONNECTED) == 0
        assert await metric(a.metrics_port, AWAY) == 0
    finally:
        await client.close()
        await asyncio.gather(a.stop(), b.stop())


async def test_a_node_removed_from_the_cluster_stops(pg_url: str, tmp_path: Path) -> None:
    key = cluster_key(tmp_path)
    a = node(pg_url, key, "a")
    await a.start()
    try:
        await query(pg_url, "DELETE FROM cluster_nodes WHERE name = 'a'")
        assert a.proc is not None
        assert await asyncio.wait_for(a.proc.wait(), 10) == 1
    finally:
        await a.stop()
    assert b"node 'a' was removed from the cluster" in a.log
    assert unformatted(a.log) == []


async def test_a_node_stopped_while_postgresql_answers_nothing_exits(tmp_path: Path) -> None:
    async with own_postgresql() as (pg, url):
        key = cluster_key(tmp_path)
        a = node(url, key, "a", lease=OUTLASTING)
        await a.start()
        client = await Client.connect("127.0.0.1", a.port, name="ann")
        try:
            await game_begun(client)
            client.pick(client.legal_actions()[0])  # a write held, waiting for the database
            pg.pause()
            try:
                assert a.proc is not None
                os.kill(a.proc.pid, signal.SIGTERM)
                assert await asyncio.wait_for(a.proc.wait(), 15) == 1
            finally:
                pg.unpause()
        finally:
            await client.close()
            await a.stop()
        assert b"sushigo-server: error: " in a.log and b"not saved" in a.log
        assert unformatted(a.log) == []


async def test_the_log_format_check_finds_what_is_not_in_it() -> None:
    """The check above can fail: a bare traceback, and a formatted line holding one."""
    lines = (
        b"2026-11-28T15:07:32Z level=warning fine\n"
        b"Traceback (most recent call last):\n"
        b"2026-11-28T15:07:32Z level=error bug exc=Traceback (most recent call last):\\n...\n"
    )
    assert len(unformatted(lines)) == 2
    await asyncio.sleep(0)  # an async test, as its neighbours
