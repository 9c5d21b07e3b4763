"""PettingZoo environments of both games, and a gymnasium wrapper, for reinforcement learning.

`sushi_go_v0` and `sushi_roll_v0` each offer `env()` (AEC, wrapped as PettingZoo's classic games
are), `parallel_env()` and `raw_env`; `SingleAgentEnv` is one seat as a gymnasium environment, the
other seats played by strategies from the registry. Needs the optional extra ``rl`` (numpy,
gymnasium, pettingzoo): ``pip install sushigo[rl]``. Nothing else in the project imports this
package, so the game, the server and the client never need numpy. docs/BOTS.md describes the
encoding.
"""

from . import sushi_go_v0, sushi_roll_v0
from ._go_encoding import SushiGoEncoding, action_index, action_of, knowledge_from_memory
from ._roll_encoding import SushiRollEncoding
from ._single import SingleAgentEnv

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
