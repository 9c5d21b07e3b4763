"""Sushi Roll strategies: a `RollObservation` in, a `RollAction` out. Pure, like `bots`.

As every game's folder in `bots`, it exposes the names `bots._door` lists. The built-in names are
the card game's (`random`, `greedy`, `heuristic`, and `ismcts`: the search
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

STRATEGIES = ROLL_BUILTIN
"""Its built-in strategies (`bots._door`)."""

LEVELS = {
    # ismcts at its default 160 iterations wins 89% of 2-player games against heuristic; at half
    # that budget it is a step below.
    "easy": "greedy",
    "medium": "heuristic",
    "hard": "ismcts@iterations=60",
    "expert": "ismcts",
}
"""The strategy behind each level (`bots.levels`)."""

DEFAULT = "heuristic"
"""The strategy behind ``default``."""

PETTINGZOO = "sushigo.bots.games.sushi_roll._pz_table:SushiRollTable"
"""Its `bots.pettingzoo` table."""

OPENSPIEL = "sushigo.bots.games.sushi_roll._spiel"
"""The module that registers ``python_sushi_roll`` with OpenSpiel."""

__all__ = [
    "DEFAULT",
    "LEVELS",
    "OPENSPIEL",
    "PETTINGZOO",
    "ROLL_BUILTIN",
    "STRATEGIES",
    "RollGreedyStrategy",
    "RollHeuristicStrategy",
    "RollRandomStrategy",
    "RollSearchStrategy",
    "RollStrategy",
    "RollStrategyFactory",
]
