"""Sushi Roll game records: options, seed and every action in order; enough to rebuild the game.

The plain-data form mirrors `engine.GameRecord.to_data`, with its own ``"game": "sushi-roll"``
marker so the two kinds of record are never confused::

    {"game": "sushi-roll", "version": 1, "options": {"players": 4}, "seed": "<hex>",
     "actions": [[seat, {"type": "take", "position": 2}], ...]}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sushigo.engine.errors import EngineError, RecordError
from sushigo.engine.record import read_record

from .actions import RollAction, action_from_data
from .game import RollGame
from .options import RollOptions

RECORD_VERSION = 1
GAME_KIND = "sushi-roll"


@dataclass(frozen=True, slots=True)
class RollRecord:
    """A game as data: replaying `actions` on a game made from `options` and `seed` rebuilds it."""

    options: RollOptions
    seed: bytes
    actions: tuple[tuple[int, RollAction], ...]
    """Every action in order, with the seat that took it."""

    @classmethod
    def of(cls, game: RollGame) -> RollRecord:
        """The record of `game` so far."""
        return cls(game.options, game.seed, game.history)

    def to_data(self) -> dict[str, Any]:
        """Plain data (str, int, list, dict) for msgpack or JSON; the seed in hex."""
        return {
            "game": GAME_KIND,
            "version": RECORD_VERSION,
            "options": self.options.to_data(),
            "seed": self.seed.hex(),
            "actions": [[seat, action.to_data()] for seat, action in self.actions],
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> RollRecord:
        """The record `to_data` produced; `RecordError` naming what is wrong otherwise."""
        seed, (options, actions) = read_record(data, GAME_KIND, RECORD_VERSION, _parse_actions)
        return cls(options, seed, actions)


def _parse_actions(
    data: Mapping[str, Any],
) -> tuple[RollOptions, tuple[tuple[int, RollAction], ...]]:
    options = RollOptions.from_data(data.get("options", {}))
    items = data.get("actions")
    if not isinstance(items, list):
        raise RecordError("actions must be a list")
    actions = []
    for i, item in enumerate(items, 1):
        if not isinstance(item, list | tuple) or len(item) != 2 or type(item[0]) is not int:
            raise RecordError(f"action {i} must be [seat, action]")
        actions.append((item[0], action_from_data(item[1])))
    return options, tuple(actions)


def replay(record: RollRecord) -> RollGame:
    """Rebuild the game of `record` by applying its actions; `RecordError` naming the first bad
    one."""
    game = RollGame(record.options, record.seed)
    for i, (seat, action) in enumerate(record.actions, 1):
        try:
            game.apply(seat, action)
        except EngineError as exc:
            raise RecordError(f"action {i} of the record cannot be played: {exc}") from None
    return game
