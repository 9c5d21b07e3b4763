"""Sushi Roll's `learned` strategy: a one-ply search over a value network of afterstates.

The candidates are the search bot's (`_search.candidates_of`: every distinct take, re-rolls of
the worst dice, swaps for the best dice elsewhere). A network scores afterstates, the table right
after a take seen from the taker's seat (`_afterstate`): its chance to win and its final margin
over the others. A take is worth its afterstate; a swap, the best take from the belt it leaves;
a re-roll, the mean over `samples` sampled rolls of the best take from the belt as it fell (so a
token spent shows in the afterstate as a token fewer). The bot plays the candidate of highest
value; after a re-roll or a swap it is asked again, from the dice as they are. One forward pass
of every candidate's rows (a few hundred with a re-roll to weigh), in numpy.

The networks (one per player count) were trained on the outcomes of games the search's rollout
policy and then the learned bot itself played in the search's simulator (`_sim.SimState`):
``scripts/train_learned_roll.py``, docs/BOTS.md "The learned bot". The weights are
`learned_roll.npz` beside this module; numpy comes from the extra ``rl``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sushigo.bots._base import StrategyError
from sushigo.bots._learned import load_nets, numpy_or_error
from sushigo.engine.games.sushi_roll import RollAction, RollObservation

WEIGHTS = Path(__file__).with_name("learned_roll.npz")
"""The shipped weights."""

SAMPLES = 8
"""Sampled rolls a re-roll is judged on."""
SWAPS = 3
"""Swap targets weighed (`_search.candidates_of`)."""
MARGIN_WEIGHT = 0.5
"""How much the predicted margin (final points over the others' mean, divided by
`MARGIN_SCALE`) counts beside the chance to win: it separates actions whose chances to win are
alike."""
MARGIN_SCALE = 20.0


class RollLearnedStrategy:
    """The candidate of highest value by the network of its player count (ties broken with
    `rng`); `explore` is the chance of a uniformly random legal action instead; `samples` the
    rolls a re-roll is judged on."""

    name = "learned"

    def __init__(self, weights: str = "", explore: float = 0.0, samples: int = SAMPLES) -> None:
        self._np = np = numpy_or_error()
        from ._afterstate import size  # noqa: PLC0415  # needs numpy

        path = Path(weights) if weights else WEIGHTS
        self._nets = load_nets(path)
        for players, net in self._nets.items():
            try:  # a network of other inputs (Sushi Go!'s, an older encoding's) fails here
                net(np.zeros((1, size(players)), dtype=np.float32))
            except ValueError:
                raise StrategyError(
                    f"the weights file {str(path)!r} holds no Sushi Roll afterstate network for "
                    f"{players} players"
                ) from None
        self._explore = float(explore)
        self._samples = int(samples)
        if self._samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples!r}")

    def reset(self) -> None:
        """Nothing to forget: everything in Sushi Roll is public."""

    def choose(
        self, observation: RollObservation, legal: Sequence[RollAction], rng: random.Random
    ) -> RollAction:
        """The legal candidate of highest value."""
        if len(legal) == 1:
            return legal[0]
        if self._explore and rng.random() < self._explore:
            return legal[rng.randrange(len(legal))]
        from ._sim import SimState  # noqa: PLC0415  # the simulator needs numpy's extra too

        if observation.seat is None:
            raise StrategyError("the learned strategy plays a seat, not a spectator")
        state = SimState.of(observation)
        allowed = set(legal)
        return self.decide(state, rng, allowed) or legal[0]

    def decide(
        self, state: Any, rng: random.Random, allowed: set[RollAction] | None = None
    ) -> RollAction | None:
        """The best candidate for the seat to move of `state` (a `_sim.SimState`), among
        `allowed` when given; None when there is none."""
        from ._afterstate import Afterstates  # noqa: PLC0415  # needs numpy
        from ._search import candidates_of  # noqa: PLC0415

        net = self._nets.get(state.n)
        if net is None:
            raise StrategyError(f"no learned network for {state.n} players")
        candidates = candidates_of(state, SWAPS)
        if allowed is not None:
            candidates = [a for a in candidates if a in allowed]
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        after = Afterstates(state)
        for action in candidates:
            after.add(action, self._samples, rng)
        out = net(after.matrix())
        np = self._np
        value = 0.5 + 0.5 * np.tanh(0.5 * out[:, 0]) + MARGIN_WEIGHT * out[:, 1]
        values = after.values(value)
        top = max(values)
        best = [i for i, v in enumerate(values) if v > top - 1e-6]
        return candidates[best[0] if len(best) == 1 else best[rng.randrange(len(best))]]
