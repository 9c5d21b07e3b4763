"""Sushi Roll over the network: `sushigo-bot --game sushi-roll` clients play whole games against a
real server on loopback (tests/integration/conftest.py), every action and die verified against
the signed record. (A bot of either game that loses its connection mid-game and resumes:
test_bot_and_replay.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sushigo.client.bot import main as bot_main
from sushigo.client.bot import parser as bot_parser
from sushigo.client.bot import run as run_bot


async def test_three_bots_play_sushi_roll_and_every_game_verifies(
    server: tuple[str, int, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    host, port, _ = server
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


def test_the_bot_refuses_a_strategy_it_cannot_find(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["127.0.0.1:1", "--game", "sushi-roll", "--strategy", "no-such-bot", "--games", "1"]
    assert bot_main(argv) == 2
    err = capsys.readouterr().err
    assert "no-such-bot" in err and "Traceback" not in err
