"""Rock-paper-scissors' strategies and levels: its part in `bots` (``STRATEGIES``, ``LEVELS``,
``DEFAULT``)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .engine import BEATS, THROWS, RpsObservation, Throw


class RandomThrow:
    """Any throw."""

    def choose(
        self, observation: RpsObservation, legal: Sequence[Throw], rng: random.Random
    ) -> Throw:
        return rng.choice(list(legal))


class Rock:
    """Always rock."""

    def choose(
        self, observation: RpsObservation, legal: Sequence[Throw], rng: random.Random
    ) -> Throw:
        return Throw("rock")


class Counter:
    """The throw that beats the other seat's last one (rock to begin with): it beats a bot that
    repeats itself."""

    def choose(
        self, observation: RpsObservation, legal: Sequence[Throw], rng: random.Random
    ) -> Throw:
        if not observation.last or observation.seat is None:
            return Throw("rock")
        theirs = observation.last[1 - observation.seat]
        return Throw(next(t for t in THROWS if BEATS[t] == theirs))


STRATEGIES = {"random": RandomThrow, "rock": Rock, "counter": Counter}

LEVELS = {"easy": "rock", "medium": "random", "hard": "counter"}
"""Its levels: no expert (a game offers the levels it has)."""

DEFAULT = "random"
