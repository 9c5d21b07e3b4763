"""Checks of an action's contents against the belts, before the game changes anything.

Each returns the checked values or raises the specific error naming the first problem. The game
has already checked that the game is not over and that `seat` is the seat to move.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from sushigo.engine.errors import MalformedActionError

from .actions import Reroll, Swap, Take
from .dice import Die
from .errors import BadPositionError, BadTargetError, NoTokenError


def _position(
    seat: int, position: object, what: str, belts: Sequence[Sequence[Die]], owner: int | None = None
) -> int:
    """`position` checked as a die's index on `owner`'s belt (default: `seat`'s own)."""
    if type(position) is not int:
        raise MalformedActionError(seat, f"a {what} position must be an integer: {position!r}")
    size = len(belts[seat if owner is None else owner])
    if not 0 <= position < size:
        whose = "your" if owner is None else f"seat {owner}'s"
        raise BadPositionError(
            seat, f"{what}: no die at position {position} of {whose} belt ({size} dice)"
        )
    return position


def check_take(seat: int, action: Take, belts: Sequence[Sequence[Die]]) -> int:
    """The belt position to take."""
    return _position(seat, action.position, "take", belts)


def check_reroll(
    seat: int, action: Reroll, belts: Sequence[Sequence[Die]], usable_menu: int
) -> tuple[int, ...]:
    """The positions to re-roll: non-empty, strictly increasing, all on the belt."""
    dice = action.dice
    if not isinstance(dice, tuple) or any(type(p) is not int for p in dice):
        raise MalformedActionError(seat, f"re-roll dice must be a tuple of positions: {dice!r}")
    if usable_menu < 1:
        raise NoTokenError(seat, "menu", "no menu token to spend on a re-roll")
    if not dice:
        raise BadPositionError(seat, "re-roll: choose at least one die")
    if any(a >= b for a, b in itertools.pairwise(dice)):
        raise BadPositionError(
            seat, f"re-roll: positions must be strictly increasing, got {list(dice)}"
        )
    for p in dice:
        _position(seat, p, "re-roll", belts)
    return dice


def check_swap(
    seat: int, action: Swap, belts: Sequence[Sequence[Die]], usable_chopsticks: int
) -> tuple[int, int, int]:
    """(mine, other seat, theirs): a die on another player's belt, never a tray."""
    mine, other, theirs = action
    for name, value in (("mine", mine), ("other_seat", other), ("theirs", theirs)):
        if type(value) is not int:
            raise MalformedActionError(seat, f"swap {name} must be an integer: {value!r}")
    if usable_chopsticks < 1:
        raise NoTokenError(seat, "chopsticks", "no chopsticks token to spend on a swap")
    if other == seat:
        raise BadTargetError(seat, "swap: the other die must be on another player's belt")
    if not 0 <= other < len(belts):
        raise BadTargetError(seat, f"swap: no seat {other} in a {len(belts)}-player game")
    if not belts[other]:
        raise BadTargetError(seat, f"swap: seat {other}'s belt is empty")
    _position(seat, mine, "swap", belts)
    _position(seat, theirs, "swap", belts, owner=other)
    return mine, other, theirs
