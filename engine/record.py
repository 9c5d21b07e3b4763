"""Game records: options, seed and every turn's actions; enough to rebuild the whole game."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .actions import Action
from .errors import EngineError, RecordError
from .game import Game
from .options import GameOptions

T = TypeVar("T")

RECORD_VERSION = 1
GAME_KIND = "sushi-go"


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game as data: replaying `turns` on a game made from `options` and `seed` rebuilds it."""

    options: GameOptions
    seed: bytes
    turns: tuple[tuple[Action, ...], ...]
    """Every turn's actions, indexed by seat."""

    @classmethod
    def of(cls, game: Game) -> GameRecord:
        """The record of `game` so far."""
        return cls(game.options, game.seed, game.history)

    def to_data(self) -> dict[str, Any]:
        """Plain data (str, int, bool, list, dict) for msgpack or JSON; the seed in hex."""
        return {
            "game": GAME_KIND,
            "version": RECORD_VERSION,
            "options": self.options.to_data(),
            "seed": self.seed.hex(),
            "turns": [[action.to_data() for action in turn] for turn in self.turns],
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> GameRecord:
        """The record `to_data` produced; `RecordError` naming what is wrong otherwise."""
        seed, (options, turns) = read_record(data, GAME_KIND, RECORD_VERSION, _parse_turns)
        return cls(options, seed, turns)


def _parse_turns(data: Mapping[str, Any]) -> tuple[GameOptions, tuple[tuple[Action, ...], ...]]:
    options = GameOptions.from_data(data.get("options", {}))
    turns_data = data.get("turns")
    if not isinstance(turns_data, list):
        raise RecordError("turns must be a list")
    turns = []
    for i, turn in enumerate(turns_data, 1):
        if not isinstance(turn, list):
            raise RecordError(f"turn {i} must be a list of actions")
        turns.append(tuple(Action.from_data(a) for a in turn))
    return options, tuple(turns)


def read_record(
    data: object, kind: str, version: int, parse: Callable[[Mapping[str, Any]], T]
) -> tuple[bytes, T]:
    """Check a record's envelope (a map naming the game `kind` and `version`, with a hex seed),
    then read the rest with `parse`. Any problem becomes a `RecordError` naming it. Shared by the
    records of both games."""
    if not isinstance(data, Mapping):
        raise RecordError(f"a record must be a map, got {type(data).__name__}")
    if data.get("game") != kind:
        raise RecordError(f"not a {kind} record: game is {data.get('game')!r}")
    if data.get("version") != version:
        raise RecordError(f"unsupported record version {data.get('version')!r}")
    try:
        seed_hex = data.get("seed")
        if not isinstance(seed_hex, str):
            raise RecordError("the seed must be a hex string")
        return bytes.fromhex(seed_hex), parse(data)
    except RecordError:
        raise
    except (EngineError, ValueError, TypeError) as exc:
        raise RecordError(f"bad record: {exc}") from None


def replay(record: GameRecord) -> Game:
    """Rebuild the game of `record` by playing its turns; `RecordError` naming the first bad turn."""
    game = Game(record.options, record.seed)
    for i, turn in enumerate(record.turns, 1):
        try:
            game.apply(turn)
        except EngineError as exc:
            raise RecordError(f"turn {i} of the record cannot be played: {exc}") from None
    return game
