"""A node paused (SIGSTOP) in the middle of a commit, on real nodes: its transaction is left open
in PostgreSQL, holding the lock its fence took on its table's lease (`pg_fence`), for as long as
it is paused. The other node's take-over locks that lease (`FOR UPDATE`), so it would wait for the
paused node for ever (and its own renewals behind it). PostgreSQL ends a node's transaction that
sits idle for half a lease (`idle_in_transaction_session_timeout`), so the table is taken over
once the lease ends, and the paused node, woken, sends its player there (its frames meanwhile held:
it cannot save, and the table is no longer its).

The moment is made, not waited for: the test locks the table's turns, so the node's commit stops
at its first write (the fence's lock taken); the node is paused there, and the test's lock
released: the commit's statement ends, and its transaction waits for the paused node."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import asyncpg
from nodes import eventually, game_begun, owned_by, play_through, query, started_two

from sushigo.client.connection import Client


async def test_a_node_paused_mid_commit_lets_its_table_go(pg_url: str, tmp_path: Path) -> None:
    a, b = await started_two(pg_url, tmp_path)
    client = await Client.connect("127.0.0.1", a.port, name="ann")
    holder: asyncpg.Connection | None = None
    paused = False
    try:
        table_id = await game_begun(client)
        await eventually(owned_by(pg_url, table_id, "a"))
        holder = await asyncpg.connect(pg_url)
        await holder.execute("BEGIN")
        # Reads go on (a's renewals read these tables); writes wait.
        await holder.execute("LOCK TABLE table_turns, tables_in_progress IN EXCLUSIVE MODE")
        client.pick(client.legal_actions()[0])  # a commits it: its fence, then its writes

        async def commit_waits() -> bool:
            sql = "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            return bool(await query(pg_url, sql))

        await eventually(commit_waits)
        assert a.proc is not None
        os.kill(a.proc.pid, signal.SIGSTOP)
        paused = True
        # Every thread of a stopped (its parent hears of it) before its commit can go on.
        await asyncio.wait_for(asyncio.to_thread(os.waitpid, a.proc.pid, os.WUNTRACED), 10)
        await holder.execute("ROLLBACK")  # the commit's statement ends; its transaction waits

        await eventually(owned_by(pg_url, table_id, "b"), timeout=20)
        os.kill(a.proc.pid, signal.SIGCONT)
        paused = False

        # a, woken, finds its connection gone (its frames held meanwhile: it cannot save) and
        # its table b's: what it played since waking is taken back, never sent, and its player
        # plays the game out at b from the step it was in, the same pick brought again.
        await play_through(client, 10)
        assert client.port == b.port
        assert client.fairness.final == "verified"
    finally:
        if paused and a.proc is not None:
            os.kill(a.proc.pid, signal.SIGCONT)
        if holder is not None:
            await holder.close()
        await client.close()
        await asyncio.gather(a.stop(), b.stop())
    (count,) = await query(pg_url, "SELECT count(*) FROM records")
    assert count[0] == 1
