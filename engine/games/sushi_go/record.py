"""Sushi Go! game records: options, seed and every turn's actions; enough to rebuild the game.

The plain-data form is that of every built-in game's record (`engine.record.Record`), its steps
the turns, each every seat's action::

    {"game": "sushi-go", "version": 1, "options": {...}, "seed": "<hex>", "turns": [...]}
"""

from __future__ import annotations

from typing import Any

from sushigo.engine.errors import RecordError
from sushigo.engine.record import Record

from .actions import Action
from .game import Game
from .options import GameOptions


class GameRecord(Record[tuple[Action, ...]]):
    """A Sushi Go! game as data. Its steps are its turns: every seat's action, indexed by seat."""

    __slots__ = ()

    kind = "sushi-go"
    steps_key = "turns"
    step_name = "turn"
    game_type = Game
    options: GameOptions

    @property
    def turns(self) -> tuple[tuple[Action, ...], ...]:
        """Every turn's actions, indexed by seat."""
        return self.steps

    @staticmethod
    def step_to_data(step: tuple[Action, ...]) -> list[Any]:
        return [action.to_data() for action in step]

    @staticmethod
    def step_from_data(number: int, data: Any) -> tuple[Action, ...]:
        if not isinstance(data, list):
            raise RecordError(f"turn {number} must be a list of actions")
        return tuple(Action.from_data(a) for a in data)

    @staticmethod
    def play(game: Game, step: tuple[Action, ...]) -> None:
        game.apply(step)


def replay(record: GameRecord) -> Game:
    """Rebuild the game of `record` by playing its turns; `RecordError` naming the first bad turn."""
    game: Game = record.replay()
    return game
