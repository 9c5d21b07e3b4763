"""The baseline strategy `random` (uniform over legal actions); `greedy` (best points now) is
`bots.games.sushi_go._greedy`, kept apart so that a run of `random` imports nothing else of
`bots`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import floor
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sushigo.engine import Action, Observation


class RandomStrategy:
    """Uniformly random legal action: the floor every other strategy must beat."""

    name = "random"

    def reset(self) -> None:
        """Nothing to forget."""

    def choose(
        self, observation: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """Any legal action, all equally likely."""
        # One C call (random.choice's own method before Python 3.2): `randrange` costs three
        # Python frames, a quarter of a random arena's time. The bias, under len(legal) / 2**53,
        # is far below anything a game can show. `floor` is `int` for a number that is not
        # negative, at under half the cost of a call of the type.
        return legal[floor(rng.random() * len(legal))]

    def choose_legal(self, legal: Sequence[Action], rng: random.Random) -> Action:
        """`choose` without the observation, which this strategy never reads: runners that can
        skip building one (the arena) call this instead. Draws exactly as `choose` does."""
        return legal[floor(rng.random() * len(legal))]
