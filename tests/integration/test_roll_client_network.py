"""Sushi Roll over the network: `sushigo-bot --game sushi-roll` clients play whole games against a
real server on loopback, every action and die verified against the signed record; one of them
loses its connection mid-game and resumes."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sushigo.client.bot import Strategies, play_one
from sushigo.client.bot import main as bot_main
from sushigo.client.bot import parser as bot_parser
from sushigo.client.bot import run as run_bot
from sushigo.client.connection import Client
from sushigo.server.app import Server
from sushigo.server.hub import Hub
from sushigo.server.keys import load_or_create_server_key
from sushigo.server.sqlite_storage import SqliteStorage


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[str, int]]:
    db = tmp_path / "server.db"
    storage = SqliteStorage(db)
    key = load_or_create_server_key(db.with_name(db.name + ".key"))
    srv = Server(
        Hub(storage=storage, key=key, wall_ms=lambda: 1_700_000_000_000), "127.0.0.1", 0, None
    )
    ((host, port),) = await srv.start()
    yield host, port
    await srv.stop()
    storage.close()


async def test_three_bots_play_sushi_roll_and_every_game_verifies(
    server: tuple[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    host, port = server
    argv = [f"{host}:{port}", "--game", "sushi-roll", "--players", "3", "--games", "2"]
    strategies = ("greedy", "heuristic", "random")
    codes = await asyncio.wait_for(
        asyncio.gather(
            *(
                run_bot(
                    bot_parser().parse_args(
                        [*argv, "--strategy", name, "--name", f"{name}-{i}", "--seed", str(i)]
                    )
                )
                for i, name in enumerate(strategies)
            )
        ),
        timeout=60,
    )
    assert codes == [0, 0, 0]
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("game ")]
    assert len(lines) == 6
    assert all(line.endswith("fairness verified") and "/3" in line for line in lines), lines


async def test_a_roll_bot_whose_connection_drops_mid_game_resumes_and_finishes(
    server: tuple[str, int],
) -> None:
    host, port = server
    dropper = await Client.connect(host, port, name="dropper")
    steady = await Client.connect(host, port, name="steady")

    async def cut_once_in_round_two() -> None:
        while dropper.state is None or dropper.state.round < 2:
            await asyncio.sleep(0)  # yield until the game reaches round 2 (bounded by wait_for)
        assert dropper._writer is not None
        dropper._writer.transport.abort()

    original = dropper.proto
    kind = "sushi-roll"
    try:
        games = asyncio.gather(
            play_one(dropper, Strategies("greedy"), random.Random(5), 2, kind),
            play_one(steady, Strategies("heuristic"), random.Random(6), 2, kind),
        )
        cut = asyncio.create_task(cut_once_in_round_two())
        first, second = await asyncio.wait_for(games, timeout=60)
        await asyncio.wait_for(cut, timeout=1)
        assert dropper.proto is not original and dropper.connected
    finally:
        await dropper.close()
        await steady.close()
    assert first.verified and second.verified, (first.problems, second.problems)
    assert first.players == second.players == 2
    assert dropper.fairness.observations_verified >= dropper.fairness.actions_seen > 0


def test_the_bot_refuses_a_strategy_it_cannot_find(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["127.0.0.1:1", "--game", "sushi-roll", "--strategy", "no-such-bot", "--games", "1"]
    assert bot_main(argv) == 2
    err = capsys.readouterr().err
    assert "no-such-bot" in err and "Traceback" not in err
