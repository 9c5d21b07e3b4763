"""The real `sushigo-client` command in a real terminal (tmux) on a cluster of two node
processes: its node is SIGKILLed (or stopped with SIGTERM) mid-game, and the player, who typed
nothing but picks, is back at the same turn on the other node (once the dead node's lease ends,
or at once when the stopping node hands the table over), with the screen saying what happened
and never an exception."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from nodes import started_two
from processes import ServerProcess
from terminal import Session, needs_tmux, terminal
from tui_helpers import quit_in

pytestmark = needs_tmux

AGAINST_A_BOT = ["--bots", "1", "--players", "2", "--turn-seconds", "0", "--bot-strategy", "random"]
"""A two-seat table with one random server bot and no turn timer."""


async def _play_through(
    pg_url: str, tmp_path: Path, lose: Callable[[ServerProcess, Session], Awaitable[None]]
) -> str:
    """Play on node a of two against a server bot; on turn 2, `lose` node a (the terminal
    session at hand to watch it go); then be back at turn 2 on node b, play it, quit. The screen
    the resume showed."""
    a, b = await started_two(pg_url, tmp_path)
    command = [sys.executable, "-m", "sushigo.client.cli", f"127.0.0.1:{a.port}"]
    try:
        async with terminal(tmp_path, [*command, "--name", "e2e", *AGAINST_A_BOT]) as term:
            await term.until(lambda s: "your pick" in s and "turn 1/10" in s, "the first turn")
            await term.keys("1", "Enter")
            await term.until(lambda s: "your pick" in s and "turn 2/10" in s, "the second turn")
            await lose(a, term)
            resumed = await term.until(
                lambda s: "reconnected at seat 1 · your pick" in s, "the table on node b"
            )
            assert "turn 2/10" in resumed and "Your hand" in resumed
            assert "xception" not in resumed
            await term.keys("1", "Enter")
            screen = await term.until(lambda s: "turn 3/10" in s and "R1T2" in s, "turn 3")
            assert "xception" not in screen and "fair ✓" in screen
            await quit_in(term)
            return resumed
    finally:
        await a.stop()
        await b.stop()


async def test_the_terminal_client_follows_its_table_when_its_node_dies(
    pg_url: str, tmp_path: Path
) -> None:
    async def kill(a: ServerProcess, term: Session) -> None:
        await a.kill()
        await term.until(lambda s: "reconnecting" in s, "the drop on the status line")

    # Node b takes the table over once a's lease ends; the client finds b by itself.
    await _play_through(pg_url, tmp_path, kill)


async def test_the_terminal_client_follows_its_table_when_its_node_stops(
    pg_url: str, tmp_path: Path
) -> None:
    async def stop(a: ServerProcess, term: Session) -> None:
        assert await a.terminate() == 0  # hands the table to b, then exits

    resumed = await _play_through(pg_url, tmp_path, stop)
    assert "connection lost" not in resumed  # told where the table went: no alarm
