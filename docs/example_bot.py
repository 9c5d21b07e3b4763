"""An example Sushi Go! bot: loads with ``--strategies docs/example_bot.py:SashimiLover``.

A strategy is any class with a ``choose(observation, legal, rng)`` method (and, optionally,
``reset()``, called before each game). This one collects sashimi and takes nigiri on wasabi, and
otherwise plays the built-in heuristic. Read docs/BOTS.md for the interface.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from sushigo.bots import HeuristicStrategy
from sushigo.engine import Action, Card, Observation


class SashimiLover:
    """Sashimi first, a nigiri on an open wasabi second, else whatever the heuristic picks."""

    def __init__(self, greed: int = 1) -> None:
        # Constructor options come from the spec: docs/example_bot.py:SashimiLover@greed=2
        self.greed = greed
        self.fallback = HeuristicStrategy()

    def reset(self) -> None:
        """A new game starts: forget the last one (the heuristic remembers cards it saw)."""
        self.fallback.reset()

    def choose(
        self, observation: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """One of `legal`. `observation` is all this seat may know: its hand and the tableaus."""
        # Always call the fallback, so its memory sees every turn of the game.
        default = self.fallback.choose(observation, legal, rng)
        me = observation.tableaus[observation.seat or 0]
        singles = [a for a in legal if a.second is None]
        sashimi = [a for a in singles if a.first == Card.SASHIMI]
        if sashimi and me.cards.count(Card.SASHIMI) % 3 < 2 + self.greed:
            return sashimi[rng.randrange(len(sashimi))]
        if me.open_wasabi:
            nigiri = [a for a in singles if a.first in (Card.SQUID, Card.SALMON)]
            if nigiri:
                return max(nigiri, key=lambda a: a.first)
        return default
