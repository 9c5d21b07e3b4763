"""Leaving a table while the node's database is slow, on a real node: the node answers a
LEAVE_TABLE once the seat's release is saved, so a PostgreSQL paused or locked for longer than
the client's request timeout makes the answer late. A person would wait that out; the client
library waits on (one line logged each request timeout) and the leave goes through once the
database answers, where it used to raise `NoAnswer` (and `sushigo-bot`, between two quick-match
games, exited 1: "no answer to leave_table"). It cannot ask again: the leave is sent, and the
session, at no table for the protocol, may not send another.

The moment is made, not waited for: the test locks the tokens table, so the node's commit of the
seat's release waits for the lock, for as long as the test holds it."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import asyncpg
import pytest
from nodes import cluster_key, eventually, node, query

from sushigo.client.connection import Client

TIMEOUT = 1.5
"""The client's request timeout: the lock is held past it."""


async def test_a_leave_the_database_holds_up_is_waited_for(
    pg_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="sushigo.client")
    # A lease far beyond the lock's time: the node's renewal, waiting behind its own commit,
    # does not lapse meanwhile.
    a = node(pg_url, cluster_key(tmp_path), "a", lease=20)
    await a.start()
    client = await Client.connect("127.0.0.1", a.port, name="ann", timeout=TIMEOUT)
    holder: asyncpg.Connection | None = None
    try:
        await client.quick_match(3, "sushi-go")  # alone at it: the table waits
        holder = await asyncpg.connect(pg_url)
        await holder.execute("BEGIN")
        await holder.execute("LOCK TABLE tokens IN EXCLUSIVE MODE")  # reads go on; writes wait
        leaving = asyncio.ensure_future(client.leave())

        async def waited_on() -> bool:
            if leaving.done():
                leaving.result()  # the library gave up: its NoAnswer, raised here
                raise AssertionError("the leave was answered while its write still waited")
            return (
                "no answer to leave_table" in caplog.text and "still waiting for it" in caplog.text
            )

        await eventually(waited_on, timeout=20)
        sql = "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        assert await query(pg_url, sql), "the node's commit is not the one waiting"
        await holder.execute("ROLLBACK")
        await asyncio.wait_for(leaving, 20)
        assert client.table is None
        # The node agrees: the waiting table closed as its one player left.
        tables = await asyncio.wait_for(client.list_tables(), 10)
        assert tables == ()
    finally:
        if holder is not None:
            await holder.close()
        await client.close()
        await a.stop()
