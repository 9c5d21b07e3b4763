"""What happened in a Sushi Roll game: the events `RollGame.apply` returns. All public.

Typed NamedTuples, like the card game's events (`engine.games.sushi_go.events`); a round's scoring
is the event both games share (`engine.rounds.RoundScored`). Every die shown is a `Die` (kind
and face); positions are belt positions as they were when the event happened.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from sushigo.engine.rounds import RoundScored

from .dice import Die
from .scoring import RoundPoints

__all__ = [
    "BeltsSlid",
    "DiceRolled",
    "GameOver",
    "Rerolled",
    "RollEvent",
    "RoundStarted",
    "Swapped",
    "Taken",
]


class RoundStarted(NamedTuple):
    """Dice were drawn from the bag onto the belts for a new round (the `DiceRolled` events of
    that first roll follow)."""

    round: int
    """1, 2 or 3."""
    first_seat: int
    """The seat holding the red belt, who moves first."""
    dice_per_player: int


class DiceRolled(NamedTuple):
    """The dice on a seat's belt were rolled: at the start of a round, or after belts slid."""

    seat: int
    """The seat whose belt it is."""
    dice: tuple[Die, ...]
    """The whole belt after the roll, in position order."""
    cause: Literal["round", "slide"]
    """``"round"``: the round's first roll; ``"slide"``: the belt just arrived from the right."""


class Rerolled(NamedTuple):
    """Menu: a seat paid a menu token and re-rolled some of its belt's dice."""

    seat: int
    positions: tuple[int, ...]
    dice: tuple[Die, ...]
    """The new dice at `positions`, in the same order."""


class Swapped(NamedTuple):
    """Chopsticks: a seat paid a chopsticks token and swapped a die with another belt's."""

    seat: int
    mine: int
    """The position on the seat's own belt, which now holds `received`."""
    other_seat: int
    theirs: int
    """The position on the other belt, which now holds `given`."""
    received: Die
    given: Die


class Taken(NamedTuple):
    """A seat moved a die from its belt to its tray: its turn is over."""

    seat: int
    position: int
    die: Die
    on_wasabi: bool
    """A nigiri that went onto an uncovered wasabi (it scores triple)."""
    puddings: int
    """Pudding tokens gained."""
    menu: int
    """Menu tokens gained (limited by what the supply still held); usable from the next turn."""
    chopsticks: int
    """Chopsticks tokens gained (limited by the supply); usable from the next turn."""


class BeltsSlid(NamedTuple):
    """Every belt, with its dice, moved to the player on the left (seat i to seat i + 1)."""

    red_belt: int
    """The seat that now holds the red belt."""
    between_rounds: bool
    """The 3-player game's extra slide after a round (its belts are empty)."""


class GameOver(NamedTuple):
    """End-of-game points counted and the game decided. Indexed by seat."""

    pudding_points: tuple[int, ...]
    token_bonus: tuple[int, ...]
    """1 point per 2 unused menu and/or chopsticks tokens."""
    totals: tuple[int, ...]
    """Final scores."""
    places: tuple[int, ...]
    """1 is first; tied seats share a place."""
    winners: tuple[int, ...]
    """The seats in first place: more than one is a shared win."""


RollEvent = (
    RoundStarted
    | DiceRolled
    | Rerolled
    | Swapped
    | Taken
    | BeltsSlid
    | RoundScored[RoundPoints]
    | GameOver
)
