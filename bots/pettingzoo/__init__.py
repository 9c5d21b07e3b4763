"""PettingZoo environments of the games, and a gymnasium wrapper, for reinforcement learning.

`sushi_go_v0` and `sushi_roll_v0` each offer `env()` (AEC, wrapped as PettingZoo's classic games
are), `parallel_env()` and `raw_env`; `SingleAgentEnv` is one seat as a gymnasium environment, the
other seats played by strategies from the registry. The environments drive any game that has a
table (its ``PETTINGZOO``, `bots._door`: Sushi Go!'s and Sushi Roll's are in their folders,
`bots.games.sushi_go._pz_table` and `bots.games.sushi_roll._pz_table`). Needs the optional extra
``rl`` (numpy, gymnasium, pettingzoo): ``pip install sushigo[rl]``. Nothing else in the project
imports this package, so the game, the server and the client never need numpy. docs/RESEARCH.md
describes the encoding.

The names below are imported when first asked for: a game's table imports this package's shared
modules (`_table`), so this package imports no game's part at its top.
"""

from typing import TYPE_CHECKING

from sushigo.bots._lazy import names_later

if TYPE_CHECKING:
    from sushigo.bots.games.sushi_go._pz_encoding import (
        SushiGoEncoding,
        action_index,
        action_of,
        knowledge_from_memory,
    )
    from sushigo.bots.games.sushi_roll._pz_encoding import SushiRollEncoding

    from . import sushi_go_v0, sushi_roll_v0
    from ._single import SingleAgentEnv

_LATER = {
    "SingleAgentEnv": "sushigo.bots.pettingzoo._single:SingleAgentEnv",
    "SushiGoEncoding": "sushigo.bots.games.sushi_go._pz_encoding:SushiGoEncoding",
    "SushiRollEncoding": "sushigo.bots.games.sushi_roll._pz_encoding:SushiRollEncoding",
    "action_index": "sushigo.bots.games.sushi_go._pz_encoding:action_index",
    "action_of": "sushigo.bots.games.sushi_go._pz_encoding:action_of",
    "knowledge_from_memory": "sushigo.bots.games.sushi_go._pz_encoding:knowledge_from_memory",
    "sushi_go_v0": "sushigo.bots.pettingzoo.sushi_go_v0",
    "sushi_roll_v0": "sushigo.bots.pettingzoo.sushi_roll_v0",
}
"""Where each public name lives."""


__getattr__ = names_later(globals(), _LATER)


__all__ = [
    "SingleAgentEnv",
    "SushiGoEncoding",
    "SushiRollEncoding",
    "action_index",
    "action_of",
    "knowledge_from_memory",
    "sushi_go_v0",
    "sushi_roll_v0",
]
