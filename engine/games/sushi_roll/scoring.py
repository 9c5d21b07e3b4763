"""Sushi Roll scoring: a round's trays, and the end of the game (puddings, leftover tokens).

Everything here follows RULES.md section 2 and docs/RULES.md ("Sushi Roll"). The game uses
`round_breakdown` over `Face` values; `score_round` is the same computation over face labels, for
other parts of the project and outside checks, so there is exactly one scorer.
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
    "maki_points",
    "nigiri_points",
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


def maki_points(icons: Sequence[int]) -> list[int]:
    """Most icons 6, second most 3; every tied player gets the full points, and second place is
    still awarded after a tie for first (4, 4, 3, 3 score 6, 6, 3, 3). Zero icons: not in the race.
    """
    present = sorted({n for n in icons if n > 0}, reverse=True)
    award = dict(zip(present, (MAKI_FIRST, MAKI_SECOND), strict=False))
    return [award.get(n, 0) if n > 0 else 0 for n in icons]


def nigiri_points(tray: Sequence[Face]) -> int:
    """Nigiri points of a tray in the order its dice were taken: a nigiri taken while an uncovered
    wasabi lies on the tray goes on it and is tripled; wasabi alone scores nothing."""
    points = 0
    open_wasabi = 0
    for face in tray:
        if face == Face.WASABI:
            open_wasabi += 1
        elif face in NIGIRI_POINTS:
            if open_wasabi:
                open_wasabi -= 1
                points += NIGIRI_POINTS[face] * WASABI_MULTIPLIER
            else:
                points += NIGIRI_POINTS[face]
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


def score_puddings(puddings: Sequence[int]) -> list[int]:
    """End-of-game pudding points from each player's pudding tokens.

    The most score +6 and the fewest (zero counts) -6, every tied player the full amount; nobody
    loses points in a 2-player game; **Ruling:** if everyone has the same number, nobody scores.
    """
    out = [0] * len(puddings)
    if not puddings:
        return out
    most, fewest = max(puddings), min(puddings)
    if most == fewest:
        return out
    for i, n in enumerate(puddings):
        if n == most:
            out[i] = PUDDING_MOST
        elif n == fewest and len(puddings) > 2:
            out[i] = PUDDING_FEWEST
    return out


def token_bonus(menu: int, chopsticks: int) -> int:
    """End-of-game points for unused tokens: 1 per 2 menu and/or chopsticks, in any mix."""
    return (menu + chopsticks) // TOKENS_PER_BONUS_POINT
