"""End to end: the real `sushigo-client` command in a real terminal (tmux), played by keystrokes
(`terminal`: the test waits on the terminal's own output, bounded by a timeout, and never
sleeps)."""

from __future__ import annotations

import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest
from processes import ServerProcess
from terminal import Keys, Until, needs_tmux, terminal
from tui_helpers import local_server

pytestmark = needs_tmux

AGAINST_A_BOT = ["--bots", "1", "--players", "2", "--turn-seconds", "0", "--bot-strategy", "random"]
"""A two-seat table with one random server bot and no turn timer."""

Tmux = Callable[..., Awaitable[str]]
"""Any tmux command on the test's own tmux server (`resize-window -t play -x 60`, say)."""


async def _in_terminal(
    tmp_path: Path,
    game_args: list[str],
    play: Callable[[Until, Keys, Tmux], Awaitable[None]],
    server: Callable[[Path], AbstractAsyncContextManager[tuple[str, int]]] = local_server,
    size: tuple[int, int] = (80, 24),
    env: tuple[str, ...] = (),
) -> None:
    """Run `sushigo-client HOST:PORT --name e2e <game_args>` (`AGAINST_A_BOT` and more, or the
    lobby) in a tmux window (80x24 unless `size` says otherwise) against a real server
    (`local_server`, in this process, unless another is given), let `play` type and look, then
    check it quits with exit code 0."""
    async with server(tmp_path) as (host, port):
        command = [
            sys.executable,
            "-m",
            "sushigo.client.cli",
            f"{host}:{port}",
            "--name",
            "e2e",
            *game_args,
        ]
        async with terminal(tmp_path, command, size=size, env=env) as term:
            await play(term.until, term.keys, term.term.tmux)
            await term.keys("q")
            await term.until(lambda s: "Quit sushigo?" in s, "quit question")
            await term.keys("y")
            assert await term.exit_code() == 0


async def test_the_client_command_plays_a_turn_in_a_terminal(tmp_path: Path) -> None:
    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        screen = await until(lambda s: "your pick" in s and "Your hand" in s, "first turn")
        assert "round 1/3 · turn 1/10" in screen
        assert "random-bot-1" in screen and "▸ 1" in screen
        await keys("2", "Enter")
        screen = await until(lambda s: "turn 2/10" in s and "R1T1" in s, "second turn")
        assert "you:" in screen and "picks verified" in screen
        await keys("?")
        await until(lambda s: "Keys" in s and "Scoring" in s, "help")
        await keys("?")

    await _in_terminal(tmp_path, AGAINST_A_BOT, play)


async def test_the_client_command_plays_sushi_roll_in_a_terminal(tmp_path: Path) -> None:
    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
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

    await _in_terminal(tmp_path, [*AGAINST_A_BOT, "--game", "sushi-roll"], play)


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

    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
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

    await _in_terminal(tmp_path, AGAINST_A_BOT, play, real_server)


async def test_a_terminal_too_small_gets_a_message_until_it_is_large_enough(
    tmp_path: Path,
) -> None:
    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        screen = await until(lambda s: "needs a terminal" in s, "the size message")
        words = " ".join(screen.split())
        assert "at least 80x24; this one is 60x20" in words and "Ctrl-C twice" in words
        await tmux("resize-window", "-t", "play", "-x", "80", "-y", "24")
        await until(lambda s: "your pick" in s and "turn 1/10" in s, "the game at 80x24")

    await _in_terminal(tmp_path, AGAINST_A_BOT, play, size=(60, 20))


COLOUR = re.compile(r"\x1b\[(?:[0-9]*;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]")
"""An SGR sequence that sets a foreground or background colour (39 and 49, the terminal's own
colours, are none)."""


@pytest.mark.parametrize("no_color", [False, True])
async def test_no_color_is_respected(tmp_path: Path, no_color: bool) -> None:
    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        await until(lambda s: "your pick" in s and "turn 1/10" in s, "the first turn")
        styled = await tmux("capture-pane", "-p", "-e", "-t", "play")
        assert bool(COLOUR.search(styled)) is not no_color, styled[:400]

    await _in_terminal(tmp_path, AGAINST_A_BOT, play, env=("NO_COLOR=1",) if no_color else ())


async def test_the_lobby_starts_a_game_against_bots_of_a_chosen_level(tmp_path: Path) -> None:
    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        screen = await until(lambda s: "Tables on" in s, "the lobby")
        assert "bots of level medium" in screen
        await keys("v")
        await until(lambda s: "bots of level hard" in s, "the level changed")
        await keys("b")
        screen = await until(lambda s: "your pick" in s and "turn 1/" in s, "the first turn")
        # Three bots of that level, the level beside each bot's name.
        rows = [line for line in screen.split("\n") if line.startswith(" hard-bot")]
        assert len(rows) == 3, screen

    await _in_terminal(tmp_path, [], play)
