"""The strategy interface: an observation and its legal actions in, one action out."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from sushigo.engine import Action, Observation


@runtime_checkable
class Strategy(Protocol):
    """How a bot plays one seat. See docs/BOTS.md.

    A strategy sees exactly what a player at the table sees: its seat's `Observation` (its own hand
    and everything public) and the legal actions computed from it. It never gets the `Game`. All of
    its randomness must come from the `rng` it is given, so a game replays from its seeds.

    One instance plays one seat of one game at a time. `reset()` is called before every new game, so
    a strategy may remember what it saw on earlier turns (hands passed to it, earlier rounds'
    tableaus) between calls to `choose`. (A user's class loaded from a spec may leave `reset` out:
    runners call it only when it exists.)
    """

    def reset(self) -> None:
        """Forget everything about the previous game; called before each new game."""

    def choose(
        self, observation: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """One of `legal` (never empty) for `observation.seat` this turn."""
        ...


class StrategyError(ValueError):
    """A strategy could not be found or built from its name or spec; the message says why."""
