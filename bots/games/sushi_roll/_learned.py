"""Sushi Roll's `learned` strategy: a policy network over the PettingZoo environment's encoding.

The network reads the seat's observation as `sushi_roll_v0` encodes it
(`bots.games.sushi_roll._pz_encoding`) and scores every index of the environment's action space; the
bot plays the legal action of highest score. It was trained in that environment by imitating
the search bot (`ismcts`): one step of expert iteration (``scripts/train_learned_roll.py``,
docs/BOTS.md "The learned bot"). The weights, one network per player count, are
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


class RollLearnedStrategy:
    """The legal action the policy network scores highest (ties broken with `rng`); `explore`
    is the chance of a uniformly random legal action instead."""

    name = "learned"

    def __init__(self, weights: str = "", explore: float = 0.0) -> None:
        numpy_or_error()
        from sushigo.bots.games.sushi_roll._pz_encoding import SushiRollEncoding  # noqa: PLC0415

        self._nets = load_nets(Path(weights) if weights else WEIGHTS)
        self._encoding_class = SushiRollEncoding
        self._encodings: dict[int, Any] = {}
        self._explore = float(explore)

    def reset(self) -> None:
        """Nothing to forget: everything in Sushi Roll is public."""

    def scores(self, observation: RollObservation, legal: Sequence[RollAction]) -> list[float]:
        """The network's score of each of `legal`."""
        n = len(observation.players)
        net = self._nets.get(n)
        if net is None:
            raise StrategyError(f"no learned network for {n} players")
        encoding = self._encodings.get(n)
        if encoding is None:
            encoding = self._encodings[n] = self._encoding_class(n)
        seat = observation.seat
        if seat is None:
            raise StrategyError("the learned strategy plays a seat, not a spectator")
        out = net(encoding.encode(observation, seat)[None, :])[0]
        return [float(out[encoding.action_index(action, seat)]) for action in legal]

    def choose(
        self, observation: RollObservation, legal: Sequence[RollAction], rng: random.Random
    ) -> RollAction:
        """The legal action of highest score."""
        if len(legal) == 1:
            return legal[0]
        if self._explore and rng.random() < self._explore:
            return legal[rng.randrange(len(legal))]
        scores = self.scores(observation, legal)
        top = max(scores)
        best = [i for i, v in enumerate(scores) if v > top - 1e-6]
        return legal[best[0] if len(best) == 1 else best[rng.randrange(len(best))]]
