"""The built-in Sushi Roll strategies: `random`, `greedy` and `heuristic` (and, in `ROLL_BUILTIN`,
`ismcts`, the search bot of `_search`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from sushigo.engine.games.sushi_roll import Reroll, RollAction, RollObservation, Swap, Take

from ._base import RollStrategy
from ._learned import RollLearnedStrategy
from ._search import RollSearchStrategy
from ._values import Context, context, greedy_value, heuristic_value, kind_faces


def _best(values: Sequence[float], rng: random.Random) -> int:
    """The index of the highest value; ties broken with `rng`."""
    top = max(values)
    best = [i for i, v in enumerate(values) if v > top - 1e-9]
    return best[0] if len(best) == 1 else best[rng.randrange(len(best))]


class RollRandomStrategy:
    """Random legal actions, biased towards taking so games end and tokens are not all burnt.

    When re-rolls or swaps are legal, it takes a uniformly random die with probability
    `take_bias` (1/2 by default) and otherwise picks uniformly among every legal action (takes
    included); with only takes legal, a uniformly random take.
    """

    name = "random"

    def __init__(self, take_bias: float = 0.5) -> None:
        self.take_bias = float(take_bias)

    def reset(self) -> None:
        """Nothing to forget."""

    def choose(
        self, observation: RollObservation, legal: Sequence[RollAction], rng: random.Random
    ) -> RollAction:
        """A random legal action, a take at least `take_bias` of the time."""
        takes = [a for a in legal if type(a) is Take]
        if takes and len(takes) < len(legal) and rng.random() < self.take_bias:
            return takes[rng.randrange(len(takes))]
        return legal[rng.randrange(len(legal))]


class RollGreedyStrategy:
    """Takes the die with the best immediate marginal points (`_values.greedy_value`); never
    spends a token."""

    name = "greedy"

    def reset(self) -> None:
        """Nothing to forget."""

    def choose(
        self, observation: RollObservation, legal: Sequence[RollAction], rng: random.Random
    ) -> RollAction:
        """The best take now; ties broken at random."""
        ctx = context(observation)
        takes = [a for a in legal if type(a) is Take]
        belt = observation.players[ctx.me].belt
        values = [greedy_value(belt[a.position].face, ctx) for a in takes]
        return takes[_best(values, rng)]


class RollHeuristicStrategy:
    """`heuristic_value` for every die, plus token use.

    Before taking, it compares two moves with the best take on its own belt: a **re-roll** (menu)
    of every die worth less than its kind's average, when the expected best die afterwards beats
    the best take by more than `reroll_cost`; a **swap** (chopsticks) of its least valuable die for
    the most valuable die on another belt, when that die beats the best take by more than
    `swap_margin`. It plays the larger gain over its cost, then is asked again; otherwise it takes
    the best die.
    """

    name = "heuristic"

    def __init__(self, reroll_cost: float = 1.0, swap_margin: float = 2.5) -> None:
        self.reroll_cost = float(reroll_cost)
        self.swap_margin = float(swap_margin)

    def reset(self) -> None:
        """Nothing to forget."""

    def choose(
        self, observation: RollObservation, legal: Sequence[RollAction], rng: random.Random
    ) -> RollAction:
        """A re-roll or swap worth its token, else the best take."""
        ctx = context(observation)
        me = ctx.me
        view = observation.players[me]
        belt = view.belt
        values = [heuristic_value(die.face, ctx) for die in belt]
        options: list[tuple[float, RollAction]] = []
        if view.usable_menu > 0:
            reroll = self._reroll(observation, ctx, values)
            if reroll is not None:
                options.append(reroll)
        if view.usable_chopsticks > 0:
            swap = self._swap(observation, ctx, values)
            if swap is not None:
                options.append(swap)
        legal_set = set(legal)
        options = [o for o in options if o[0] > 0 and o[1] in legal_set]
        if options:
            return max(options, key=lambda o: o[0])[1]
        take = Take(_best(values, rng))
        if take in legal_set:
            return take
        takes = [a for a in legal if type(a) is Take]
        return takes[0] if takes else legal[0]

    def _reroll(
        self, obs: RollObservation, ctx: Context, values: Sequence[float]
    ) -> tuple[float, RollAction] | None:
        belt = obs.players[ctx.me].belt
        spreads = [[heuristic_value(f, ctx) for f in kind_faces(die.kind)] for die in belt]
        chosen = [i for i, v in enumerate(values) if v < sum(spreads[i]) / 6 - 1e-9]
        if not chosen:
            return None
        kept = max((v for i, v in enumerate(values) if i not in chosen), default=float("-inf"))
        expected = _expected_max(kept, [spreads[i] for i in chosen])
        gain = expected - max(values) - self.reroll_cost
        return gain, Reroll(tuple(chosen))

    def _swap(
        self, obs: RollObservation, ctx: Context, values: Sequence[float]
    ) -> tuple[float, RollAction] | None:
        top: tuple[float, int, int] | None = None
        for seat, player in enumerate(obs.players):
            if seat == ctx.me:
                continue
            for j, die in enumerate(player.belt):
                v = heuristic_value(die.face, ctx)
                if top is None or v > top[0]:
                    top = (v, seat, j)
        if top is None or not values:
            return None
        mine = min(range(len(values)), key=values.__getitem__)
        gain = top[0] - max(values) - self.swap_margin
        return gain, Swap(mine, top[1], top[2])


def _expected_max(kept: float, spreads: Sequence[Sequence[float]]) -> float:
    """E[max(kept, X1, ..., Xk)], each X uniform over its six values."""
    points = sorted({*(v for s in spreads for v in s), *([kept] if kept > float("-inf") else [])})
    expected, previous = 0.0, 0.0
    for v in points:
        cdf = 1.0 if kept <= v else 0.0
        for s in spreads:
            cdf *= sum(1 for x in s if x <= v) / len(s)
        expected += v * (cdf - previous)
        previous = cdf
    return expected


ROLL_BUILTIN: dict[str, Callable[..., RollStrategy]] = {
    "random": RollRandomStrategy,
    "greedy": RollGreedyStrategy,
    "heuristic": RollHeuristicStrategy,
    "ismcts": RollSearchStrategy,
    "learned": RollLearnedStrategy,
}
"""The built-in Sushi Roll strategies by name (the card game's names, Sushi Roll's play)."""
