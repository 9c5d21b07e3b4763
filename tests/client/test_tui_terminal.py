"""End to end: the real `sushigo-client` command in a real terminal (tmux), played by keystrokes
(`terminal`: the test waits on the terminal's own output, bounded by a timeout, and never
sleeps)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from processes import ServerProcess
from terminal import Keys, Until, needs_tmux, terminal
from tui_helpers import local_server

pytestmark = needs_tmux


async def _in_terminal(
    tmp_path: Path,
    game_args: list[str],
    play: Callable[[Until, Keys], Awaitable[None]],
    server: Callable[[Path], AbstractAsyncContextManager[tuple[str, int]]] = local_server,
) -> None:
    """Run `sushigo-client ... --bots 1 --players 2 <game_args>` in an 80x24 tmux window against a
    real server (`local_server`, in this process, unless another is given), let `play` type and
    look, then check it quits with exit code 0."""
    async with server(tmp_path) as (host, port):
        command = [
            sys.executable,
            "-m",
            "sushigo.client.cli",
            f"{host}:{port}",
            "--name",
            "e2e",
            "--bots",
            "1",
            "--players",
            "2",
            "--turn-seconds",
            "0",
            "--bot-strategy",
            "random",
            *game_args,
        ]
        async with terminal(tmp_path, command) as term:
            await play(term.until, term.keys)
            await term.keys("q")
            await term.until(lambda s: "Quit sushigo?" in s, "quit question")
            await term.keys("y")
            assert await term.exit_code() == 0


async def test_the_client_command_plays_a_turn_in_a_terminal(tmp_path: Path) -> None:
    async def play(until: Until, keys: Keys) -> None:
        screen = await until(lambda s: "your pick" in s and "Your hand" in s, "first turn")
        assert "round 1/3 · turn 1/10" in screen
        assert "random-bot-1" in screen and "▸ 1" in screen
        await keys("2", "Enter")
        screen = await until(lambda s: "turn 2/10" in s and "R1T1" in s, "second turn")
        assert "you:" in screen and "picks verified" in screen
        await keys("?")
        await until(lambda s: "Keys" in s and "Scoring" in s, "help")
        await keys("?")

    await _in_terminal(tmp_path, [], play)


async def test_the_client_command_plays_sushi_roll_in_a_terminal(tmp_path: Path) -> None:
    async def play(until: Until, keys: Keys) -> None:
        screen = await until(lambda s: "your move" in s and "Your move" in s, "our first move")
        assert screen.startswith(" Sushi Roll ") and "round 1/3 · cycle" in screen
        assert "RED" in screen and "belt" in screen and "tray" in screen and "menu 3" in screen
        # Mark dice 1 and 2, re-roll them (a menu token), then take die 1.
        await keys("1", "Space", "2", "Space")
        await until(lambda s: "[x]" in s and "2 marked" in s, "two marked dice")
        await keys("r")
        screen = await until(lambda s: "you re-rolled" in s, "the re-roll")
        assert "menu 2" in screen
        await keys("1", "Enter")
        # Our tray (the line after our belt's) now holds the die; the log may have scrolled on.
        await until(lambda s: "(empty tray)" not in _our_tray(s), "the take")
        await keys("?")
        await until(lambda s: "Sushi Roll" in s and "re-rolls" in s and "Scoring" in s, "help")
        await keys("?")

    await _in_terminal(tmp_path, ["--game", "sushi-roll"], play)


def _our_tray(screen: str) -> str:
    """The tray line of our seat on the Sushi Roll screen (2 players: name, belt, tray lines)."""
    lines = screen.split("\n")
    mine = next(i for i, line in enumerate(lines) if line.startswith("▸you"))
    return lines[mine + 2]


async def test_the_client_command_comes_through_a_server_restart(tmp_path: Path) -> None:
    """The `sushigo-server` process is killed (SIGKILL) mid-game and started again: the screen
    says the connection was lost, then that the session is back, never shows an exception, and
    the game goes on from the turn it was at."""
    process = ServerProcess(tmp_path / "server.db")

    @asynccontextmanager
    async def real_server(path: Path) -> AsyncIterator[tuple[str, int]]:
        await process.start()
        try:
            yield "127.0.0.1", process.port
        finally:
            await process.stop()

    async def play(until: Until, keys: Keys) -> None:
        await until(lambda s: "your pick" in s and "turn 1/10" in s, "first turn")
        await keys("1", "Enter")
        await until(lambda s: "your pick" in s and "turn 2/10" in s, "second turn")
        await process.kill()
        await until(lambda s: "reconnecting" in s, "the drop on the status line")
        await process.start()
        screen = await until(lambda s: "session is back" in s, "the resume")
        # Back at the turn it was at, with the hand to choose from again.
        assert "turn 2/10" in screen and "Your hand" in screen and "▸ 1" in screen
        assert "xception" not in screen
        await keys("1", "Enter")
        screen = await until(lambda s: "turn 3/10" in s and "R1T2" in s, "the third turn")
        assert "xception" not in screen

    await _in_terminal(tmp_path, [], play, real_server)
