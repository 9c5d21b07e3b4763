"""The baseline strategy `greedy`: the best points now."""

from __future__ import annotations

import random
from collections.abc import Sequence

from sushigo.engine import Action, Observation
from sushigo.engine.games.sushi_go import cards as rules

from . import _values as values
from ._memory import counts_of


class GreedyStrategy:
    """The action with the most immediate points, unfinished sets counted pro rata.

    A tempura is worth 5 to complete a pair, else half of 5; a sashimi 10 to complete a triple, else
    a third of 10; a dumpling its marginal points; a nigiri its points (tripled on wasabi); maki and
    pudding their change in the race standings as they are now. Wasabi and chopsticks score nothing
    now, so they get a token point. No look-ahead, no memory.
    """

    name = "greedy"

    def reset(self) -> None:
        """Nothing to forget."""

    def choose(
        self, observation: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The best action by immediate value; ties broken at random."""
        me = observation.seat
        assert me is not None
        best: list[Action] = []
        top = float("-inf")
        for action in legal:
            value = self._value(observation, me, action)
            if value > top + 1e-9:
                top, best = value, [action]
            elif value > top - 1e-9:
                best.append(action)
        return best[rng.randrange(len(best))] if len(best) > 1 else best[0]

    @staticmethod
    def _value(obs: Observation, me: int, action: Action) -> float:
        view = obs.tableaus[me]
        counts = counts_of(view.cards)
        wasabi = view.open_wasabi
        icons = [float(sum(values.ICONS[c] for c in v.cards)) for v in obs.tableaus]
        puddings = [float(v.puddings) for v in obs.tableaus]
        value = 0.0
        for card in (action.first,) if action.second is None else (action.first, action.second):
            if card == values.TEMPURA:
                value += _set_value(counts[values.TEMPURA], rules.TEMPURA_SET, rules.TEMPURA_POINTS)
            elif card == values.SASHIMI:
                value += _set_value(counts[values.SASHIMI], rules.SASHIMI_SET, rules.SASHIMI_POINTS)
            elif card == values.DUMPLING:
                n = min(counts[values.DUMPLING], len(rules.DUMPLING_POINTS) - 2)
                value += rules.DUMPLING_POINTS[n + 1] - rules.DUMPLING_POINTS[n]
            elif values.NIGIRI[card]:
                value += values.NIGIRI[card] * (rules.WASABI_MULTIPLIER if wasabi else 1)
                wasabi = max(0, wasabi - 1)
            elif values.ICONS[card]:
                before = values.maki_points(icons, me)
                icons[me] += values.ICONS[card]
                value += values.maki_points(icons, me) - before
            elif card == values.PUDDING:
                before = values.pudding_points(puddings, me)
                puddings[me] += 1
                value += values.pudding_points(puddings, me) - before
            elif card == values.WASABI:
                value += 1.0
                wasabi += 1
            elif card == values.SOY:
                value += 2.0 if counts[values.SOY] == 0 else 0.0
            else:
                value += 0.5
            if card < rules.NUM_KINDS:
                counts[card] += 1
        return value


def _set_value(have: int, size: int, points: int) -> float:
    """One more card of a set of `size` that scores `points` when `have` are on the tableau: the
    whole set's points if it completes one, else its share of them."""
    return float(points) if have % size == size - 1 else points / size
