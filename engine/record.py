"""Game records: options, seed and every step's actions; enough to rebuild the whole game.

`Record` is what the records of both built-in games share (their plain-data form, its checks, and
the replay); each game's record (`GameRecord` here, `engine.games.sushi_roll.RollRecord`) says what
its steps are and how one is written and played. The plain-data form names its game, so the two
kinds of record are never confused::

    {"game": "sushi-go", "version": 1, "options": {...}, "seed": "<hex>", "turns": [...]}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Self, TypeVar

from .errors import EngineError, RecordError
from .games.sushi_go.actions import Action
from .games.sushi_go.game import Game
from .games.sushi_go.options import GameOptions

S = TypeVar("S")
"""A step as the record holds it."""

RECORD_VERSION = 1


@dataclass(frozen=True, slots=True)
class Record(Generic[S]):
    """A game as data: replaying `steps` on a game made from `options` and `seed` rebuilds it."""

    options: Any
    seed: bytes
    steps: tuple[S, ...]
    """Every step's actions, in order, as the game's history holds them."""

    kind: ClassVar[str]
    """The game, as the plain data names it."""
    steps_key: ClassVar[str]
    """The plain data's key of the steps."""
    step_name: ClassVar[str]
    """A step in words, for errors: ``"turn 3 of the record cannot be played"``."""
    game_type: ClassVar[Any]
    """The game class, made from ``(options, seed)``."""

    @classmethod
    def of(cls, game: Any) -> Self:
        """The record of `game` so far."""
        return cls(game.options, game.seed, game.history)

    def to_data(self) -> dict[str, Any]:
        """Plain data (str, int, bool, list, dict) for msgpack or JSON; the seed in hex."""
        return {
            "game": self.kind,
            "version": RECORD_VERSION,
            "options": self.options.to_data(),
            "seed": self.seed.hex(),
            self.steps_key: [self.step_to_data(step) for step in self.steps],
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        """The record `to_data` produced; `RecordError` naming what is wrong otherwise."""
        if not isinstance(data, Mapping):
            raise RecordError(f"a record must be a map, got {type(data).__name__}")
        if data.get("game") != cls.kind:
            raise RecordError(f"not a {cls.kind} record: game is {data.get('game')!r}")
        if data.get("version") != RECORD_VERSION:
            raise RecordError(f"unsupported record version {data.get('version')!r}")
        try:
            seed_hex = data.get("seed")
            if not isinstance(seed_hex, str):
                raise RecordError("the seed must be a hex string")
            seed = bytes.fromhex(seed_hex)
            options = cls.game_type.options_type.from_data(data.get("options", {}))
            items = data.get(cls.steps_key)
            if not isinstance(items, list):
                raise RecordError(f"{cls.steps_key} must be a list")
            steps = tuple(cls.step_from_data(i, item) for i, item in enumerate(items, 1))
        except RecordError:
            raise
        except (EngineError, ValueError, TypeError) as exc:
            raise RecordError(f"bad record: {exc}") from None
        return cls(options, seed, steps)

    def replay(self) -> Any:
        """The game of this record, rebuilt by playing its steps; `RecordError` naming the first
        step the game refuses."""
        game = self.game_type(self.options, self.seed)
        for i, step in enumerate(self.steps, 1):
            try:
                self.play(game, step)
            except EngineError as exc:
                raise RecordError(
                    f"{self.step_name} {i} of the record cannot be played: {exc}"
                ) from None
        return game

    @staticmethod
    def step_to_data(step: S) -> Any:
        """Plain data of one step (a game writes it)."""
        raise NotImplementedError

    @staticmethod
    def step_from_data(number: int, data: Any) -> S:
        """The step `step_to_data` gave; `RecordError` (or `EngineError`) naming what is wrong
        with step `number` (a game writes it)."""
        raise NotImplementedError

    @staticmethod
    def play(game: Any, step: S) -> None:
        """Play one step on `game` (a game writes it)."""
        raise NotImplementedError


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
