"""End to end: the real `sushigo-client` command in a real terminal (tmux), played by keystrokes
(`terminal`: the test waits on the terminal's own output, bounded by a timeout, and never
sleeps)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from processes import ServerProcess
from terminal import WAIT, Keys, Until, needs_tmux
from tui_helpers import AGAINST_A_BOT, Tmux, in_terminal, local_server

from sushigo.client.connection import Client
from sushigo.protocol import TableSettings, TurnStart
from sushigo.server.storage.sqlite.storage import SqliteStorage

pytestmark = needs_tmux


async def test_the_client_command_plays_a_turn_in_a_terminal(tmp_path: Path) -> None:
    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        screen = await until(lambda s: "your pick" in s and "Your hand" in s, "first turn")
        assert "round 1/3 · turn 1/10" in screen
        assert "random-bot1" in screen and "▸ 1" in screen
        await keys("2", "Enter")
        screen = await until(lambda s: "turn 2/10" in s and "R1T1" in s, "second turn")
        assert "you:" in screen and "picks verified" in screen
        await keys("?")
        await until(lambda s: "Keys" in s and "Scoring" in s, "help")
        await keys("?")

    await in_terminal(tmp_path, AGAINST_A_BOT, play)


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

    await in_terminal(tmp_path, [*AGAINST_A_BOT, "--game", "sushi-roll"], play)


def _our_tray(screen: str) -> str:
    """The tray line of our seat on the Sushi Roll screen (2 players: name, belt, tray lines)."""
    lines = screen.split("\n")
    mine = next(i for i, line in enumerate(lines) if line.startswith("▸you"))
    return lines[mine + 2]


async def test_the_client_command_comes_through_a_server_restart(tmp_path: Path) -> None:
    """The `sushigo-server` process is killed (SIGKILL) mid-game and started again: the screen
    says the connection was lost, then that it is back and our pick is wanted, never shows an exception, and
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
        # Our pick is wanted again, and the status line says so where the prompt was.
        screen = await until(lambda s: "reconnected at seat 1 · your pick" in s, "the resume")
        # Back at the turn it was at, with the hand to choose from again.
        assert "turn 2/10" in screen and "Your hand" in screen and "▸ 1" in screen
        assert "xception" not in screen
        await keys("1", "Enter")
        screen = await until(lambda s: "turn 3/10" in s and "R1T2" in s, "the third turn")
        assert "xception" not in screen

    await in_terminal(tmp_path, AGAINST_A_BOT, play, real_server)


async def test_a_terminal_too_small_gets_a_message_until_it_is_large_enough(
    tmp_path: Path,
) -> None:
    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        screen = await until(lambda s: "needs a terminal" in s, "the size message")
        words = " ".join(screen.split())
        assert "at least 80x24; this one is 60x20" in words and "Ctrl-C twice" in words
        await tmux("resize-window", "-t", "play", "-x", "80", "-y", "24")
        await until(lambda s: "your pick" in s and "turn 1/10" in s, "the game at 80x24")

    await in_terminal(tmp_path, AGAINST_A_BOT, play, size=(60, 20))


COLOUR = re.compile(r"\x1b\[(?:[0-9]*;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]")
"""An SGR sequence that sets a foreground or background colour (39 and 49, the terminal's own
colours, are none)."""


@pytest.mark.parametrize("no_color", [False, True])
async def test_no_color_is_respected(tmp_path: Path, no_color: bool) -> None:
    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        await until(lambda s: "your pick" in s and "turn 1/10" in s, "the first turn")
        styled = await tmux("capture-pane", "-p", "-e", "-t", "play")
        assert bool(COLOUR.search(styled)) is not no_color, styled[:400]

    await in_terminal(tmp_path, AGAINST_A_BOT, play, env=("NO_COLOR=1",) if no_color else ())


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

    await in_terminal(tmp_path, [], play)


async def test_the_lobby_shows_a_games_leaderboard(tmp_path: Path) -> None:
    storage = SqliteStorage(tmp_path / "server.db")
    ratings = {}
    for i, name in enumerate(["ann", "bob", "cy"]):
        raw = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
        ratings[storage.upsert_identity(raw, name, 1)] = (30.0 - 5 * i, 2.0 + i)
    storage.set_ratings(ratings, "sushi-roll")
    storage.close()

    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        await until(lambda s: "Tables on" in s, "the lobby")
        await keys("l")
        screen = await until(lambda s: "leaderboard" in s, "the Sushi Go! leaderboard")
        assert "Sushi Go! leaderboard: 0 rated players" in screen
        assert "guests are not rated" in screen
        await keys("Escape", "g", "l")
        screen = await until(lambda s: "Sushi Roll leaderboard" in s, "the Sushi Roll one")
        rows = [line.split() for line in screen.split("\n") if "ann" in line or "cy" in line]
        assert [row[1:4] for row in rows] == [["1", "ann", "24.0"], ["3", "cy", "8.0"]], screen
        await keys("l")
        await until(lambda s: "leaderboard" not in s and "Tables on" in s, "the lobby again")

    await in_terminal(tmp_path, [], play)


async def test_a_rounds_score_pad_names_the_race_winners(tmp_path: Path) -> None:
    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        # Play the first card of every hand until the round's scores come up.
        for _ in range(12):
            screen = await until(
                lambda s: "your pick" in s or "Round 1 scores" in s, "our turn or the scores"
            )
            if "Round 1 scores" in screen:
                break
            turn = next(part for part in screen.split("·") if "turn" in part).strip()
            await keys("1", "Enter")
            await until(lambda s, t=turn: t not in s.split("\n")[0], "the next turn")
        else:
            raise AssertionError("no round summary after a round's turns")
        for heading in ("maki", "temp", "sash", "dump", "nigi", "round", "total"):
            assert heading in screen, screen
        # The maki race's winners, unless nobody had a maki roll: the rows of the pad are a
        # name, then the maki points first.
        lines = screen.split("\n")
        top = next(i for i, line in enumerate(lines) if "Round 1 scores" in line)
        left = lines[top].index("Round 1 scores")  # the pad's frame is drawn over the board
        pad = [line[left:].split("│")[0] for line in lines[top : top + 6]]
        maki = [int(row.split()[1]) for row in pad[2:4]]
        assert ("maki: most" in "\n".join(pad)) == any(maki), pad

    await in_terminal(tmp_path, AGAINST_A_BOT, play)


async def test_a_spectator_sees_the_table_at_once(tmp_path: Path) -> None:
    players: list[Client] = []

    @asynccontextmanager
    async def mid_turn(path: Path) -> AsyncIterator[tuple[str, int]]:
        async with local_server(path) as (host, port):
            ann = await Client.connect(host, port, name="ann")
            bob = await Client.connect(host, port, name="bob")
            players.extend((ann, bob))
            joined = await ann.create_table(TableSettings(kind="sushi-go", players=2))
            await bob.join_table(joined.table.table_id)
            ann.start_game()
            first = [await c.wait_for(TurnStart, WAIT) for c in players]
            for c, start in zip(players, first, strict=True):
                c.pick(start.observation.legal_actions()[0])
            await ann.wait_for(TurnStart, WAIT)  # turn 2 begins; nobody has picked in it
            try:
                yield host, port
            finally:
                for c in players:
                    await c.close()

    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        await until(lambda s: "playing" in s, "the game in the table list")
        await keys("w")
        screen = await until(lambda s: "round 1/3 · turn 2/10" in s, "the table as it stands")
        # Both tableaus after turn 1, no hand, the keys of a spectator.
        assert "ann" in screen and "bob" in screen and "(nothing yet)" not in screen
        assert "spectators see no hand" in screen and "l: stop watching" in screen
        await keys("l")
        await until(lambda s: "Tables on" in s, "the lobby again")

    await in_terminal(tmp_path, [], play, mid_turn)
