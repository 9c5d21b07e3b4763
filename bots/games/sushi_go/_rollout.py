"""The fast playout policy of `ismcts`: a few table look-ups per card instead of the full value model.

A rollout picks for every seat on every simulated turn, so it must cost microseconds. It keeps its
own per-tableau counts (`SimState`, updated from the actions it applies) rather than asking the
game for observations, and values a card from small tables indexed by the picks left in the round.
It mimics a sensible player (the heuristic's priorities, roughly), which makes the search's model of
the other seats far better than uniform random play, and takes a random card a small share of the
time so the search sees some variety.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from sushigo.engine import Action, Game, Observation
from sushigo.engine.games.sushi_go.cards import (
    DUMPLING_POINTS,
    SASHIMI_POINTS,
    SASHIMI_SET,
    TEMPURA_POINTS,
    TEMPURA_SET,
    WASABI_MULTIPLIER,
)

from ._memory import counts_of
from ._values import (
    CHOPSTICKS,
    DUMPLING,
    ICONS,
    NIGIRI,
    PUDDING,
    SASHIMI,
    SOY,
    TEMPURA,
    WASABI,
)

_MAX_PICKS = 12
_ONE_MORE = tuple(1 - 0.7**t for t in range(_MAX_PICKS))
"""Rough odds of picking up one more card of a common kind in t picks."""
_TWO_MORE = tuple(max(0.0, 1 - 0.7**t - t * 0.3 * 0.7 ** (t - 1)) for t in range(_MAX_PICKS))
_DUMPLING_STEP = (*(float(b - a) for a, b in itertools.pairwise(DUMPLING_POINTS)), 0.0)
"""The points one more dumpling adds, by dumplings held (none past the table's last entry)."""


class SimState:
    """Per-tableau counts of a simulated round, kept in step with the actions applied."""

    __slots__ = ("counts", "hand_size", "icons", "wasabi")

    def __init__(self, counts: list[list[int]], wasabi: list[int], hand_size: int) -> None:
        self.counts = counts
        self.wasabi = wasabi
        self.icons = [c[3] + 2 * c[4] + 3 * c[5] for c in counts]
        self.hand_size = hand_size

    @classmethod
    def of(cls, obs: Observation) -> SimState:
        """The state the observation shows."""
        return cls(
            [counts_of(v.cards) for v in obs.tableaus],
            [v.open_wasabi for v in obs.tableaus],
            obs.options.hand_size,
        )

    def apply(self, actions: Sequence[Action], controller: int | None) -> None:
        """Record one turn's actions (call before `Game.apply`, with that turn's controller)."""
        for seat, (first, second, dummy) in enumerate(actions):
            self._add(seat, first)
            if second is not None:
                self._add(seat, second)
                self.counts[seat][CHOPSTICKS] -= 1
            if dummy is not None and controller is not None:
                self._add(len(actions), dummy)

    def _add(self, t: int, card: int) -> None:
        self.counts[t][card] += 1
        if card == WASABI:
            self.wasabi[t] += 1
        elif NIGIRI[card]:
            if self.wasabi[t]:
                self.wasabi[t] -= 1
        elif ICONS[card]:
            self.icons[t] += ICONS[card]


class RolloutPolicy:
    """Greedy on quick card values, with a random card `epsilon` of the time."""

    __slots__ = ("epsilon",)

    def __init__(self, epsilon: float = 0.1) -> None:
        self.epsilon = epsilon

    def choose(
        self, game: Game, state: SimState, seat: int, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """A single-card action for `seat` (with a random dummy card when it controls the dummy)."""
        if len(legal) == 1:
            return legal[0]
        if rng.random() < self.epsilon:
            while True:
                action = legal[int(rng.random() * len(legal))]
                if action.second is None:
                    return action
        picks_left = state.hand_size - game.turn
        counts = state.counts[seat]
        wasabi = state.wasabi[seat]
        icons = state.icons
        best: Action | None = None
        best_value = -1.0
        seen = 0
        for action in legal:
            if action.second is not None:
                continue
            card = action.first
            if seen >> card & 1:
                continue  # the same first card with another dummy card: valued already
            seen |= 1 << card
            value = _quick_value(card, counts, wasabi, icons, seat, picks_left)
            if value > best_value:
                best, best_value = action, value
        assert best is not None
        if best.dummy is None:
            return best
        options = [a for a in legal if a.first == best.first and a.second is None]
        return options[int(rng.random() * len(options))]


def _quick_value(
    card: int, counts: list[int], wasabi: int, icons: list[int], seat: int, picks_left: int
) -> float:
    """A cheap estimate of the points `card` brings its taker."""
    t = min(picks_left, _MAX_PICKS - 1)
    if card == TEMPURA:
        if counts[TEMPURA] % TEMPURA_SET == TEMPURA_SET - 1:
            return TEMPURA_POINTS
        return TEMPURA_POINTS * _ONE_MORE[t] * 0.8
    if card == SASHIMI:
        have = counts[SASHIMI] % SASHIMI_SET
        if have == SASHIMI_SET - 1:
            return SASHIMI_POINTS
        return SASHIMI_POINTS * (_ONE_MORE[t] * 0.7 if have == 1 else _TWO_MORE[t] * 0.55)
    if card == DUMPLING:
        return _DUMPLING_STEP[min(counts[DUMPLING], 5)] + (0.8 if t and counts[DUMPLING] < 4 else 0)
    nigiri = NIGIRI[card]
    if nigiri:
        return float(nigiri * WASABI_MULTIPLIER if wasabi else nigiri)
    if card == WASABI:
        return 0.0 if t < 2 else min(4.5, 1.2 * t) / (1 + wasabi)
    if ICONS[card]:
        mine = icons[seat]
        top = max(icons[i] for i in range(len(icons)) if i != seat)
        gain = ICONS[card]
        if mine <= top < mine + gain:
            return 1.2 * gain + 2.0  # takes the lead
        return 0.9 * gain
    if card == PUDDING:
        return 2.0
    if card == CHOPSTICKS:
        return 1.0 if t >= 4 else 0.0
    if card == SOY:
        return 1.5 if not counts[SOY] else 0.0
    return 0.0
