"""The three actions of a Sushi Roll turn, as typed immutable values.

A turn is any number of `Reroll` (pays a menu token) and `Swap` (pays a chopsticks token) actions,
in any order, then exactly one `Take`, which ends the turn. Positions are indices into a belt as it
is when the action is applied (0 is the first die); taking a die closes the gap, so the dice after
it move down one place. `describe` numbers dice and seats from 1, as the screens do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from sushigo.engine.errors import MalformedActionError


class Reroll(NamedTuple):
    """Menu: pay 1 menu token and re-roll the dice at `dice` on your own belt."""

    dice: tuple[int, ...]
    """Belt positions, non-empty and strictly increasing (the order the dice are rolled in)."""

    def describe(self) -> str:
        """A short human text, e.g. ``re-roll 1,3`` (positions 0 and 2)."""
        return "re-roll " + ",".join(str(d + 1) for d in self.dice)

    def to_data(self) -> dict[str, Any]:
        """Plain data: ``{"type": "reroll", "dice": [positions...]}``."""
        return {"type": "reroll", "dice": list(self.dice)}


class Swap(NamedTuple):
    """Chopsticks: pay 1 chopsticks token and swap one die of your belt with one die on another
    player's belt (never a tray). Both dice keep their faces."""

    mine: int
    """The position on your own belt."""
    other_seat: int
    """The seat whose belt holds the other die; not your own."""
    theirs: int
    """The position on that seat's belt."""

    def describe(self) -> str:
        """A short human text, e.g. ``swap 2 with seat 3's 1`` (position 1, seat 2's 0)."""
        return f"swap {self.mine + 1} with seat {self.other_seat + 1}'s {self.theirs + 1}"

    def to_data(self) -> dict[str, Any]:
        """Plain data: ``{"type": "swap", "mine": i, "other_seat": s, "theirs": j}``."""
        return {
            "type": "swap",
            "mine": self.mine,
            "other_seat": self.other_seat,
            "theirs": self.theirs,
        }


class Take(NamedTuple):
    """Move the die at `position` from your belt to your tray, face unchanged. Ends the turn."""

    position: int

    def describe(self) -> str:
        """A short human text, e.g. ``take 4`` (position 3)."""
        return f"take {self.position + 1}"

    def to_data(self) -> dict[str, Any]:
        """Plain data: ``{"type": "take", "position": i}``."""
        return {"type": "take", "position": self.position}


RollAction = Reroll | Swap | Take
"""Any Sushi Roll action."""

ACTION_TYPES = (Reroll, Swap, Take)


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if type(value) is not int:
        raise MalformedActionError(None, f"{key} must be an integer, got {value!r}")
    return value


def action_from_data(data: Mapping[str, Any]) -> RollAction:
    """The action a `to_data` produced; `MalformedActionError` naming what is wrong otherwise.

    Only the shape is checked here; whether the action is legal is the game's business.
    """
    if not isinstance(data, Mapping):
        raise MalformedActionError(None, f"an action must be a map, got {type(data).__name__}")
    kind = data.get("type")
    expected = {"reroll": {"type", "dice"}, "swap": {"type", "mine", "other_seat", "theirs"}}
    keys = expected.get(kind, {"type", "position"}) if isinstance(kind, str) else set()
    if kind not in ("reroll", "swap", "take"):
        raise MalformedActionError(None, f"unknown action type {kind!r}")
    if set(data) != keys:
        raise MalformedActionError(
            None, f"a {kind} action has exactly the keys {', '.join(sorted(keys))}"
        )
    if kind == "reroll":
        dice = data["dice"]
        if not isinstance(dice, list | tuple) or any(type(p) is not int for p in dice):
            raise MalformedActionError(None, "a re-roll's dice must be a list of positions")
        return Reroll(tuple(dice))
    if kind == "swap":
        return Swap(_int(data, "mine"), _int(data, "other_seat"), _int(data, "theirs"))
    return Take(_int(data, "position"))
