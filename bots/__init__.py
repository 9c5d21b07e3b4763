"""Strategies: an observation in, an action out. Pure: no IO, no clock, no global random.

One registry for every game, keyed by the game's kind: `get_strategy("heuristic", game="sushi-go")`
(or a spec such as ``"ismcts@iterations=500"``, ``"path/to/bot.py:MyBot"``,
``"package.module:MyBot"``, or a level for people: ``"easy"`` to ``"expert"``) gives a ready
strategy. Each game's strategies, levels and research environments are found through the bots'
door (`bots._door`): Sushi Go!'s in `bots.games.sushi_go`, Sushi Roll's in `bots.games.sushi_roll`,
a plug-in's in its own module; see docs/BOTS.md for the interface a strategy implements. The
`sushigo-arena` command (`client.arena`) plays them against each other offline.

The strategies' classes are imported when first named (``from sushigo.bots import
IsmctsStrategy``, or through the registry): a command that plays `random` never imports the search
bots or the learned bot.
"""

from typing import TYPE_CHECKING

from ._base import Strategy, StrategyError, StrategyFactory
from ._lazy import names_later
from ._levels import DEFAULT_LEVEL, LEVELS, level_spec, levels
from ._registry import (
    DEFAULT_BOT,
    builtin_names,
    builtins,
    default_strategy,
    get_strategy,
    strategy_factory,
)

if TYPE_CHECKING:
    from .games.sushi_go._cards import CARD_BUILTIN
    from .games.sushi_go._greedy import GreedyStrategy
    from .games.sushi_go._heuristic import HeuristicStrategy
    from .games.sushi_go._ismcts import IsmctsStrategy
    from .games.sushi_go._memory import HandKnowledge, SeatMemory
    from .games.sushi_go._simple import RandomStrategy
    from .games.sushi_go._values import Tuning

_LATER = {
    "CARD_BUILTIN": "sushigo.bots.games.sushi_go._cards:CARD_BUILTIN",
    "GreedyStrategy": "sushigo.bots.games.sushi_go._greedy:GreedyStrategy",
    "HandKnowledge": "sushigo.bots.games.sushi_go._memory:HandKnowledge",
    "HeuristicStrategy": "sushigo.bots.games.sushi_go._heuristic:HeuristicStrategy",
    "IsmctsStrategy": "sushigo.bots.games.sushi_go._ismcts:IsmctsStrategy",
    "RandomStrategy": "sushigo.bots.games.sushi_go._simple:RandomStrategy",
    "SeatMemory": "sushigo.bots.games.sushi_go._memory:SeatMemory",
    "Tuning": "sushigo.bots.games.sushi_go._values:Tuning",
}
"""The names imported from their modules when first asked for (`__getattr__`)."""


__getattr__ = names_later(globals(), _LATER)


__all__ = [
    "CARD_BUILTIN",
    "DEFAULT_BOT",
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
    "default_strategy",
    "get_strategy",
    "level_spec",
    "levels",
    "strategy_factory",
]
