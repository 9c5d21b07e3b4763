"""Sushi Roll scoring: a round's trays, and the end of the game (puddings, leftover tokens).

Everything here follows RULES.md section 2 and docs/RULES.md ("Sushi Roll"). The game uses
`round_breakdown` over `Face` values; `score_round` is the same computation over face labels, for
other parts of the project and outside checks, so there is exactly one scorer. Each race's rule is
also stated for one seat on plain ints (`maki_award`, `pudding_award`, `nigiri_value`): the
search bot's simulator (bots/games/sushi_roll/_sim.py) scores its playouts with them, so it plays
the rules written here rather than a copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .dice import (
    APPETIZER_POINTS,
    MAKI_FIRST,
    MAKI_ICONS,
    MAKI_SECOND,
    NIGIRI_POINTS,
    PUDDING_FEWEST,
    PUDDING_MOST,
    TOKENS_PER_BONUS_POINT,
    WASABI_MULTIPLIER,
    Face,
)

__all__ = [
    "RoundPoints",
    "appetizer_points",
    "maki_award",
    "maki_points",
    "nigiri_points",
    "nigiri_value",
    "pudding_award",
    "round_breakdown",
    "score_puddings",
    "score_round",
    "token_bonus",
]


class RoundPoints(NamedTuple):
    """One player's points for a round, by category."""

    maki: int
    """Maki race: 6 for the most icons, 3 for the second most, full points to every tied player."""
    dumpling: int
    tempura: int
    sashimi: int
    nigiri: int
    """Nigiri, tripled on wasabi."""

    @property
    def appetizers(self) -> int:
        """Dumpling, tempura and sashimi together."""
        return self.dumpling + self.tempura + self.sashimi

    @property
    def total(self) -> int:
        """The sum of every category."""
        return self.maki + self.dumpling + self.tempura + self.sashimi + self.nigiri


def appetizer_points(face: Face, icons: int) -> int:
    """Points for `icons` icons of one appetizer: sets of 3 repeat, (n // 3) * T[3] + T[n % 3].

    So 4 tempura score 10 + 1 = 11, and 2 sashimi score 6.
    """
    table = APPETIZER_POINTS[face]
    return icons // 3 * table[3] + table[icons % 3]


def maki_award(mine: int, top: int, second: int) -> int:
    """Maki points for `mine` icons when the most icons at the table are `top` and the next
    distinct positive count is `second` (0 if none), `mine` counted among them or not: most icons
    6, second most 3, every tied player the full points; zero icons are not in the race."""
    if mine <= 0:
        return 0
    if mine >= top:
        return MAKI_FIRST
    if mine >= second:
        return MAKI_SECOND
    return 0


def maki_points(icons: Sequence[int]) -> list[int]:
    """Most icons 6, second most 3; every tied player gets the full points, and second place is
    still awarded after a tie for first (4, 4, 3, 3 score 6, 6, 3, 3). Zero icons: not in the race.
    """
    present = sorted({n for n in icons if n > 0}, reverse=True)
    top, second = [*present, 0, 0][:2]
    return [maki_award(n, top, second) for n in icons]


def nigiri_value(points: int, open_wasabi: int) -> int:
    """What a nigiri of `points` scores when taken with `open_wasabi` uncovered wasabi on the
    tray: tripled on a wasabi (which it then covers), as printed without one."""
    return points * WASABI_MULTIPLIER if open_wasabi else points


def nigiri_points(tray: Sequence[Face]) -> int:
    """Nigiri points of a tray in the order its dice were taken: a nigiri taken while an uncovered
    wasabi lies on the tray goes on it and is tripled; wasabi alone scores nothing."""
    points = 0
    open_wasabi = 0
    for face in tray:
        if face == Face.WASABI:
            open_wasabi += 1
        elif face in NIGIRI_POINTS:
            points += nigiri_value(NIGIRI_POINTS[face], open_wasabi)
            if open_wasabi:
                open_wasabi -= 1
    return points


def round_breakdown(trays: Sequence[Sequence[Face]]) -> list[RoundPoints]:
    """Score one round: each tray lists a player's faces in the order the dice were taken."""
    icons = [sum(MAKI_ICONS.get(face, 0) for face in tray) for tray in trays]
    maki = maki_points(icons)
    out = []
    for i, tray in enumerate(trays):
        out.append(
            RoundPoints(
                maki[i],
                appetizer_points(Face.DUMPLING, tray.count(Face.DUMPLING)),
                appetizer_points(Face.TEMPURA, tray.count(Face.TEMPURA)),
                appetizer_points(Face.SASHIMI, tray.count(Face.SASHIMI)),
                nigiri_points(tray),
            )
        )
    return out


def score_round(trays: Sequence[Sequence[str]]) -> list[int]:
    """Each player's round points from trays of face labels in taken order (``"wasabi"``,
    ``"squid"``, ``"maki2"``...); `ValueError` naming an unknown label."""
    return [
        points.total
        for points in round_breakdown([[Face.from_label(label) for label in t] for t in trays])
    ]


def pudding_award(mine: int, most: int, fewest: int, players: int) -> int:
    """End-of-game pudding points for `mine` tokens when the others hold between `fewest` and
    `most` (`mine` counted among them or not), in a game of `players`: the most +6, the fewest
    -6 but never in a 2-player game, every tied player the full amount. **Ruling:** if everyone
    has the same number, nobody scores."""
    high, low = max(mine, most), min(mine, fewest)
    if high == low:
        return 0
    if mine == high:
        return PUDDING_MOST
    if mine == low and players > 2:
        return PUDDING_FEWEST
    return 0


def score_puddings(puddings: Sequence[int]) -> list[int]:
    """End-of-game pudding points from each player's pudding tokens (`pudding_award`)."""
    if not puddings:
        return []
    most, fewest, players = max(puddings), min(puddings), len(puddings)
    return [pudding_award(n, most, fewest, players) for n in puddings]


def token_bonus(menu: int, chopsticks: int) -> int:
    """End-of-game points for unused tokens: 1 per 2 menu and/or chopsticks, in any mix."""
    return (menu + chopsticks) // TOKENS_PER_BONUS_POINT
