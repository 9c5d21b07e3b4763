"""The game interface: what every game's rules give the layers above, and what the games share.

Every game is a sequence of *steps*. At each step the game names the seats that act
(`GameState.to_act`) and takes one action from each of them at once (`GameState.step`). Whether
the seats of a step choose at the same time and in secret (Sushi Go!: every seat picks a card; the
table then runs commit-reveal) or openly, one seat at a time (Sushi Roll: the mover's re-rolls and
swaps, then its take, each one step) is the game's `Rules.secret`. Chance comes only from the seed
a game is made with, so a game replays from its options, seed and steps (`engine.record`).

The shape is OpenSpiel's (STYLE.md item 8): legal actions per seat, every acting seat's action
applied in one call, per-seat observations of what that seat may know, `is_terminal`. Actions,
observations, options and events are each game's own immutable values; the layers above handle
them only through this interface and through the game's wire codec (`protocol.games`), so the
server, the client library, the arena and the bots' registry know no particular game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from .errors import EngineError, OptionsError, RecordError


@runtime_checkable
class GameState(Protocol):
    """One game in progress. Not thread-safe; `clone` gives an independent copy for search."""

    @property
    def options(self) -> Any:
        """The game's options (the game's own frozen value)."""

    @property
    def seed(self) -> bytes:
        """The seed every chance event of the game comes from."""

    @property
    def players(self) -> int:
        """The number of seats."""

    @property
    def position(self) -> tuple[int, int]:
        """(round, turn) of the current step: what a commitment binds and what messages name.
        Several open steps of one seat may share a position (a Sushi Roll mover's actions)."""

    def to_act(self) -> tuple[int, ...]:
        """The seats that act in the current step, in seat order; empty once the game is over."""

    def legal_actions(self, seat: int) -> Sequence[Any]:
        """Every action `seat` may take now (empty when it does not act)."""

    def step(self, actions: Sequence[Any]) -> list[Any]:
        """Apply one action per seat of `to_act()`, in that order, all at once; return the events.

        An illegal action raises the engine's specific error and changes nothing."""

    def observation(self, seat: int | None) -> Any:
        """What `seat` may know now (None: a spectator, who sees only what is public): a
        `SeatView`, equal for two states that differ only in what the seat cannot know."""

    def initial_events(self) -> list[Any]:
        """The events of the game's setup (the first round dealt or rolled)."""

    def is_terminal(self) -> bool:
        """The game is over."""

    def scores(self) -> tuple[int, ...]:
        """Points so far per tableau (seats, then any non-seat tableau such as a dummy)."""

    def places(self) -> tuple[int, ...]:
        """Per seat, 1 for first; tied seats share a place (only once the game is over)."""

    def winners(self) -> tuple[int, ...]:
        """The seats in first place (several: a shared win)."""

    def clone(self) -> GameState:
        """An independent copy: play on without touching this game."""


@runtime_checkable
class SeatView(Protocol):
    """What every game's observation gives: whose it is, and the actions that seat may take now
    (empty when it does not act: a client chooses from these, never from the game itself)."""

    @property
    def seat(self) -> int | None:
        """The observing seat (None: a spectator)."""

    def legal_actions(self) -> Sequence[Any]:
        """Every action the observing seat may take now."""


@runtime_checkable
class Rules(Protocol):
    """One game kind: its name, its options and how a game of it begins.

    A game's rules are one object (the card game's is `engine.SUSHI_GO`); `engine.games` finds
    them by kind."""

    @property
    def kind(self) -> str:
        """The game's name on the wire, in settings and in records: ``"sushi-go"``."""

    @property
    def title(self) -> str:
        """The game's name for people: ``"Sushi Go!"``."""

    @property
    def players(self) -> range:
        """The player counts the game supports."""

    @property
    def variants(self) -> tuple[str, ...]:
        """The names of the game's optional rules, each on or off (empty: none)."""

    @property
    def secret(self) -> bool:
        """The seats of a step choose at the same time, in secret (the table runs commit-reveal);
        False: one seat acts at a time, in the open."""

    def options(self, players: int, variants: Iterable[str] = ()) -> Any:
        """The game's options for a table of `players` with these variants on; `OptionsError`
        naming what does not make a game."""

    def describe_options(self, options: Any) -> tuple[int, tuple[str, ...]]:
        """(players, variants on) of `options`: the inverse of `options`."""

    def options_to_data(self, options: Any) -> dict[str, Any]:
        """Plain data (str, int, bool, list, dict) of `options`."""

    def options_from_data(self, data: Mapping[str, Any]) -> Any:
        """Options from `options_to_data`; `OptionsError` naming what is wrong."""

    def new_game(self, options: Any, seed: bytes) -> GameState:
        """A new game: every chance event of it comes from `seed`."""

    def action_to_data(self, action: Any) -> Any:
        """Plain data of an action (for records and logs)."""

    def action_from_data(self, data: Any) -> Any:
        """The action `action_to_data` gave; `EngineError` naming what is wrong."""

    def describe(self, action: Any) -> str:
        """An action in words, for people: ``"salmon+squid"``."""

    def describe_event(self, event: Any) -> str | None:
        """A notable event in words, for a game's listing (a round's scores); None for the rest."""


def round_scores_line(round_: int, points: Sequence[int], totals: Sequence[int]) -> str:
    """A round's scores in words, as every game's listing shows them."""
    return (
        f"round {round_} scores: "
        + ", ".join(f"{p:+}" for p in points)
        + "  totals: "
        + ", ".join(map(str, totals))
    )


def places_by(keys: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """1-based places from each seat's ranking key (higher is better): seats with equal keys share
    a place, and the places after them are skipped (1, 1, 3). Both Sushi games rank by points, then
    by puddings kept."""
    # A key's place is one more than the keys above it: the index of its first occurrence in the
    # keys sorted best first (C-level look-ups; every game ends here).
    ranked = sorted(keys, reverse=True)
    return tuple([i + 1 for i in map(ranked.index, keys)])


def winners_of(places: Sequence[int]) -> tuple[int, ...]:
    """The seats in first place."""
    # A list comprehension: tuple() of a generator costs twice as much (every game ends here).
    return tuple([seat for seat, place in enumerate(places) if place == 1])


def play_steps(game: GameState, steps: Iterable[Sequence[Any]]) -> GameState:
    """Play recorded steps on `game` (each: the actions of the seats of `to_act()`, in order) and
    return it; `RecordError` naming the first step the game refuses."""
    for number, actions in enumerate(steps, 1):
        try:
            game.step(actions)
        except EngineError as exc:
            raise RecordError(f"step {number} of the record cannot be played: {exc}") from None
    return game


def check_variants(kind: str, known: Sequence[str], asked: Iterable[str]) -> frozenset[str]:
    """`asked` as a set, after checking every name is one of the game's variants (`OptionsError`
    naming the first unknown one)."""
    chosen = frozenset(asked)
    for name in sorted(chosen):
        if name not in known:
            have = ", ".join(known) if known else "none"
            raise OptionsError(f"{kind} has no variant {name!r} (its variants: {have})")
    return chosen


class ValueRules:
    """A base for `Rules` whose options, games and actions carry their own conversions: options
    with ``to_data`` and a ``from_data`` class method, actions with ``to_data`` and ``describe``,
    a game class made from ``(options, seed)``. A game sets the class attributes below and writes
    `options`, `describe_options` and `action_from_data`."""

    kind: str
    title: str
    players: range
    variants: tuple[str, ...] = ()
    secret: bool
    options_type: Any
    """The options class (``from_data``, and instances with ``to_data``)."""
    game_type: Callable[[Any, bytes], GameState]
    """The game class, made from ``(options, seed)`` (mypy checks that it keeps to `GameState`)."""
    step_word = "turn"
    """What a record's step numbers (``StepRecord.turn``) count, for people: Sushi Roll's steps
    are numbered by cycle, each seat's whole turn a few steps of one cycle."""
    round_scored: Any = None
    """The game's event of a round's scoring (with ``round``, ``points``, each with a
    ``total``, and ``totals``), for `describe_event`."""

    def options_to_data(self, options: Any) -> dict[str, Any]:
        """The options' own ``to_data``."""
        data: dict[str, Any] = options.to_data()
        return data

    def options_from_data(self, data: Mapping[str, Any]) -> Any:
        """The options class's ``from_data``."""
        return self.options_type.from_data(data)

    def new_game(self, options: Any, seed: bytes) -> GameState:
        """A new game of `game_type`."""
        game: GameState = self.game_type(options, seed)
        return game

    def action_to_data(self, action: Any) -> Any:
        """The action's own ``to_data``."""
        return action.to_data()

    def describe(self, action: Any) -> str:
        """The action's own ``describe``."""
        text: str = action.describe()
        return text

    def describe_event(self, event: Any) -> str | None:
        """A round's scores (the game's `round_scored` event); None for every other event."""
        if self.round_scored is not None and type(event) is self.round_scored:
            return round_scores_line(event.round, [p.total for p in event.points], event.totals)
        return None
