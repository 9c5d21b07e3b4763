"""Game records: options, seed and every step's actions; enough to rebuild the whole game.

`Record` is what the records of the built-in games share (their plain-data form, its checks, and
the replay); each game's record in its folder (`engine.games.sushi_go.record.GameRecord`,
`engine.games.sushi_roll.record.RollRecord`) says what its steps are and how one is written and
played. The plain-data form names its game, so the two
kinds of record are never confused::

    {"game": "sushi-go", "version": 1, "options": {...}, "seed": "<hex>", "turns": [...]}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Self, TypeVar

from .errors import EngineError, RecordError

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
