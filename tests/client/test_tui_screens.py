"""What the screens say, at the moment they say it, in a real terminal (tmux, 80x24) against a
real server: the table before its game, Sushi Roll's status line through a turn, a game paused
for a player alone with bots, a seat taken back by running the client again."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from terminal import Keys, Until, needs_tmux, terminal
from tui_helpers import AGAINST_A_BOT, Tmux, in_terminal, local_server, quit_in

pytestmark = needs_tmux


def _status(screen: str) -> str:
    """The status line (above the keys line)."""
    return screen.rstrip("\n").split("\n")[-2]


async def test_the_create_forms_bots_sit_at_the_table_before_the_game(tmp_path: Path) -> None:
    """A 4-seat table made with 1 bot: the bot is in its seat at once, two seats are empty, and
    the header names the table, not the lobby."""

    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        screen = await until(lambda s: "Tables on" in s, "the lobby")
        assert "lobby" in screen.split("\n")[0]
        await keys("n")
        await until(lambda s: "Create a table" in s, "the form")
        await keys(*["Down"] * 6)
        await until(lambda s: "▸ bots" in s, "the bots field")
        await keys("Left", "Left")
        await until(lambda s: "‹ 1 › of 3 empty seats" in s, "one bot")
        await keys("Enter")
        screen = await until(lambda s: "waiting for 2 more" in s, "the table")
        header = screen.split("\n")[0]
        assert "lobby" not in header and "Sushi Go! · table " in header and "e2e @" in header
        assert "seat 1: e2e [host]" in screen
        assert "seat 2: medium-bot1 [bot]" in screen
        assert screen.count("(empty)") == 2, screen
        await keys("l")
        await until(lambda s: "Tables on" in s, "the lobby again")

    await in_terminal(tmp_path, [], play)


async def test_sushi_rolls_status_line_says_how_a_reroll_and_a_swap_went(tmp_path: Path) -> None:
    """Re-roll two dice, then swap one: once each is done, the status line says what happened,
    not that it is still under way."""

    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        await until(lambda s: "your move:" in s, "our first move")
        await keys("1", "Space", "2", "Space", "r")
        screen = await until(lambda s: "you re-rolled" in s.split("│")[-1], "the re-roll")
        screen = await until(lambda s: "re-rolling" not in _status(s), "the re-roll's status")
        assert "you re-rolled" in _status(screen), screen
        await keys("s", "Enter")
        screen = await until(lambda s: "you swapped" in _status(s), "the swap's status")
        assert "swapping" not in screen and "menu 2" in screen, screen

    await in_terminal(tmp_path, [*AGAINST_A_BOT, "--game", "sushi-roll"], play)


async def test_a_player_alone_with_bots_who_lets_two_turns_pass_finds_the_game_paused(
    tmp_path: Path,
) -> None:
    """One-second turns against a bot, and we do not play: after two turns the game waits for us
    (the header and the status line say so, no countdown runs), and our pick carries it on."""

    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        screen = await until(lambda s: "paused" in s.split("\n")[0], "the pause")
        header = screen.split("\n")[0]
        assert "turn 3/10" in header and "paused: waiting for you" in header, screen
        assert "time" not in header, "no countdown while paused"
        assert "the game is paused until you play" in _status(screen), screen
        assert "▸you" in screen and "away" in screen.split("\n")[1], screen
        await keys("1", "Enter")
        screen = await until(lambda s: "turn 4/10" in s.split("\n")[0], "the next turn")
        assert "paused" not in screen.split("\n")[0]

    one_second_turns = list(AGAINST_A_BOT)
    one_second_turns[one_second_turns.index("--turn-seconds") + 1] = "1"
    await in_terminal(tmp_path, one_second_turns, play)


async def test_a_player_who_quits_mid_game_takes_the_seat_back_by_running_the_client_again(
    tmp_path: Path,
) -> None:
    """Quit in the middle of a game (the quit question says the seat is kept), run the client
    again without --bots: the same seat, at the same turn, with the table's names; and on."""
    state = tmp_path / "state"
    env = (f"XDG_STATE_HOME={state}",)
    async with local_server(tmp_path) as (host, port):
        client = [sys.executable, "-m", "sushigo.client.cli", f"{host}:{port}"]
        async with terminal(tmp_path, [*client, *AGAINST_A_BOT], env=env) as term:
            await term.until(lambda s: "your pick" in s and "turn 1/10" in s, "the first turn")
            await term.keys("1", "Enter")
            await term.until(lambda s: "your pick" in s and "turn 2/10" in s, "the second turn")
            asked = await quit_in(term)
            assert "run the client again, without --bots, to take it back" in asked
        (tmp_path / "output.fifo").unlink()
        async with terminal(tmp_path, client, env=env) as term:
            screen = await term.until(lambda s: "reconnected at seat 1" in s, "the seat again")
            assert "turn 2/10" in screen.split("\n")[0] and "random-bot1" in screen, screen
            assert "back at table" in screen
            await term.keys("1", "Enter")
            await term.until(lambda s: "turn 3/10" in s.split("\n")[0], "the third turn")
            await quit_in(term)


async def test_a_player_whose_terminal_closed_mid_game_takes_the_seat_back(tmp_path: Path) -> None:
    """The terminal window closed in the middle of a game (the client is hung up on, SIGHUP):
    running the client again takes the seat back, as after a quit, rather than finding the name
    taken by the seat held for it; run with --bots, it says how to take the seat back."""
    state = tmp_path / "state"
    env = (f"XDG_STATE_HOME={state}",)
    async with local_server(tmp_path) as (host, port):
        client = [sys.executable, "-m", "sushigo.client.cli", f"{host}:{port}", "--name", "hal"]
        async with terminal(tmp_path, [*client, *AGAINST_A_BOT], env=env) as term:
            await term.until(lambda s: "your pick" in s and "turn 1/10" in s, "the first turn")
            await term.keys("1", "Enter")
            await term.until(lambda s: "your pick" in s and "turn 2/10" in s, "the second turn")
            await term.term.tmux("kill-session", "-t", "play")  # the window closes
            kept = state / "sushigo" / "seats.json"
            deadline = asyncio.get_running_loop().time() + 20
            while not kept.exists():  # written by the client as it goes
                assert asyncio.get_running_loop().time() < deadline, "no seat kept"
                await asyncio.sleep(0.05)
        # The same command again asks for a new game: the name is the held seat's, and so said.
        again = await asyncio.create_subprocess_exec(
            *client, *AGAINST_A_BOT, env={**os.environ, "XDG_STATE_HOME": str(state)},
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _, err = await asyncio.wait_for(again.communicate(), 20)
        assert again.returncode == 1
        assert "without --bots to take it back" in err.decode(), err
        (tmp_path / "output.fifo").unlink()
        async with terminal(tmp_path, client, env=env) as term:
            screen = await term.until(lambda s: "reconnected at seat 1" in s, "the seat again")
            assert "turn 2/10" in screen.split("\n")[0], screen
            await quit_in(term)
