"""Whole games in a real terminal (tmux, 80x24) against a real server: every screen's rows stay
rows (a long tableau goes on below itself, under its own column, never wrapping into the next
player's line), and the game-over screen shows the game as its last turn left it."""

from __future__ import annotations

import re
from pathlib import Path

from terminal import Keys, Until, needs_tmux
from tui_helpers import AGAINST_A_BOT, Tmux, in_terminal

from sushigo.client.tui.games.sushi_go.card_board import tableau_fragments
from sushigo.client.tui.games.sushi_go.cards import NAMES
from sushigo.engine import Card, TableauView

pytestmark = needs_tmux

CARD_BY_NAME = {name: card for card, name in NAMES.items()}
TURN = re.compile(r"round (\d)/3 · turn (\d+)/")


def _tableau_text(cards: list[Card]) -> str:
    view = TableauView(tuple(cards), (), 0, 0, 0, (), 0, False)
    return "".join(text for _, text, *_ in tableau_fragments(view))


def _hand(screen: str) -> list[tuple[str, Card]]:
    """The hand on screen: each card's number key and the card."""
    hand = []
    for line in screen.split("\n"):
        # "▸ 1 [ ] tempura       pair = 5": the cursor, the number, a mark, the name in 13.
        number, name = line[1:3].strip(), line[8:21].strip()
        if number.isdigit() and name in CARD_BY_NAME:
            hand.append((number, CARD_BY_NAME[name]))
    return hand


def _rows(screen: str) -> list[str]:
    """The players' window: the lines between the header and the fairness rule."""
    lines = screen.split("\n")
    rule = next(i for i, line in enumerate(lines) if line.startswith("── "))
    return lines[1:rule]


def _check_rows(screen: str) -> list[str]:
    """Every line of the players' window is a player's row or the continuation of one (under its
    tableau's column), and none reaches past the terminal's width: nothing wrapped."""
    rows = _rows(screen)
    for line in rows:
        assert re.match(r"^[▸ ]\S", line) or re.match(r"^ {37}│ \S", line), screen
        assert len(line) <= 80, screen
    return rows


def _our_row(rows: list[str]) -> str:
    """Our tableau, its continuation lines joined."""
    start = next(i for i, line in enumerate(rows) if line.startswith("▸you"))
    text = rows[start].split("│ ", 1)[1]
    for line in rows[start + 1 :]:
        if not line.startswith(" " * 37 + "│"):
            break
        text += " " + line.split("│ ", 1)[1]
    return text


async def _our_move(until: Until, keys: Keys, prompt: str) -> str | None:
    """The screen once it is our move (its status line says `prompt`), round scores closed on
    the way; None once the game is over."""
    while True:
        screen = await until(
            lambda s: prompt in s or "Round " in s or "Game over ·" in s,
            "our move, a round's scores or the game's end",
        )
        if "Game over ·" in screen:
            return None
        if "Round " in screen and "scores" in screen:
            await keys("Enter")
            await until(lambda s: "scores" not in s, "the scores closed")
            continue
        return screen


async def test_a_whole_sushi_go_game_keeps_its_rows_and_ends_on_the_last_turn_played(
    tmp_path: Path,
) -> None:
    """Each turn we play the card that makes our tableau's row longest (so it outgrows its
    column), checking the rows on every screen; the game-over screen has every hand empty and
    our last round's tableau with its last card."""
    seen_long = False

    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        nonlocal seen_long
        played: list[Card] = []
        last_round = 1
        while (screen := await _our_move(until, keys, "your pick")) is not None:
            rows = _check_rows(screen)
            # The keys line is whole, chopsticks ready or not.
            assert screen.rstrip("\n").split("\n")[-1].endswith("q: quit"), screen
            position = TURN.search(screen.split("\n")[0])
            assert position is not None, screen
            if int(position.group(1)) != last_round:
                played, last_round = [], int(position.group(1))
            assert _our_row(rows) == (_tableau_text(played) if played else "(nothing yet)")
            seen_long = seen_long or len(rows) > 2
            key, card = max(_hand(screen), key=lambda kc: len(_tableau_text([*played, kc[1]])))
            played.append(card)
            turn = position.group(0)
            await keys(key, "Enter")
            await until(lambda s, t=turn: t not in s.split("\n")[0], "the next turn")
        await keys("Enter")
        screen = await until(lambda s: "Enter: close" not in s, "the board under the scores")
        rows = _check_rows(screen)
        # Every hand is played out, and our tableau holds every card of the last round.
        assert all(" h0 " in row for row in rows if re.match(r"^[▸ ]\S", row)), screen
        assert "(empty)" in screen and "round 3/3 · game over" in screen
        assert _our_row(rows) == _tableau_text(played), screen

    await in_terminal(tmp_path, AGAINST_A_BOT, play)
    assert seen_long, "no tableau outgrew its row: the rows were not put to the test"


SHOWN_AS = {"wasabi": "W+"}
"""Dice a tray shows by another name than the log's (a wasabi, covered or not, is W+)."""


async def test_a_whole_sushi_roll_game_ends_with_the_trays_that_were_scored(
    tmp_path: Path,
) -> None:
    """Taking the first die of every turn to the game's end: the game-over screen shows every
    tray as the last round was scored (our last take on ours), the belts empty."""

    async def play(until: Until, keys: Keys, tmux: Tmux) -> None:
        while (screen := await _our_move(until, keys, "your move:")) is not None:
            head = screen.split("\n")[0]
            await keys("Enter")
            await until(lambda s, h=head: s.split("\n")[0] != h, "the next move")
        await keys("Enter")
        screen = await until(lambda s: "Enter: close" not in s, "the board under the scores")
        assert "round 3/3 · game over" in screen
        lines = screen.split("\n")
        trays = [line for line in lines if line.startswith("   tray ")]
        belts = [line for line in lines if line.startswith("   belt ")]
        assert len(trays) == 2 and len(belts) == 2, screen
        assert all("(empty tray)" not in tray for tray in trays), screen
        assert all(belt.strip() == "belt (empty)" for belt in belts), screen
        took = re.findall(r"R3C\d+ you took (\S+)", screen)
        assert took, screen
        mine = lines[next(i for i, line in enumerate(lines) if line.startswith("▸you")) + 2]
        last = took[-1].split(":")[0].rstrip("0123456789")
        assert SHOWN_AS.get(last, last) in mine, screen

    await in_terminal(tmp_path, [*AGAINST_A_BOT, "--game", "sushi-roll"], play)
