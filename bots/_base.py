"""The strategy interface, the same for every game: an observation and its legal actions in, one
action out."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Strategy(Protocol):
    """How a bot plays one seat of a game. See docs/BOTS.md.

    A strategy sees exactly what a player at the table sees: its seat's observation (the game's
    own, e.g. `engine.Observation` for Sushi Go!) and the legal actions computed from it. It never
    gets the game. All of its randomness must come from the `rng` it is given, so a game replays
    from its seeds.

    One instance plays one seat of one game at a time. `reset()` is called before every new game,
    so a strategy may remember what it saw on earlier turns (hands passed to it, earlier rounds'
    tableaus) between calls to `choose`. (A user's class loaded from a spec may leave `reset` out:
    runners call it only when it exists.)
    """

    def reset(self) -> None:
        """Forget everything about the previous game; called before each new game."""

    def choose(self, observation: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        """One of `legal` (never empty) for `observation`'s seat, now."""
        ...


StrategyFactory = Callable[[], Strategy]
"""Makes a fresh strategy instance (one per game keeps games independent)."""


class StrategyError(ValueError):
    """A strategy could not be found or built from its name or spec; the message says why."""
