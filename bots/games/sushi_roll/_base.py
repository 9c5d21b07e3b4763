"""The Sushi Roll strategy interface: the card game's shape over Sushi Roll observations."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from sushigo.engine.games.sushi_roll import RollAction, RollObservation


@runtime_checkable
class RollStrategy(Protocol):
    """How a bot plays one seat of a Sushi Roll game (see docs/BOTS.md, "The interface").

    `choose` is called once per action: a turn is any number of re-rolls and swaps, then one take,
    so a strategy is asked again after each re-roll or swap until it takes a die. All randomness
    comes from `rng`. `reset()` is called before every new game.
    """

    def reset(self) -> None:
        """Forget everything about the previous game."""

    def choose(
        self, observation: RollObservation, legal: Sequence[RollAction], rng: random.Random
    ) -> RollAction:
        """One of `legal` (never empty) for `observation.seat`, the seat to move."""
        ...


RollStrategyFactory = Callable[[], RollStrategy]
"""Makes a fresh Sushi Roll strategy instance."""
