"""Sushi Go! strategies: an observation in, an action out. Pure: no IO, no clock, no global random.

Use `get_strategy("heuristic")` (or a spec such as ``"ismcts@iterations=500"``,
``"path/to/bot.py:MyBot"``, ``"package.module:MyBot"``) for a ready strategy, and see docs/BOTS.md
for the interface a strategy implements. The `sushigo-arena` command (`client.arena`) plays them against each other offline.
"""

from ._base import Strategy, StrategyError
from ._heuristic import HeuristicStrategy
from ._ismcts import IsmctsStrategy
from ._memory import HandKnowledge, SeatMemory
from ._registry import BUILTIN, StrategyFactory, get_strategy, strategy_factory
from ._simple import GreedyStrategy, RandomStrategy
from ._values import Tuning

__all__ = [
    "BUILTIN",
    "GreedyStrategy",
    "HandKnowledge",
    "HeuristicStrategy",
    "IsmctsStrategy",
    "RandomStrategy",
    "SeatMemory",
    "Strategy",
    "StrategyError",
    "StrategyFactory",
    "Tuning",
    "get_strategy",
    "strategy_factory",
]
