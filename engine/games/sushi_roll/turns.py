"""Sushi Roll's order of play and its token supply, on plain ints (docs/RULES.md, "Sushi Roll").

`RollGame` plays these, and so does the search bot's simulator (bots/games/sushi_roll/_sim.py),
which keeps the state as small ints for speed: one statement of each rule for both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TypeVar

__all__ = [
    "NEXT_SEAT",
    "ROUND_OVER",
    "SLIDE",
    "after_take",
    "deal",
    "slide",
    "slides_between_rounds",
    "tokens_gained",
]

K = TypeVar("K")

NEXT_SEAT: Final = 0
"""After a take: the seat on the left moves next, in the same cycle."""
SLIDE: Final = 1
"""After a take: every seat has taken this cycle; the belts slide left and are rolled, and the
red-belt holder moves next."""
ROUND_OVER: Final = 2
"""After a take: the belts are empty; the round is scored."""


def after_take(moved: int, players: int, belt: Sequence[object]) -> int:
    """What follows a take when `moved` seats (this one included) have taken this cycle and a
    belt holds `belt`: `NEXT_SEAT`, `SLIDE` or `ROUND_OVER`. After a full cycle every belt holds
    as many dice as every other, so any one tells."""
    if moved < players:
        return NEXT_SEAT
    return SLIDE if belt else ROUND_OVER


def slides_between_rounds(players: int) -> bool:
    """Whether the belts slide once more between rounds: with 3 players only, whose red belt is
    back with the round's first player after 7 cycles, so that someone else starts."""
    return players == 3


def slide(belts: list[K], red: int) -> tuple[list[K], int]:
    """The belts by seat after they slide, and the seat that holds the red belt then: every belt
    goes to the seat on the left (seat i's to seat i + 1), the red one with the others."""
    return belts[-1:] + belts[:-1], (red + 1) % len(belts)


def deal(bag: Sequence[K], players: int, per_player: int, red: int) -> list[list[K]]:
    """The belts, by seat, of a round drawn from the shuffled `bag`: starting with the red-belt
    holder `red` and going left, each seat takes the next `per_player` dice from the front."""
    belts: list[list[K]] = [[] for _ in range(players)]
    for i in range(players):
        belts[(red + i) % players] = list(bag[i * per_player : (i + 1) * per_player])
    return belts


def tokens_gained(tokens: int, supply_left: int) -> int:
    """The tokens a face of `tokens` gains when the supply holds `supply_left`. **Ruling:** only
    what the supply still holds, none when it is empty."""
    return tokens if tokens <= supply_left else supply_left
