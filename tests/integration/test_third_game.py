"""A third game, rock-paper-scissors (tests/games/rps.py), installed as a plug-in by its entry
points alone, plays through the real server process, the real protocol, sushigo-bot's client
library and command, and the arena: commit-reveal, records that verify, and a resume after the
server is killed and started again. No module of the project names it."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from games.plugins import install_rps

from sushigo.client.arena import main as arena_main
from sushigo.client.connection import Client, ConnectionLost, auto_reconnect
from sushigo.engine import games
from sushigo.protocol import GameEnded, TurnResult, TurnStart

BIN = Path(sys.executable).parent
LISTENING = re.compile(r"sushigo-server listening on (\S+):(\d+)")


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The game installed the way a distribution installs it: a dist-info with its entry points
    on the path (here and for the processes started with the returned environment)."""
    yield install_rps(tmp_path, monkeypatch)
    games.refresh()


@asynccontextmanager
async def server(
    db: Path, env: dict[str, str]
) -> AsyncIterator[tuple[asyncio.subprocess.Process, int]]:
    proc = await asyncio.create_subprocess_exec(
        str(BIN / "sushigo-server"),
        *("--host", "127.0.0.1", "--port", "0", "--db", str(db), "--log-level", "warning"),
        stdout=asyncio.subprocess.PIPE,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), 20)).decode()
        match = LISTENING.match(line)
        assert match, f"unexpected first line: {line!r}"
        yield proc, int(match.group(2))
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


def test_the_arena_plays_it(plugin: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--game", "rps", "--strategies", "random,rock", "--games", "40", "--workers", "1"]
    assert arena_main(argv) == 0
    out = capsys.readouterr().out
    assert "40 games, 2 players, Rock-paper-scissors" in out
    assert "rock" in out and "random" in out


async def test_bots_play_it_on_a_real_server_and_its_records_verify(
    plugin: dict[str, str], tmp_path: Path
) -> None:
    db = tmp_path / "server.db"
    async with server(db, plugin) as (_, port):
        bots = [
            await asyncio.create_subprocess_exec(
                str(BIN / "sushigo-bot"),
                *(f"127.0.0.1:{port}", "--game", "rps", "--strategy", strategy),
                *("--games", "3", "--players", "2", "--name", strategy),
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=plugin,
            )
            for strategy in ("random", "rock")
        ]
        outputs = [await asyncio.wait_for(bot.communicate(), 60) for bot in bots]
    for bot, (out, err) in zip(bots, outputs, strict=True):
        lines = out.decode().splitlines()
        assert bot.returncode == 0, err.decode()
        assert len(lines) == 3 and all(line.endswith("fairness verified") for line in lines), lines
    listing = subprocess.run(
        [str(BIN / "sushigo-replay"), "--db", str(db)],
        capture_output=True,
        text=True,
        env=plugin,
        check=False,
    )
    ids = [line.split()[0] for line in listing.stdout.splitlines()]
    assert len(ids) == 3, listing
    shown = subprocess.run(
        [str(BIN / "sushigo-replay"), "--db", str(db), ids[0]],
        capture_output=True,
        check=False,
        text=True,
        env=plugin,
    )
    assert shown.returncode == 0, shown.stderr
    assert "Rock-paper-scissors, 2 players" in shown.stdout
    assert "verified: signature, seed commitment, every commitment" in shown.stdout


async def test_a_game_resumes_after_the_server_is_killed(
    plugin: dict[str, str], tmp_path: Path
) -> None:
    """Two players of the client library; the server process is killed after the first round
    and started again on its database: both resume into their seats and finish, every opening
    checked and the record verified."""
    db = tmp_path / "server.db"
    async with server(db, plugin) as (proc, port):
        ann = await Client.connect("127.0.0.1", port, name="ann")
        bob = await Client.connect("127.0.0.1", port, name="bob")
        await ann.quick_match(2, "rps")
        await bob.quick_match(2, "rps")
        for client, throw in ((ann, "rock"), (bob, "scissors")):
            await client.wait_for(TurnStart, 10)
            client.play(next(a for a in client.legal_actions() if a == throw))
        for client in (ann, bob):
            result = await client.wait_for(TurnResult, 10)
            assert [o.action for o in result.openings] == ["rock", "scissors"]
        os.kill(proc.pid, signal.SIGKILL)
        await proc.wait()
    async with server(db, plugin) as (_, port):
        for client in (ann, bob):
            client.port = port
        await asyncio.gather(auto_reconnect(ann, delay=0.05), auto_reconnect(bob, delay=0.05))
        ends = await asyncio.gather(finish(ann), finish(bob))
    assert ends[0].totals == ends[1].totals and ends[0].totals[0] >= 1
    for client in (ann, bob):
        assert client.fairness.final == "verified", client.fairness.failures
        assert client.fairness.openings_verified >= 4
        await client.close()


async def finish(client: Client) -> GameEnded:
    """Throw paper whenever asked, to the game's end."""
    if client.awaiting:
        client.play("paper")
    while True:
        try:
            event = await client.next_event(10)
        except ConnectionLost:  # the old connection's end, read after the resume
            await auto_reconnect(client)
            continue
        if isinstance(event, GameEnded):
            return event
        if client.awaiting:
            client.play("paper")
