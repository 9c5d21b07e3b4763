"""Sushi Roll game records: options, seed and every action in order; enough to rebuild the game.

The plain-data form is that of every built-in game's record (`engine.record.Record`), with its
own ``"game": "sushi-roll"`` marker and its steps as the actions with their seats::

    {"game": "sushi-roll", "version": 1, "options": {"players": 4}, "seed": "<hex>",
     "actions": [[seat, {"type": "take", "position": 2}], ...]}
"""

from __future__ import annotations

from typing import Any

from sushigo.engine.errors import RecordError
from sushigo.engine.record import Record

from .actions import RollAction, action_from_data
from .game import RollGame
from .options import RollOptions


class RollRecord(Record[tuple[int, RollAction]]):
    """A Sushi Roll game as data. Its steps are its actions in order, each with the seat that
    took it."""

    __slots__ = ()

    kind = "sushi-roll"
    steps_key = "actions"
    step_name = "action"
    game_type = RollGame
    options: RollOptions

    @property
    def actions(self) -> tuple[tuple[int, RollAction], ...]:
        """Every action in order, with the seat that took it."""
        return self.steps

    @staticmethod
    def step_to_data(step: tuple[int, RollAction]) -> list[Any]:
        seat, action = step
        return [seat, action.to_data()]

    @staticmethod
    def step_from_data(number: int, data: Any) -> tuple[int, RollAction]:
        if not isinstance(data, list | tuple) or len(data) != 2 or type(data[0]) is not int:
            raise RecordError(f"action {number} must be [seat, action]")
        return data[0], action_from_data(data[1])

    @staticmethod
    def play(game: RollGame, step: tuple[int, RollAction]) -> None:
        game.apply(*step)


def replay(record: RollRecord) -> RollGame:
    """Rebuild the game of `record` by applying its actions; `RecordError` naming the first bad
    one."""
    game: RollGame = record.replay()
    return game
