"""Sushi Roll as a PettingZoo environment, shaped like PettingZoo's classic games.

    from sushigo.bots.pettingzoo import sushi_roll_v0
    env = sushi_roll_v0.env(players=4)            # AEC, with PettingZoo's wrappers
    par = sushi_roll_v0.parallel_env(players=4)   # parallel: the others wait
    raw = sushi_roll_v0.raw_env(players=3)        # AEC without wrappers

Keyword arguments: `players` (2-5, default 4), `reward` ("win", the default: +1 split among the
winners and -1 among the others at the end; "score": each step's change of score), `max_cycles`
(default 1000: see below) and `render_mode` (None, "ansi": `render()` returns the table as text, or "human": it prints it).

Turns are sequential and a turn is several actions: any re-rolls (menu tokens) and swaps
(chopsticks tokens), then one take. The AEC form selects the seat to move, which may act several
times in a row; the parallel form steps every agent at once, the seats not to move sending the
wait index (their mask allows nothing else). `max_cycles` truncates the parallel form after that
many steps, and in the AEC form each agent after that many of its own actions (a truncated seat's
later moves are then played for it by its lowest legal index, so the others play on to their own
limit). The action indexes and the observation are tabled in docs/RESEARCH.md; an index outside the
mask is replaced by the lowest legal one (take the first die, or wait), with
``{"illegal_action": True}`` in the agent's info.
"""

from __future__ import annotations

from typing import Any

from sushigo.bots.games.sushi_roll._pz_table import SushiRollTable
from sushigo.engine.games.sushi_roll import RollOptions

from ._envs import TableAECEnv, makers
from ._table import RENDER_MODES

__all__ = ["env", "parallel_env", "raw_env"]

_METADATA: dict[str, Any] = {
    "render_modes": RENDER_MODES,
    "name": "sushi_roll_v0",
    "is_parallelizable": False,
}


class raw_env(TableAECEnv):  # PettingZoo's name for the unwrapped AEC class
    """The AEC environment without wrappers (see the module docstring)."""

    metadata = _METADATA

    def __init__(
        self,
        players: int = 4,
        *,
        reward: str = "win",
        max_cycles: int = 1000,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            SushiRollTable(RollOptions(players)),
            max_cycles=max_cycles,
            reward=reward,
            render_mode=render_mode,
        )


env, parallel_env = makers(raw_env)
