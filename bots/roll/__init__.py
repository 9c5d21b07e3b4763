"""Sushi Roll strategies: a `RollObservation` in, a `RollAction` out. Pure, like `bots`.

The built-in names are the card game's (`random`, `greedy`, `heuristic`, and `ismcts`: the search
bot, `RollSearchStrategy`); ask for the Sushi Roll ones with `get_roll_strategy(spec)` or
`bots.get_strategy(spec, game="sushi-roll")`. User specs (``path/to/file.py:Class``,
``module:Class``, ``@key=value``) work as for the card game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

# bots._registry imports this package's strategies, so it may be half-initialized here: bind the
# module and look `strategy_factory` up at call time.
from sushigo.bots import _registry

from ._base import RollStrategy, RollStrategyFactory
from ._search import RollSearchStrategy
from ._strategies import (
    ROLL_BUILTIN,
    RollGreedyStrategy,
    RollHeuristicStrategy,
    RollRandomStrategy,
)

__all__ = [
    "ROLL_BUILTIN",
    "RollGreedyStrategy",
    "RollHeuristicStrategy",
    "RollRandomStrategy",
    "RollSearchStrategy",
    "RollStrategy",
    "RollStrategyFactory",
    "get_roll_strategy",
    "roll_strategy_factory",
]


def roll_strategy_factory(
    spec: str, *, clock: Callable[[], float] | None = None
) -> RollStrategyFactory:
    """`bots.strategy_factory(spec, clock=clock, game="sushi-roll")`, typed for Sushi Roll."""
    factory = _registry.strategy_factory(spec, clock=clock, game="sushi-roll")
    return cast(RollStrategyFactory, factory)


def get_roll_strategy(spec: str) -> RollStrategy:
    """A new Sushi Roll strategy instance from a name or spec; `bots.StrategyError` if none."""
    return roll_strategy_factory(spec)()
