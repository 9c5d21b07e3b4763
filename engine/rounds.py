"""What the built-in games share, written once: a game of three rounds, each scored when it ends,
decided by points and then puddings.

Sushi Go! (`engine.games.sushi_go.game.Game`) and Sushi Roll (`engine.games.sushi_roll.RollGame`)
differ in how a round is played (simultaneous secret picks of cards; one mover at a time with dice),
and are the same around it: options and a seed make a game, a round's end scores it (`RoundScored`),
the last round's end scores the puddings and decides the places, and the state is read the same way
(`players`, `round`, `history`, `scores`, `returns`, `places`, `winners`, the round and pudding
points). `RoundGame` is that skeleton; a game keeps its own state in slots of its own, and its
hot paths stay its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from operator import add
from typing import Any, ClassVar, Generic, NamedTuple, Self, TypeVar

from .api import places_by, winners_of
from .errors import GameOverError, OptionsError, WrongSeatError


@dataclass(frozen=True, slots=True)
class TableOptions:
    """How a game is set up: its player count (and, in a game's own subclass, its variants), as
    plain values. Invalid values raise `OptionsError`."""

    players: int = 4
    """Seats at the table."""

    min_players: ClassVar[int]
    max_players: ClassVar[int]

    def __post_init__(self) -> None:
        lo, hi = self.min_players, self.max_players
        if type(self.players) is not int or not lo <= self.players <= hi:
            raise OptionsError(
                f"players must be an integer from {lo} to {hi}, got {self.players!r}"
            )

    @property
    def tableaus(self) -> int:
        """Tableaus at the table: one per seat (and any that is not a seat, such as a dummy)."""
        return self.players

    def to_data(self) -> dict[str, Any]:
        """Plain data for msgpack or JSON."""
        return asdict(self)

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        """Options from `to_data` output; unknown keys are an error, missing ones take defaults."""
        if not isinstance(data, Mapping):
            raise OptionsError(f"options must be a map, got {type(data).__name__}")
        unknown = set(data) - {field.name for field in fields(cls)}
        if unknown:
            raise OptionsError(f"unknown option(s): {', '.join(sorted(map(str, unknown)))}")
        return cls(**data)


OptionsT = TypeVar("OptionsT", bound=TableOptions)
"""A game's options."""
S = TypeVar("S")
"""A step as a game's history keeps it."""
P = TypeVar("P")
"""A game's points of one tableau for one round, by category (its own `RoundPoints`)."""


class RoundScored(NamedTuple, Generic[P]):
    """A round was scored. Indexed by tableau: the seats (then Sushi Go!'s dummy)."""

    round: int
    points: tuple[P, ...]
    """This round's points by category."""
    totals: tuple[int, ...]
    """Running totals after this round (end-of-game points not yet counted)."""
    puddings: tuple[int, ...]
    """Puddings kept so far (cards or tokens), this round's included."""


class RoundGame(Generic[OptionsT, S, P]):
    """The state both games keep the same way, and the reading of it. Not thread-safe.

    Scores and puddings are indexed by tableau (the seats, then Sushi Go!'s dummy, which is not a
    seat); places and winners by seat. The places are worked out once, when the game ends
    (`_decide`), since runners ask for them after every game."""

    __slots__ = (
        "_history",
        "_n",
        "_over",
        "_places",
        "_pudding_points",
        "_puddings",
        "_round",
        "_round_points",
        "_scores",
        "_winners",
        "options",
        "seed",
    )

    _all_slots: ClassVar[tuple[str, ...]] = ()
    """Every slot of the class, its bases' included (set for each subclass), for `_copy_slots`."""

    options_type: ClassVar[type[Any]]
    """The game's options class (a game sets it)."""
    options: OptionsT
    seed: bytes
    _n: int
    _round: int
    _over: bool
    _history: list[S]
    _scores: list[int]
    _puddings: list[int]
    _round_points: list[tuple[P, ...]]
    _pudding_points: tuple[int, ...]
    _places: tuple[int, ...]
    _winners: tuple[int, ...]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._all_slots = tuple(
            name for klass in cls.__mro__ for name in klass.__dict__.get("__slots__", ())
        )

    def __init__(self, options: OptionsT, seed: bytes) -> None:
        self._setup(options, seed)
        self._begin()

    def _begin(self) -> None:
        """Set up the game's own state and start its first round (a game writes it)."""
        raise NotImplementedError

    def _setup(self, options: OptionsT, seed: bytes) -> None:
        """Check and keep the options and the seed; the state of a game not yet dealt."""
        if not isinstance(options, self.options_type):
            raise TypeError(f"options must be a {self.options_type.__name__}")
        if not isinstance(seed, bytes):
            raise TypeError("seed must be bytes")
        self.options = options
        self.seed = seed
        self._n = options.players
        self._round = 0
        self._over = False
        self._history = []
        self._scores = [0] * (tableaus := options.tableaus)
        self._puddings = [0] * tableaus
        self._round_points = []
        self._pudding_points = ()
        self._places = self._winners = ()

    def _copy_slots(self) -> Any:
        """A new game of this class holding every slot's value as this one does (the caller
        copies whatever it changes in place)."""
        cls = type(self)
        other = cls.__new__(cls)
        for name in cls._all_slots:
            setattr(other, name, getattr(self, name))
        return other

    # -- reading the state ------------------------------------------------------------------

    @property
    def players(self) -> int:
        """Number of seats."""
        return self._n

    @property
    def round(self) -> int:
        """The current round, 1-3 (3 once the game is over)."""
        return self._round

    @property
    def history(self) -> tuple[S, ...]:
        """Every step's actions so far, in order."""
        return tuple(self._history)

    def is_terminal(self) -> bool:
        """True once round 3 and the end-of-game points are scored."""
        return self._over

    def scores(self) -> tuple[int, ...]:
        """Points so far per tableau; final scores once the game is over."""
        return tuple(self._scores)

    def returns(self) -> tuple[int, ...]:
        """Final scores per seat (a dummy excluded), as in OpenSpiel; only once the game is
        over."""
        if not self._over:
            raise GameOverError("the game is not over yet: no final scores")
        return tuple(self._scores[: self._n])

    def places(self) -> tuple[int, ...]:
        """Per seat, 1 for first: most points, then most puddings; still tied seats share a place
        and the places after them are skipped (1, 1, 3)."""
        if not self._over:
            raise GameOverError("the game is not over yet: no places")
        return self._places

    def winners(self) -> tuple[int, ...]:
        """The seats that won; more than one is a shared win."""
        if not self._over:
            raise GameOverError("the game is not over yet: no places")
        return self._winners

    def pudding_points(self) -> tuple[int, ...]:
        """End-of-game pudding points per tableau (empty until the game is over)."""
        return self._pudding_points

    def round_points(self) -> tuple[tuple[P, ...], ...]:
        """Each finished round's points by category, indexed by tableau."""
        return tuple(self._round_points)

    def _no_seat(self, seat: object) -> WrongSeatError:
        """The error for `seat`, which is not a seat of this game."""
        return WrongSeatError(None, f"no seat {seat!r} in a {self._n}-player game")

    def _check_seat(self, seat: object) -> None:
        if type(seat) is not int or not 0 <= seat < self._n:
            raise self._no_seat(seat)

    # -- the rounds --------------------------------------------------------------------------

    def _scored(self, points: tuple[P, ...], totals: Iterable[int]) -> RoundScored[P]:
        """The round just ended scored `points` (`totals`: each tableau's sum of them): add them
        up, and the event that says so."""
        self._round_points.append(points)
        self._scores = scores = list(map(add, self._scores, totals))
        # tuple.__new__ skips the Python-level __new__ of a NamedTuple (an engine's hot path).
        return tuple.__new__(
            RoundScored, (self._round, points, tuple(scores), tuple(self._puddings))
        )

    def _decide(self, end_points: Iterable[int]) -> None:
        """The game is over: add the end-of-game points (per tableau), and work out the places
        (points, then puddings) and the winners."""
        self._scores = list(map(add, self._scores, end_points))
        self._over = True
        # The seats' (a dummy has no place); zip without strict=True, which sends it down
        # CPython's slow call path.
        self._places = places_by(list(zip(self._scores[: self._n], self._puddings)))  # noqa: B905
        self._winners = winners_of(self._places)
