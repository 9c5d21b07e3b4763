"""What one seat may see. Immutable; built on demand by `Game.observation(seat)`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from .actions import Action
from .cards import NIGIRI_POINTS, Card
from .legal import legal_actions, pack
from .options import GameOptions


@dataclass(frozen=True, slots=True)
class TableauView:
    """One tableau as everyone sees it: a seat's, or the dummy's."""

    cards: tuple[Card, ...]
    """This round's cards in the order they were played (a used chopsticks card has left)."""
    on_wasabi: tuple[Card, ...]
    """The nigiri among `cards` that sit on a wasabi, in order."""
    open_wasabi: int
    """Wasabi still waiting for a nigiri."""
    puddings: int
    """Pudding cards kept this game, this round's included."""
    score: int
    """Points from finished rounds (puddings are scored at the end)."""
    round_scores: tuple[int, ...]
    """Points of each finished round."""
    hand_size: int
    """Cards in this seat's hand now (the dummy: cards left in its pile)."""
    chopsticks_ready: bool
    """Holds a chopsticks card played on an earlier turn, usable this turn."""
    is_dummy: bool = False


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything `seat` may know now: its own hand and what is public. Never another hand."""

    options: GameOptions
    seat: int | None
    """The observing seat; None for a spectator, who sees no hand."""
    round: int
    """1-3; after the game, 3."""
    turn: int
    """1 to the round's hand size; after the game, the last turn."""
    hand: tuple[Card, ...]
    """The seat's hand (with the dummy's drawn card when it controls the dummy), sorted."""
    tableaus: tuple[TableauView, ...]
    """Every seat's tableau in seat order, then the dummy's."""
    pass_direction: int
    """+1: this round's hands pass left (seat i to i+1); -1: right."""
    dummy_controller: int | None
    """Dummy variant: the seat choosing the dummy's card this turn."""
    is_over: bool
    """The game has ended; scores in `tableaus` include puddings."""

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.options.players

    def legal_actions(self) -> tuple[Action, ...]:
        """This seat's legal actions, exactly as `Game.legal_actions(seat)` gives them."""
        if self.seat is None or self.is_over:
            return ()
        me = self.tableaus[self.seat]
        return legal_actions(
            pack(self.hand),
            len(self.hand),
            me.chopsticks_ready,
            self.dummy_controller == self.seat,
        )


def wasabi_placements(cards: tuple[Card, ...]) -> tuple[tuple[Card, ...], int]:
    """The nigiri placed on wasabi and the wasabi left uncovered, from a tableau in play order."""
    if _WASABI not in cards:  # most tableaus: one C-level scan
        return (), 0
    on: list[Card] = []
    open_wasabi = 0
    for card in cards:
        if card == _WASABI:
            open_wasabi += 1
        elif card in NIGIRI_POINTS and open_wasabi:
            open_wasabi -= 1
            on.append(card)
    return tuple(on), open_wasabi


_WASABI = Card.WASABI

T = TypeVar("T")


def positional(cls: type[T]) -> Callable[..., T]:
    """A constructor of the frozen, slotted dataclass `cls` that takes every field positionally,
    in field order, and fills the slots directly. A frozen dataclass's ``__init__`` sets each field
    through ``object.__setattr__``, which costs about three times as much, and a server builds an
    observation (with its tableau views) for every seat every turn. Like dataclasses itself, it
    compiles the constructor for the class's fields."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    lines = [f"def make({', '.join(names)}):", "    obj = new(cls)"]
    for i, name in enumerate(names):
        namespace[f"set{i}"] = getattr(cls, name).__set__
        lines.append(f"    set{i}(obj, {name})")
    lines.append("    return obj")
    exec(compile("\n".join(lines), f"<positional {cls.__qualname__}>", "exec"), namespace)
    make: Callable[..., T] = namespace["make"]
    return make


make_tableau_view = positional(TableauView)
"""`TableauView(...)` with every field given positionally, filled through the slots."""
make_observation = positional(Observation)
"""`Observation(...)` with every field given positionally, filled through the slots."""
