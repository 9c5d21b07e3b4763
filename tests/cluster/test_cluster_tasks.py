"""A node's background tasks (`Connected._spawn`): one cancelled before its first step, as a
node closing just after a notification cancels it, leaves no "never awaited" coroutine behind
(a RuntimeWarning printed outside the log format as the node exits)."""

from __future__ import annotations

import asyncio
import inspect

from sushigo.server.cluster.base import Connected


async def test_a_task_cancelled_before_it_starts_leaves_no_unawaited_coroutine() -> None:
    node = Connected("postgresql://127.0.0.1:1/none", node="n1", lease=10.0, clock=None)
    ran: list[str] = []

    async def refresh() -> None:
        ran.append("refresh")

    job = refresh()
    node._spawn(job)
    tasks = list(node._tasks)
    await node.close()  # cancels it before the loop ran it
    await asyncio.gather(*tasks, return_exceptions=True)
    assert all(t.cancelled() for t in tasks) and not ran
    # Closed, not merely dropped: a coroutine dropped unstarted is "never awaited" at exit.
    assert inspect.getcoroutinestate(job) == inspect.CORO_CLOSED


async def test_a_task_that_runs_is_awaited_as_before() -> None:
    node = Connected("postgresql://127.0.0.1:1/none", node="n1", lease=10.0, clock=None)
    done = asyncio.Event()

    async def refresh() -> None:
        done.set()

    node._spawn(refresh())
    await asyncio.wait_for(done.wait(), 5)
    await node.close()
