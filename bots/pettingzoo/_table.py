"""What the PettingZoo environments need from a game: the `Table` contract, and rewards.

A table is one game with its encoding: which seats must act now, each seat's observation (a
numpy array and an action mask, see docs/RESEARCH.md "The environments' encoding"), and a step that
plays one index per acting seat. The AEC and parallel environments of `_envs` drive any table, so
games differ only in their tables (each game's ``PETTINGZOO``, `bots._door`: Sushi Go!'s
`bots.games.sushi_go._pz_table`, Sushi Roll's `bots.games.sushi_roll._pz_table`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]
"""An observation or an action mask."""

REWARDS = ("win", "score")
"""`reward="win"`: at the game's end, +1 split among the winners and -1 split among the others
(0 to everyone when all tie); `reward="score"`: every step, each seat's change of score."""


class Table(ABC):
    """One game behind an environment. Seats are 0 to `players` - 1; actions are indexes into a
    fixed `Discrete(action_size)` space."""

    players: int
    action_size: int
    observation_size: int
    simultaneous: bool
    """True: every seat acts on every step (Sushi Go!). False: only the seat to move does, and
    in the parallel environment the others send the `WAIT` index (Sushi Roll)."""

    @property
    @abstractmethod
    def game(self) -> Any:
        """The engine game being played (`engine.api.GameState`)."""

    @abstractmethod
    def index_of(self, action: Any, seat: int) -> int:
        """The index of `seat`'s engine action `action` (an opponent's choice, `SingleAgentEnv`)."""

    @abstractmethod
    def reset(self, seed: bytes) -> None:
        """Start a new game from an engine seed."""

    @abstractmethod
    def acting(self) -> tuple[int, ...]:
        """The seats whose action the next step needs (empty once the game is over)."""

    @abstractmethod
    def observation(self, seat: int) -> Array:
        """What `seat` may know now, encoded (float32, shape ``(observation_size,)``)."""

    @abstractmethod
    def action_mask(self, seat: int) -> Array:
        """1 at every index `seat` may play now (int8, shape ``(action_size,)``)."""

    @abstractmethod
    def is_legal(self, seat: int, index: int) -> bool:
        """Whether `seat` may play `index` now."""

    @abstractmethod
    def default_action(self, seat: int) -> int:
        """The index played for `seat` in place of an illegal one: its lowest legal index."""

    @abstractmethod
    def play(self, picks: dict[int, int]) -> None:
        """One step: a legal index for every seat of `acting()`."""

    @abstractmethod
    def is_over(self) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def scores(self) -> tuple[int, ...]:
        """Each seat's points so far (final scores once the game is over)."""

    @abstractmethod
    def winners(self) -> tuple[int, ...]:
        """The seats that won (only once the game is over)."""

    @abstractmethod
    def render(self) -> str:
        """The whole table as text, for people (hidden cards included: it is not an
        observation)."""


def final_rewards(players: int, winners: tuple[int, ...]) -> list[float]:
    """`reward="win"` at the game's end: +1 split among the winners, -1 among the others."""
    if len(winners) == players:
        return [0.0] * players
    win, lose = 1.0 / len(winners), -1.0 / (players - len(winners))
    return [win if seat in winners else lose for seat in range(players)]


RENDER_MODES = ["human", "ansi"]
"""``"ansi"``: `render` returns the table as text; ``"human"``: it prints that text and returns
None (as PettingZoo's classic games print theirs)."""


def check_render_mode(render_mode: str | None) -> str | None:
    """`render_mode` if it is None or one of `RENDER_MODES`; `ValueError` otherwise."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
    return render_mode


def rendered(table: Table, render_mode: str | None) -> str | None:
    """`render()` of an environment over `table` in `render_mode` (see `RENDER_MODES`)."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode")
        return None
    text = table.render()
    if render_mode == "human":
        print(text, end="")
        return None
    return text


def check_reward(reward: str) -> str:
    """`reward` if it names a reward scheme; `ValueError` naming the choices otherwise."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
    return reward


def check_max_cycles(max_cycles: int) -> int:
    """`max_cycles` if it is a positive int; `ValueError` otherwise."""
    if type(max_cycles) is not int or max_cycles < 1:
        raise ValueError(f"max_cycles must be a positive integer, got {max_cycles!r}")
    return max_cycles


def zeros_mask(size: int) -> Array:
    """A mask with nothing legal."""
    return np.zeros(size, dtype=np.int8)
