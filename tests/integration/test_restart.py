"""A clean restart: SIGTERM on the real server mid-game, on each storage backend.

The server saves every table, tells each client RESTARTING (protocol 2.4), closes, and exits 0;
it is started again on the same database and port, and the client library (three `sushigo-bot`
processes and a player of ours, as the terminal client uses it) takes every seat back by itself.
Every game finishes, every record verifies, and no seat was auto-picked: nobody's turn was taken
from them by the restart."""

from __future__ import annotations

import asyncio
import random
import signal
import time
from pathlib import Path

from processes import (
    SERVER,
    ServerProcess,
    assert_records_verify,
    next_event_resuming,
    play_beside_bots,
    start_bots,
    stored_records,
)

from sushigo.client.connection import Client, reconnect
from sushigo.protocol import (
    Error,
    ErrorCode,
    GameEnded,
    Message,
    Restarting,
    TurnStart,
)

GAMES = 2


async def test_sigterm_mid_game_then_every_game_finishes(server_db: tuple[str, ...]) -> None:
    server = ServerProcess(server_db)
    await server.start()
    bots = await start_bots(server.port, GAMES)
    client = await Client.connect("127.0.0.1", server.port, name="restart")
    rng = random.Random(3)
    told: list[Message] = []
    verdicts: list[str] = []
    timings: dict[str, float] = {}

    async def play() -> None:
        for game in range(1, GAMES + 1):
            await client.quick_match(4, "sushi-go")
            while True:
                event = await next_event_resuming(client, rng)
                if isinstance(event, TurnStart) and client.awaiting:
                    if game == 1 and (event.round, event.turn) == (2, 3):
                        # Mid-game, our pick not yet made: the server stops cleanly.
                        began = time.monotonic()
                        assert await server.terminate() == 0, server.log.decode()
                        timings["stop"] = time.monotonic() - began
                        while not isinstance(event := await client.next_event(5), Restarting):
                            pass
                        told.append(event)
                        told.append(await client.next_event(5))  # SHUTTING_DOWN
                        await server.start()
                        began = time.monotonic()
                        await reconnect(client, attempts=1)
                        timings["back"] = time.monotonic() - began
                    client.pick(rng.choice(list(client.legal_actions())))
                elif isinstance(event, GameEnded):
                    verdicts.append(client.fairness.final)
                    break
            await client.leave()

    await play_beside_bots(bots, GAMES, play(), client, server)

    restarting, shutting = told
    assert isinstance(restarting, Restarting) and restarting.retry_ms > 0
    assert isinstance(shutting, Error) and shutting.error_code is ErrorCode.SHUTTING_DOWN
    assert timings["stop"] < 5, timings
    assert timings["back"] < 5, timings
    assert verdicts == ["verified"] * GAMES

    records, key = stored_records(server_db)
    assert len(records) == GAMES
    assert_records_verify(records, key)


async def test_sigterm_while_starting_is_a_clean_stop(tmp_path: Path) -> None:
    """A supervisor that stops the server as it starts (before it listens) gets exit 0, not
    the default action's 143: the signal is honoured as a clean stop once the server is up."""
    proc = await asyncio.create_subprocess_exec(
        str(SERVER),
        *("--host", "127.0.0.1", "--port", "0", "--db", str(tmp_path / "s.db")),
        *("--log-level", "debug"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert proc.stdout is not None
    out = b""
    try:
        while b"starting" not in out:  # its first line: the handler is in place
            line = await asyncio.wait_for(proc.stdout.readline(), 20)
            assert line, out.decode()
            out += line
        proc.send_signal(signal.SIGTERM)
        rest = await asyncio.wait_for(proc.stdout.read(), 20)
        assert await proc.wait() == 0, (out + rest).decode()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert b"Traceback" not in rest
