"""Sushi Roll strategies: a `RollObservation` in, a `RollAction` out. Pure, like `bots`.

The built-in names are the card game's (`random`, `greedy`, `heuristic`, and `ismcts`: the search
bot, `RollSearchStrategy`); ask for them with `bots.get_strategy(spec, game="sushi-roll")`. User
specs (``path/to/file.py:Class``, ``module:Class``, ``@key=value``) work as for the card game.
"""

from __future__ import annotations

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
]
