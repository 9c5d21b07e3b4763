"""A stopping server hands its hub no answer to a question to the cluster (`Server._answer`).

By the time such an answer comes, a node that stops has saved its tables and handed them to
another node: acted on, the answer would have the hub go on as if nothing stopped. A tournament
game whose placement failed (the node's pool closed under it) was played here after all, at a
table no node would ever hold, its seats waiting out their turn timers for people sent on."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from server_helpers import hub_on

from sushigo.server.net.app import Server
from sushigo.server.sessions.requests import Ask
from sushigo.server.storage.sqlite.storage import SqliteStorage


async def test_an_answer_that_comes_as_the_server_stops_is_dropped() -> None:
    storage = SqliteStorage(":memory:")
    server = Server(hub_on(storage), "127.0.0.1", 0, None)
    await server.start()
    answered: list[object] = []
    asked, release = asyncio.Event(), asyncio.Event()

    async def placed() -> str:
        return "placed before"

    async def placed_late() -> str:
        asked.set()
        await release.wait()
        return "placed late"

    def ask(job: Callable[[], Awaitable[str]]) -> Ask:
        return Ask(job, lambda result, now: answered.append(result), None, None, "the tickets")

    try:
        # While it runs, an answer reaches the hub.
        await server._answer(ask(placed))
        async with asyncio.timeout(5):
            if server._answering is not None:
                await server._answering
        assert answered == ["placed before"]

        late = asyncio.create_task(server._answer(ask(placed_late)))
        async with asyncio.timeout(5):
            await asked.wait()
        await server.stop()
        release.set()
        async with asyncio.timeout(5):
            await late
            if server._answering is not None:
                await server._answering
        assert answered == ["placed before"]
        assert not server._answers
    finally:
        storage.close()
