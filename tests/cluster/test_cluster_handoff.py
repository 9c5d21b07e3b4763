"""SIGTERM hand-off and a rolling restart (stage 5 of the cluster issue), on two real nodes.

Three `sushigo-bot` processes and a player of ours play one game on node a. Node a is stopped
(SIGTERM): it saves its table, hands its lease to node b, tells its players to follow a REDIRECT
there, and exits 0 within 15 s; it is started again. Then b is stopped the same way, the table
going back to a, and b is started again. The game finishes, its record verifies, no seat was
auto-picked, and each hand-off paused play for well under the time a person notices much."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from nodes import records_verify, started_two
from processes import (
    ServerProcess,
    next_event_resuming,
    play_beside_bots,
    start_bots,
)

from sushigo import protocol
from sushigo.client.connection import Client


async def test_rolling_restart_loses_no_game(pg_url: str, tmp_path: Path) -> None:
    a, b = await started_two(pg_url, tmp_path)
    bots = await start_bots(a.port, 1)
    client = await Client.connect("127.0.0.1", a.port, name="ours")
    rng = random.Random(5)
    redirects: list[protocol.Redirect] = []
    stops: list[float] = []
    pauses: list[float] = []
    ports: list[int] = []

    async def next_event() -> protocol.Message:
        event = await next_event_resuming(client, rng, lambda: ports.append(client.port))
        if isinstance(event, protocol.Redirect):
            redirects.append(event)
        return event

    restarts: list[asyncio.Task[int]] = []

    async def stop(server: ServerProcess) -> float:
        """SIGTERM `server`, see it exit 0, and start it again meanwhile we play on."""
        began = time.monotonic()
        assert await server.terminate(within=15) == 0, server.log.decode()
        stops.append(time.monotonic() - began)
        restarts.append(asyncio.create_task(server.start()))
        return began

    async def play() -> None:
        await client.quick_match(4, "sushi-go")
        stopped: float | None = None
        plan = {(1, 2): a, (2, 3): b}
        while True:
            event = await next_event()
            if isinstance(event, protocol.TurnStart) and client.awaiting:
                server = plan.pop((event.round, event.turn), None)
                if server is not None:
                    if restarts:  # the other node is back before this one stops
                        await restarts[-1]
                    stopped = await stop(server)
                    continue  # we pick once resumed there, as the step asks again
                client.pick(rng.choice(list(client.legal_actions())))
            elif isinstance(event, protocol.TurnResult) and stopped is not None:
                pauses.append(time.monotonic() - stopped)
                stopped = None
            elif isinstance(event, protocol.GameEnded):
                assert client.fairness.final == "verified"
                await asyncio.gather(*restarts)
                return

    await play_beside_bots(bots, 1, play(), client, a, b)

    print(f"hand-off: stops took {stops} s; play paused {pauses} s")
    assert ports == [b.port, a.port]  # the table went to b, then back to a
    assert [r.address for r in redirects] == [f"127.0.0.1:{b.port}", f"127.0.0.1:{a.port}"]
    assert all(seconds < 15 for seconds in stops), stops
    assert len(pauses) == 2 and all(seconds < 5 for seconds in pauses), pauses

    await records_verify(pg_url, tmp_path, 1)
