"""Strategies: an observation in, an action out. Pure: no IO, no clock, no global random.

One registry for every game, keyed by the game's kind: `get_strategy("heuristic", game="sushi-go")`
(or a spec such as ``"ismcts@iterations=500"``, ``"path/to/bot.py:MyBot"``,
``"package.module:MyBot"``, or a level for people: ``"easy"`` to ``"expert"``) gives a ready
strategy. Sushi Go!'s strategies are this package's
modules, Sushi Roll's are `bots.roll`; see docs/BOTS.md for the interface a strategy implements.
The `sushigo-arena` command (`client.arena`) plays them against each other offline.
"""

from ._base import Strategy, StrategyError, StrategyFactory
from ._cards import CARD_BUILTIN
from ._heuristic import HeuristicStrategy
from ._ismcts import IsmctsStrategy
from ._levels import DEFAULT_LEVEL, LEVELS, level_spec, levels
from ._memory import HandKnowledge, SeatMemory
from ._registry import builtin_names, builtins, get_strategy, strategy_factory
from ._simple import GreedyStrategy, RandomStrategy
from ._values import Tuning

__all__ = [
    "CARD_BUILTIN",
    "DEFAULT_LEVEL",
    "LEVELS",
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
    "builtin_names",
    "builtins",
    "get_strategy",
    "level_spec",
    "levels",
    "strategy_factory",
]
