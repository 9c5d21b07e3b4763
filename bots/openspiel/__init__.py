"""The games in OpenSpiel: importing this package registers each game that has an OpenSpiel part
(its ``OPENSPIEL`` module, `bots._door`) with pyspiel: ``python_sushi_go`` and
``python_sushi_roll`` (``pyspiel.load_game("python_sushi_go(players=3)")``).

Needs the optional extra ``openspiel`` (``pip install sushigo[openspiel]``: open-spiel, and the
``rl`` extra whose encodings the observations share). docs/RESEARCH.md shows them at work.
"""

try:
    import pyspiel  # noqa: F401
except ImportError as exc:  # (the extra is optional: say how to get it)
    raise ImportError(
        f"sushigo.bots.openspiel needs OpenSpiel: pip install 'sushigo[openspiel]' ({exc})"
    ) from None

from sushigo.bots.games.sushi_go._spiel import SushiGoGame, SushiGoState
from sushigo.bots.games.sushi_roll._spiel import SushiRollGame, SushiRollState

from ._bots import MctsStrategy, OpenSpielStrategy, StrategyBot, native_state
from ._register import register_all

__all__ = [
    "MctsStrategy",
    "OpenSpielStrategy",
    "StrategyBot",
    "SushiGoGame",
    "SushiGoState",
    "SushiRollGame",
    "SushiRollState",
    "native_state",
    "register_all",
]

register_all()
