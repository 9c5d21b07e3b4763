"""Rock-paper-scissors' rules (`engine.api.Rules`): its part in the engine, ``RULES``.

Two seats throw at once, in secret (so the table runs commit-reveal); a throw beats the one it
names below, and each round's winner scores a point.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sushigo.engine import EngineError, IllegalActionError, OptionsError
from sushigo.engine.api import ValueRules, check_variants, places_by, winners_of

THROWS = ("rock", "paper", "scissors")
BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
ROUNDS = 3


@dataclass(frozen=True, slots=True)
class RpsOptions:
    """Always two players."""

    players: int = 2

    def __post_init__(self) -> None:
        if self.players != 2:
            raise OptionsError(f"rock-paper-scissors is for 2 players, not {self.players}")

    def to_data(self) -> dict[str, Any]:
        return {"players": self.players}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> RpsOptions:
        return cls(**data)


class Throw(str):
    """An action: a throw's name (`describe` and `to_data` for the engine's records)."""

    def describe(self) -> str:
        return str(self)

    def to_data(self) -> str:
        return str(self)


class RoundWon(NamedTuple):
    """A round's throws and its winner (None: a draw)."""

    round: int
    throws: tuple[str, ...]
    winner: int | None


@dataclass(frozen=True, slots=True)
class RpsObservation:
    """Everything is public but the throws of the round being played."""

    seat: int | None
    round: int
    scores: tuple[int, ...]
    last: tuple[str, ...]
    """The last round's throws (empty before the first)."""
    is_over: bool

    def legal_actions(self) -> tuple[Throw, ...]:
        return () if self.seat is None or self.is_over else tuple(map(Throw, THROWS))


class RpsGame:
    """One game: `engine.api.GameState`."""

    def __init__(self, options: RpsOptions, seed: bytes) -> None:
        self.options, self.seed, self.players = options, seed, 2
        self.round, self.points, self.last = 1, [0, 0], ()

    @property
    def position(self) -> tuple[int, int]:
        return (self.round, 1)

    def is_terminal(self) -> bool:
        return self.round > ROUNDS

    def to_act(self) -> tuple[int, ...]:
        return () if self.is_terminal() else (0, 1)

    def legal_actions(self, seat: int) -> tuple[Throw, ...]:
        return () if self.is_terminal() else tuple(map(Throw, THROWS))

    def step(self, actions: Sequence[Any]) -> list[Any]:
        if self.is_terminal() or len(actions) != 2:
            raise IllegalActionError(None, "two throws, while the game lasts")
        if any(a not in THROWS for a in actions):
            raise IllegalActionError(None, f"a throw is one of {', '.join(THROWS)}")
        a, b = actions
        winner = 0 if BEATS[a] == b else 1 if BEATS[b] == a else None
        if winner is not None:
            self.points[winner] += 1
        event = RoundWon(self.round, (str(a), str(b)), winner)
        self.round, self.last = self.round + 1, event.throws
        return [event]

    def observation(self, seat: int | None) -> RpsObservation:
        return RpsObservation(seat, self.round, self.scores(), self.last, self.is_terminal())

    def initial_events(self) -> list[Any]:
        return []

    def scores(self) -> tuple[int, ...]:
        return tuple(self.points)

    def places(self) -> tuple[int, ...]:
        return places_by([(s,) for s in self.points])

    def winners(self) -> tuple[int, ...]:
        return winners_of(self.places())

    def clone(self) -> RpsGame:
        other = RpsGame(self.options, self.seed)
        other.round, other.points, other.last = self.round, self.points[:], self.last
        return other


class RpsRules(ValueRules):
    """`engine.api.Rules` of the game."""

    kind, title, players, secret = "rps", "Rock-paper-scissors", range(2, 3), True
    options_type, game_type, round_scored = RpsOptions, RpsGame, None

    def options(self, players: int, variants: Iterable[str] = ()) -> RpsOptions:
        check_variants(self.kind, (), variants)
        return RpsOptions(players)

    def describe_options(self, options: RpsOptions) -> tuple[int, tuple[str, ...]]:
        return options.players, ()

    def action_from_data(self, data: Any) -> Throw:
        if data not in THROWS:
            raise EngineError(f"not a throw: {data!r}")
        return Throw(data)


RULES = RpsRules()
