"""A clean restart: SIGTERM on the real server mid-game, on each storage backend.

The server saves every table, tells each client RESTARTING (protocol 2.4), closes, and exits 0;
it is started again on the same database and port, and the client library (three `sushigo-bot`
processes and a player of ours, as the terminal client uses it) takes every seat back by itself.
Every game finishes, every record verifies, and no seat was auto-picked: nobody's turn was taken
from them by the restart."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from processes import ServerProcess, bots_output, start_bots, stop_bots

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.protocol import (
    Error,
    ErrorCode,
    GameEnded,
    Message,
    Restarting,
    SignedRecord,
    TurnStart,
    verify_record,
    verify_signed_record,
)
from sushigo.server.database import open_storage
from sushigo.server.keys import load_or_create_server_key, public_key_bytes

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

    async def next_event() -> Message:
        while True:
            try:
                return await client.next_event(30)
            except ConnectionLost:
                await reconnect(client, attempts=60, delay=0.1)
                if client.awaiting:
                    client.pick(rng.choice(list(client.legal_actions())))

    async def play() -> None:
        for game in range(1, GAMES + 1):
            await client.quick_match(4, "sushi-go")
            while True:
                event = await next_event()
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

    try:
        await asyncio.wait_for(play(), 90)
        outputs = await bots_output(bots)
    finally:
        await client.close()
        await stop_bots(bots)
        await server.stop()

    restarting, shutting = told
    assert isinstance(restarting, Restarting) and restarting.retry_ms > 0
    assert isinstance(shutting, Error) and shutting.error_code is ErrorCode.SHUTTING_DOWN
    assert timings["stop"] < 5, timings
    assert timings["back"] < 5, timings
    assert verdicts == ["verified"] * GAMES
    for bot, output in zip(bots, outputs, strict=True):
        assert bot.returncode == 0, output
        lines = [line for line in output.splitlines() if line.startswith("game ")]
        assert len(lines) == GAMES, output
        assert all("fairness verified" in line for line in lines), output

    options = dict(zip(server_db[::2], server_db[1::2], strict=True))
    storage = open_storage(options["--db"])
    try:
        stored = [storage.get_record(g.game_id) for g in storage.list_records(limit=10)]
    finally:
        storage.close()
    key_file = Path(options.get("--key") or options["--db"] + ".key")
    key = public_key_bytes(load_or_create_server_key(key_file))
    assert len(stored) == GAMES
    for game in stored:
        assert game is not None
        signed = SignedRecord(record=game.record, signature=game.signature, server_key=key)
        report = verify_record(verify_signed_record(signed, key))
        assert report.ok, report.problems
        assert not report.auto_picks, report.auto_picks
