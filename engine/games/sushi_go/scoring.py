"""Round and pudding scoring for Sushi Go!, as RULES.md section 1 and docs/RULES.md state them.

The public contract (DESIGN.md) is `score_round(tableaus)` over card names and
`score_puddings(puddings)`. The game uses `round_breakdown`, the same computation over `Card`
values that also reports the points per category, so there is exactly one scorer.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from operator import or_
from typing import NamedTuple

from .cards import (
    COLOUR_FAMILIES,
    DUMPLING_POINTS,
    MAKI_FIRST,
    MAKI_ICONS,
    MAKI_SECOND,
    NIGIRI_POINTS,
    NUM_KINDS,
    PUDDING_FEWEST,
    PUDDING_MOST,
    SASHIMI_POINTS,
    SASHIMI_SET,
    SOY_SAUCE_POINTS,
    TEMPURA_POINTS,
    TEMPURA_SET,
    WASABI_MULTIPLIER,
    Card,
)
from .legal import NIGIRI_SHIFT

__all__ = [
    "RoundPoints",
    "packed_breakdown",
    "packed_round",
    "round_breakdown",
    "score_puddings",
    "score_round",
]

_TEMPURA, _SASHIMI, _DUMPLING = Card.TEMPURA, Card.SASHIMI, Card.DUMPLING
_WASABI, _SOY = Card.WASABI, Card.SOY_SAUCE
_M1, _M2, _M3 = Card.MAKI1, Card.MAKI2, Card.MAKI3
_I1, _I2, _I3 = MAKI_ICONS[_M1], MAKI_ICONS[_M2], MAKI_ICONS[_M3]
_EGG, _SALMON, _SQUID = Card.EGG, Card.SALMON, Card.SQUID
_V_EGG, _V_SALMON, _V_SQUID = NIGIRI_POINTS[_EGG], NIGIRI_POINTS[_SALMON], NIGIRI_POINTS[_SQUID]
_NIGIRI = {int(c): n for c, n in NIGIRI_POINTS.items()}
_FAMILY = [COLOUR_FAMILIES[Card(v)] for v in range(NUM_KINDS)]
_MAX_DUMPLINGS = len(DUMPLING_POINTS) - 1
_tuple_new = tuple.__new__


class RoundPoints(NamedTuple):
    """One tableau's points for a round, by category (a NamedTuple: built every round end)."""

    maki: int
    """Maki race: 6 for most, 3 for second, split on ties."""
    tempura: int
    sashimi: int
    dumpling: int
    nigiri: int
    """Nigiri, tripled on wasabi."""
    soy_sauce: int
    """Soy sauce variant: 4 (split on ties) for the most colours."""

    @property
    def total(self) -> int:
        """The sum of every category."""
        return (
            self.maki + self.tempura + self.sashimi + self.dumpling + self.nigiri + self.soy_sauce
        )


def _split(points: int, k: int) -> int:
    """Points each of k tied players gets: an even split, remainder ignored."""
    return points // k


def _maki_points(icons: Sequence[int]) -> list[int]:
    """Most icons 6, second 3; ties split and a tie for first awards no second. Zero icons: out."""
    first = max(icons, default=0)
    if first <= 0:
        return [0] * len(icons)
    tied = icons.count(first)
    if tied > 1:
        share = _split(MAKI_FIRST, tied)
        return [share if n == first else 0 for n in icons]
    second = 0
    for n in icons:
        if second < n < first:
            second = n
    share2 = _split(MAKI_SECOND, icons.count(second)) if second else 0
    return [MAKI_FIRST if n == first else share2 if n == second and second else 0 for n in icons]


def _soy_points(colours: Sequence[int], has_soy: Sequence[bool]) -> list[int]:
    """4 to a soy sauce player with the table's highest colour count; such players split 4 // k."""
    out = [0] * len(colours)
    if not any(has_soy):
        return out
    top = max(colours)
    winners = [i for i, n in enumerate(colours) if has_soy[i] and n == top]
    for i in winners:
        out[i] = _split(SOY_SAUCE_POINTS, len(winners))
    return out


def round_breakdown(tableaus: Sequence[list[Card]]) -> list[RoundPoints]:
    """Score one round: each tableau lists a player's cards (`Card` values) in the order played.

    A nigiri is tripled when its owner had an uncovered wasabi before it in that order (which wasabi
    it covers cannot change a score). Every tableau takes part in the maki and soy sauce comparisons.
    """
    icons: list[int] = []
    partial: list[tuple[int, int, int, int]] = []
    for tableau in tableaus:
        # list.count runs in C and matches cards by identity first: cheaper than a Python loop
        # over the tableau, for the dozen kinds a round's scoring needs.
        n = tableau.count
        if n(_WASABI):
            nigiri = _wasabi_nigiri(tableau)
        else:
            nigiri = n(_EGG) * _V_EGG + n(_SALMON) * _V_SALMON + n(_SQUID) * _V_SQUID
        icons.append(n(_M1) * _I1 + n(_M2) * _I2 + n(_M3) * _I3)
        partial.append(
            (
                n(_TEMPURA) // TEMPURA_SET * TEMPURA_POINTS,
                n(_SASHIMI) // SASHIMI_SET * SASHIMI_POINTS,
                DUMPLING_POINTS[min(n(_DUMPLING), _MAX_DUMPLINGS)],
                nigiri,
            )
        )
    soy = None
    if any(_SOY in tableau for tableau in tableaus):
        colours = [len({_FAMILY[card] for card in tableau}) for tableau in tableaus]
        soy = _soy_points(colours, [_SOY in tableau for tableau in tableaus])
    return _assemble(icons, partial, soy)


def _assemble(
    icons: list[int], partial: list[tuple[int, int, int, int]], soy: list[int] | None
) -> list[RoundPoints]:
    """Every tableau's RoundPoints from its maki icons, its (tempura, sashimi, dumpling, nigiri)
    points and the soy sauce points (None: nobody played soy sauce)."""
    maki = _maki_points(icons)
    if soy is None:
        soy = [0] * len(partial)
    # tuple.__new__ skips the NamedTuple's Python-level __new__ (this runs every round end).
    return [
        _tuple_new(RoundPoints, (maki[i], t, s, d, n, soy[i]))
        for i, (t, s, d, n) in enumerate(partial)
    ]


# The packed layout (4 bits per kind, as `engine.games.sushi_go.legal` packs hands) puts tempura,
# sashimi and dumplings in the low 12 bits and the three maki in the next 12: one table look-up
# each.
assert tuple(range(6)) == (_TEMPURA, _SASHIMI, _DUMPLING, _M1, _M2, _M3)
_SHIFT_SOY = 4 * _SOY
# Built from per-nibble tables, the lowest nibble varying fastest: 0.4 ms of every command's
# start-up, against 1.3 for working each of the 4,096 codes out bit by bit.
_BY_COUNT = range(16)
_TEMPURAS = [n // TEMPURA_SET * TEMPURA_POINTS for n in _BY_COUNT]
_SASHIMIS = [n // SASHIMI_SET * SASHIMI_POINTS for n in _BY_COUNT]
_DUMPLINGS = [DUMPLING_POINTS[min(n, _MAX_DUMPLINGS)] for n in _BY_COUNT]
_SETS_BY_CODE = [(t, s, d, t + s + d) for d in _DUMPLINGS for s in _SASHIMIS for t in _TEMPURAS]
"""(tempura, sashimi, dumpling) points and their sum by the low 12 bits of a packed tableau."""
_ICONS_BY_CODE = [
    i1 + i2 + i3
    for i3 in [n * _I3 for n in _BY_COUNT]
    for i2 in [n * _I2 for n in _BY_COUNT]
    for i1 in [n * _I1 for n in _BY_COUNT]
]
"""Maki icons by bits 12-23 of a packed tableau."""


_MAKI_CACHE: dict[tuple[int, ...], list[int]] = {}
"""`_maki_points` by the table's icons: a few thousand distinct tuples cover nearly every round."""
_MAKI_CACHE_LIMIT = 1 << 16
_PUDDING_SHIFT = 4 * Card.PUDDING


def packed_breakdown(codes: Sequence[int]) -> list[RoundPoints]:
    """`round_breakdown` for the game's own state: each tableau as a packed count code (4 bits per
    card kind, as `engine.games.sushi_go.legal` packs hands; no kind more than 15 times) with its
    nigiri points from `engine.games.sushi_go.legal.NIGIRI_SHIFT` up, worked out in play order as
    the cards were placed."""
    return list(packed_round(codes, True)[0])


def packed_round(
    codes: Sequence[int], soy_sauce: bool
) -> tuple[tuple[RoundPoints, ...], list[int], list[int]]:
    """A round's end from the game's packed tableaus (see `packed_breakdown`): every tableau's
    points, their totals, and the puddings each kept, in one pass. `soy_sauce`: whether the deck
    holds the card (without it, nobody can have played one)."""
    icons = tuple([_ICONS_BY_CODE[c >> 12 & 4095] for c in codes])
    maki = _MAKI_CACHE.get(icons)
    if maki is None:
        if len(_MAKI_CACHE) >= _MAKI_CACHE_LIMIT:
            _MAKI_CACHE.clear()
        maki = _MAKI_CACHE[icons] = _maki_points(icons)
    soy: Sequence[int]
    if soy_sauce and reduce(or_, codes) >> _SHIFT_SOY & 15:
        kinds = range(NUM_KINDS)
        colours = [len({_FAMILY[k] for k in kinds if c >> (k << 2) & 15}) for c in codes]
        soy = _soy_points(colours, [c >> _SHIFT_SOY & 15 > 0 for c in codes])
    else:
        soy = _NO_SOY[len(codes)]
    # A plain loop (a comprehension would star-unpack each look-up into a list first), and
    # tuple.__new__ skips the NamedTuple's Python-level __new__: this runs every round end.
    points = []
    totals = []
    for m, c, y in zip(maki, codes, soy):  # noqa: B905 (equal lengths; strict=True is slow)
        t, s, d, sets = _SETS_BY_CODE[c & 4095]
        nigiri = c >> NIGIRI_SHIFT
        points.append(_tuple_new(RoundPoints, (m, t, s, d, nigiri, y)))
        totals.append(m + sets + nigiri + y)
    return tuple(points), totals, [c >> _PUDDING_SHIFT & 15 for c in codes]


_NO_SOY = [(0,) * n for n in range(8)]
"""Everyone's soy sauce points in a round where nobody played one, by the number of tableaus."""


def _wasabi_nigiri(tableau: list[Card]) -> int:
    """Nigiri points of a tableau with wasabi: walk it in play order."""
    points = 0
    open_wasabi = 0
    for card in tableau:
        value = _NIGIRI.get(card)
        if value is not None:
            if open_wasabi:
                open_wasabi -= 1
                value *= WASABI_MULTIPLIER
            points += value
        elif card == _WASABI:
            open_wasabi += 1
    return points


def score_round(tableaus: list[list[str]]) -> list[int]:
    """Each player's points for one round of Sushi Go!.

    `tableaus[i]` is player i's cards in the order they were played this round, by name
    (``tempura sashimi dumpling maki1 maki2 maki3 egg salmon squid wasabi chopsticks pudding
    soy_sauce``), so wasabi-then-nigiri is visible. Puddings score nothing here (see
    `score_puddings`). An unknown name raises `ValueError` naming it.
    """
    cards = [[Card.from_label(name) for name in tableau] for tableau in tableaus]
    return [points.total for points in round_breakdown(cards)]


def score_puddings(puddings: list[int]) -> list[int]:
    """End-of-game pudding points for each player's pudding count.

    Most: +6 split as 6 // k among k tied. Fewest (zero counts): -(6 // k) each. Nobody scores when
    every count is equal, and with two players nobody loses points. (A dummy counts as a third
    player, so pass its count too.)
    """
    k = len(puddings)
    if k < 2:
        if k and puddings[0] < 0:
            raise ValueError("pudding counts cannot be negative")
        return [0] * k
    # min and max without `default=` (a keyword argument takes CPython's slow call path), the
    # counts by list.count and each seat's points in one comprehension: every game ends here.
    most, fewest = max(puddings), min(puddings)
    if fewest < 0:
        raise ValueError("pudding counts cannot be negative")
    if most == fewest:
        return [0] * k
    top = PUDDING_MOST // puddings.count(most)
    if k == 2:
        return [top if n == most else 0 for n in puddings]
    bottom = -(PUDDING_FEWEST // puddings.count(fewest))
    return [top if n == most else bottom if n == fewest else 0 for n in puddings]
