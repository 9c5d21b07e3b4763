"""Sushi Go! as a PettingZoo environment, shaped like PettingZoo's classic games.

    from sushigo.bots.pettingzoo import sushi_go_v0
    env = sushi_go_v0.env(players=4, soy_sauce=True)          # AEC, with PettingZoo's wrappers
    par = sushi_go_v0.parallel_env(players=4)                 # parallel: every seat each step
    raw = sushi_go_v0.raw_env(players=2, dummy=True)          # AEC without wrappers

Keyword arguments: `players` (2-5, default 4), the variants `pass_both_ways`, `dummy` (2 players)
and `soy_sauce` (as `engine.GameOptions`), `reward` ("win", the default: +1 split among the
winners and -1 among the others at the end; "score": each step's change of score), `max_cycles`
(turns before every agent is truncated, default 1000: a game ends long before) and `render_mode`
(None, "ansi": `render()` returns the table as text, or "human": it prints it).

Picks are simultaneous: the parallel form takes every seat's index at once; the AEC form asks each
agent in seat order and keeps the picks secret until the last is in. Observations and action
indexes are tabled in docs/RESEARCH.md; an index outside the action mask is replaced by the seat's
lowest legal one, with ``{"illegal_action": True}`` in its info.
"""

from __future__ import annotations

from typing import Any

from sushigo.bots.games.sushi_go._pz_table import SushiGoTable
from sushigo.engine import GameOptions

from ._envs import TableAECEnv, makers
from ._table import RENDER_MODES

__all__ = ["env", "parallel_env", "raw_env"]

_METADATA: dict[str, Any] = {
    "render_modes": RENDER_MODES,
    "name": "sushi_go_v0",
    "is_parallelizable": True,
}


def _table(players: int, pass_both_ways: bool, dummy: bool, soy_sauce: bool) -> SushiGoTable:
    return SushiGoTable(GameOptions(players, pass_both_ways, dummy, soy_sauce))


class raw_env(TableAECEnv):  # PettingZoo's name for the unwrapped AEC class
    """The AEC environment without wrappers (see the module docstring)."""

    metadata = _METADATA

    def __init__(
        self,
        players: int = 4,
        *,
        pass_both_ways: bool = False,
        dummy: bool = False,
        soy_sauce: bool = False,
        reward: str = "win",
        max_cycles: int = 1000,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            _table(players, pass_both_ways, dummy, soy_sauce),
            max_cycles=max_cycles,
            reward=reward,
            render_mode=render_mode,
        )


env, parallel_env = makers(raw_env)
