"""What happened: the events `Game.apply` returns. Every event holds public information only.
A round's scoring is the event both games share (`engine.rounds.RoundScored`).

Events are typed NamedTuples rather than frozen dataclasses: they are as immutable, and a turn's
events are built on the engine's hottest path, where a NamedTuple costs less than half as much.
"""

from __future__ import annotations

from typing import NamedTuple

from sushigo.engine.rounds import RoundScored

from .actions import Action
from .cards import Card
from .scoring import RoundPoints


class RoundStarted(NamedTuple):
    """A round was dealt."""

    round: int
    """1, 2 or 3."""
    hand_size: int
    """Cards in each hand (before a dummy draw)."""
    pass_direction: int
    """+1: hands pass to the left (seat i to seat i+1); -1: to the right."""


class PicksRevealed(NamedTuple):
    """Every seat's action of one turn, revealed at once."""

    round: int
    turn: int
    """1 to the round's hand size."""
    actions: tuple[Action, ...]
    """Indexed by seat."""
    dummy_controller: int | None
    """The seat that controlled the dummy this turn (dummy variant), else None."""


class WasabiUsed(NamedTuple):
    """A nigiri landed on its owner's oldest uncovered wasabi and will score triple."""

    tableau: int
    """The tableau's index: a seat, or the number of seats for the dummy."""
    card: Card


class ChopsticksReturned(NamedTuple):
    """A seat used chopsticks: the card left its tableau and went back into its hand."""

    seat: int


class GameOver(NamedTuple):
    """Puddings scored and the game decided."""

    pudding_points: tuple[int, ...]
    """Indexed by tableau (seats, then the dummy)."""
    totals: tuple[int, ...]
    """Final scores, indexed by tableau."""
    places: tuple[int, ...]
    """Indexed by seat: 1 is first; tied seats share a place (the dummy has none)."""
    winners: tuple[int, ...]
    """The seats in first place: more than one is a shared win."""


Event = (
    RoundStarted
    | PicksRevealed
    | WasabiUsed
    | ChopsticksReturned
    | RoundScored[RoundPoints]
    | GameOver
)
